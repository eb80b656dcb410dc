"""The array_ops facade: the exported names, Identity, and autopacking of lists that hold
tensors (the Pack ops convert_to_tensor builds, named as TensorFlow 2.21 names them)."""
import numpy as np
import pytest

import trainflow
import trainflow.compat.v1 as tf
from trainflow._src.ops.array import array_ops

EXPORTS = ["zeros", "ones", "fill", "zeros_like", "ones_like", "range", "linspace", "lin_space",
           "shape", "shape_n", "size", "rank", "reshape", "squeeze", "expand_dims", "transpose",
           "concat", "stack", "unstack", "split", "slice", "strided_slice",
           "gather", "gather_nd", "scatter_nd", "tile", "pad", "reverse", "reverse_v2",
           "reverse_sequence", "where", "where_v2", "boolean_mask", "one_hot", "cast",
           "saturate_cast", "to_float", "to_double", "to_int32", "to_int64", "to_bfloat16",
           "unique", "unique_with_counts", "sequence_mask", "invert_permutation",
           "broadcast_to", "broadcast_static_shape", "broadcast_dynamic_shape", "meshgrid",
           "matrix_diag", "matrix_diag_part", "matrix_set_diag", "diag", "diag_part",
           "stop_gradient", "identity", "identity_n", "IndexedSlices",
           "SparseTensor", "SparseTensorValue", "sparse_placeholder", "sparse_tensor_to_dense",
           "sparse_to_dense", "sparse_reorder", "newaxis"]


@pytest.mark.parametrize("name", EXPORTS)
def test_exported_in_tf_namespace(name):
    assert name in array_ops.__all__
    assert getattr(tf, name) is getattr(array_ops, name)
    assert getattr(trainflow, name) is getattr(array_ops, name)


# Names array_ops exports that TensorFlow 1.15's namespace lacks: the faces leave them out
# (docs/face_extras.md).
@pytest.mark.parametrize("name", ["pack", "unpack", "IndexedSlicesValue"])
def test_exported_by_array_ops_not_by_the_faces(name):
    assert name in array_ops.__all__
    assert not hasattr(tf, name) and not hasattr(trainflow, name)


def test_newaxis_and_namespaces():
    assert tf.newaxis is None
    assert set(tf.sparse.__all__) >= {"SparseTensor", "to_dense", "reorder", "placeholder"}
    assert tf.sparse.SparseTensor is tf.SparseTensor


def test_identity():
    with tf.Graph().as_default():
        c = tf.constant([1, 2])
        y = tf.identity(c, name="copy")
        assert (y.op.name, y.op.type, str(y.shape)) == ("copy", "Identity", "(2,)")
        assert tf.get_static_value(y).tolist() == [1, 2]
        with tf.Session() as sess:
            assert sess.run(y).tolist() == [1, 2]


def test_autopacking_names_like_tf():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        packed = tf.convert_to_tensor([x[0, 0], 1.0])
        names = [f"{o.name}:{o.type}" for o in g.get_operations()][-2:]
        assert names == ["packed/1:Const", "packed:Pack"]
        assert (str(packed.shape), packed.dtype) == ("(2,)", tf.float32)
        nested = tf.convert_to_tensor([[x[0, 0], 2.0], [3.0, 4.0]])
        assert str(nested.shape) == "(2, 2)"
        names = [o.name for o in g.get_operations() if o.name.startswith("packed_1")]
        assert names == ["packed_1/0/1", "packed_1/0", "packed_1/1_1", "packed_1"]  # as TF
        with tf.Session() as sess:
            got = sess.run(nested, {x: np.ones([1, 3], np.float32)})
    assert got.tolist() == [[1, 2], [3, 4]]


def test_autopacking_dtypes():
    with tf.Graph().as_default() as g:
        i = tf.constant(1)
        packed = tf.convert_to_tensor([i, 2], dtype=tf.float32)
        assert [f"{o.name}:{o.type}" for o in g.get_operations()] == [
            "Const:Const", "Cast:Cast", "packed/1:Const", "packed:Pack"]
        assert packed.dtype == tf.float32
        with pytest.raises(TypeError, match="Cannot convert a list containing a tensor of dtype "
                                            "<dtype: 'float32'> to <dtype: 'int32'>"):
            tf.convert_to_tensor([i, tf.constant(2.5)])
        with pytest.raises(TypeError):
            tf.convert_to_tensor([i, 2.5])
        assert tf.convert_to_tensor([i, 2]).dtype == tf.int32
        assert tf.reshape(tf.zeros([6]), [i, -1]).shape.as_list() == [1, 6]
        assert array_ops.stack_nested([i, 3], None, "s").op.type == "Pack"
