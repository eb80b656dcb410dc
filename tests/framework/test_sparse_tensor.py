"""SparseTensor / SparseTensorValue: construction, static shapes, feeding and fetching,
sparse_placeholder, to_dense, reorder and cast. Names, shapes and values below are what
TensorFlow 2.21 gives for the same programs (checked in a TF 2.21 environment)."""
import re

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow import sparse as tf_sparse


def _new_ops(g, before):
    return [f"{o.name}:{o.type}" for o in g.get_operations() if o.name not in before]


def test_construction_converts_components():
    with tf.Graph().as_default() as g:
        st = tf.SparseTensor([[0, 1], [1, 2]], [1., 2.], [2, 3])
        assert [f"{o.name}:{o.type}" for o in g.get_operations()] == [
            "SparseTensor/indices:Const", "SparseTensor/values:Const",
            "SparseTensor/dense_shape:Const"]
        assert st.indices.dtype == tf.int64 and st.dense_shape.dtype == tf.int64
        assert st.dtype == tf.float32 and st.values.dtype == tf.float32
        assert str(st.shape) == "(2, 3)" and st.get_shape() == st.shape
        assert st.op is st.values.op and st.graph is g
        assert str(st) == (
            'SparseTensor(indices=Tensor("SparseTensor/indices:0", shape=(2, 2), dtype=int64), '
            'values=Tensor("SparseTensor/values:0", shape=(2,), dtype=float32), '
            'dense_shape=Tensor("SparseTensor/dense_shape:0", shape=(2,), dtype=int64))')


@pytest.mark.parametrize("indices,values,shape,message", [
    ([[0, 1]], [1., 2.], [2, 3], "Dimensions 1 and 2 are not compatible"),
    ([[0, 1]], [1.], [2, 3, 4], "Dimensions 2 and 3 are not compatible"),
])
def test_inconsistent_components(indices, values, shape, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=re.escape(message)):
            tf.SparseTensor(indices, values, shape)


def test_from_value_and_is_sparse():
    from trainflow._src.framework.sparse_tensor import is_sparse
    value = tf.SparseTensorValue([[0, 0]], [3], [1, 1])
    with tf.Graph().as_default():
        st = tf.SparseTensor.from_value(value)
        assert is_sparse(st) and is_sparse(value) and not is_sparse(st.values)
        assert tf.SparseTensor.from_value(st) is st
        with pytest.raises(TypeError, match="neither a SparseTensor nor SparseTensorValue"):
            tf.SparseTensor.from_value([1])


def test_feed_and_fetch():
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 4], name="sp")
        dense = tf_sparse.to_dense(sp, default_value=-1.)
        with tf.Session() as sess:
            v = sess.run(sp, {sp: tf.SparseTensorValue([[0, 1], [1, 3]], [5., 6.], [2, 4])})
            assert isinstance(v, tf.SparseTensorValue)
            assert (v.indices.tolist(), v.values.tolist(), v.dense_shape.tolist()) == \
                ([[0, 1], [1, 3]], [5.0, 6.0], [2, 4])
            v = sess.run(sp, {sp: ([[0, 0]], [1.], [5, 4])})
            assert v.dense_shape.tolist() == [5, 4]
            d = sess.run(dense, {sp: ([[1, 2]], [3.], [2, 4])})
            assert d.tolist() == [[-1, -1, -1, -1], [-1, -1, 3, -1]]
            v = sess.run({"a": [sp]}, {sp: ([[0, 0]], [1.], [1, 4])})
            assert isinstance(v["a"][0], tf.SparseTensorValue)
            with pytest.raises(ValueError, match="Cannot feed value of shape"):
                sess.run(sp, {sp: [1, 2]})


def test_eval_to_dense_cast_and_size_like_tf():
    with tf.Graph().as_default() as g:
        st = tf.SparseTensor([[0, 1], [1, 2]], [1., 2.], [2, 3])
        before = {o.name for o in g.get_operations()}
        dense = tf_sparse.to_dense(st)
        assert _new_ops(g, before) == ["zeros:Const", "SparseToDense:SparseToDense"]
        assert str(dense.shape) == "(2, 3)" and tf.sparse_tensor_to_dense is tf_sparse.to_dense
        cast = tf.cast(st, tf.int32)
        assert isinstance(cast, tf.SparseTensor) and cast.values.op.name == "Cast"
        before = {o.name for o in g.get_operations()}
        size, rank, shape = tf.size(st), tf.rank(st), tf.shape(st)
        assert _new_ops(g, before) == ["Size/Cast:Cast", "Size/reduction_indices:Const",
                                       "Size:Prod", "Rank:Size", "Shape/Cast:Cast"]
        with tf.Session() as sess:
            assert sess.run(dense).tolist() == [[0, 1, 0], [0, 0, 2]]
            assert [np.asarray(v).tolist() for v in sess.run([size, rank, shape])] == \
                [6, 2, [2, 3]]
            v = st.eval(session=sess)
            assert isinstance(v, tf.SparseTensorValue) and v.values.tolist() == [1., 2.]
            assert sess.run(cast).values.dtype == np.int32


def test_not_convertible_to_dense_tensor():
    with tf.Graph().as_default():
        st = tf.SparseTensor([[0]], [1.], [2])
        with pytest.raises(TypeError):
            tf.convert_to_tensor(st)
        with pytest.raises(TypeError, match="Input must be a SparseTensor."):
            tf_sparse.to_dense(tf.constant([1.]))
