"""SparseToDense, SparseReorder, sparse_placeholder and the sparse <-> dense functions:
graph structure, shapes, values and errors as TensorFlow 2.21 gives them (checked in
a TF 2.21 environment)."""
import re

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow import sparse as tf_sparse
from trainflow._src.framework import errors


def _new_ops(g, before):
    return [f"{o.name}:{o.type}" for o in g.get_operations() if o.name not in before]


def test_sparse_placeholder_structure_and_shapes():
    with tf.Graph().as_default() as g:
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 4], name="sp")
        assert _new_ops(g, set()) == ["sp/shape_default:Const", "sp/shape:PlaceholderWithDefault",
                                      "sp/values:Placeholder", "sp/indices:Placeholder"]
        assert [str(sp.shape), str(sp.indices.shape), str(sp.values.shape),
                str(sp.dense_shape.shape)] == ["(?, 4)", "(?, 2)", "(?,)", "(2,)"]
        before = {o.name for o in g.get_operations()}
        fixed = tf.sparse_placeholder(tf.int64, shape=[3, 4])
        assert _new_ops(g, before) == ["Const:Const", "PlaceholderWithDefault:"
                                       "PlaceholderWithDefault", "Placeholder:Placeholder",
                                       "Placeholder_1:Placeholder"]
        assert str(fixed.shape) == "(3, 4)"
        free = tf.sparse_placeholder(tf.int64)
        assert [str(free.shape), str(free.indices.shape), str(free.dense_shape.shape)] == \
            ["<unknown>", "(?, ?)", "(?,)"]
        assert tf_sparse.placeholder is tf.sparse_placeholder


def test_reorder():
    with tf.Graph().as_default() as g:
        st = tf.SparseTensor([[1, 0], [0, 1]], [1., 2.], [2, 3])
        before = {o.name for o in g.get_operations()}
        out = tf_sparse.reorder(st)
        assert _new_ops(g, before) == ["SparseReorder:SparseReorder",
                                       "SparseTensor_1/dense_shape:Const"]
        assert str(out.shape) == "(2, 3)"
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 4])
        dyn = tf.sparse_reorder(sp)
        assert str(dyn.shape) == "(?, 4)" and dyn.dense_shape.op.type == "Identity"
        with tf.Session() as sess:
            v = sess.run(out)
    assert v.indices.tolist() == [[0, 1], [1, 0]] and v.values.tolist() == [2.0, 1.0]


@pytest.mark.parametrize("indices,message", [
    ([[1, 0], [0, 1]], "indices[1] = [0,1] is out of order. Many sparse ops require sorted "
                       "indices.\n    Use `tf.sparse.reorder` to create a correctly ordered "
                       "copy.\n\n"),
    ([[0, 1], [0, 1]], "indices[1] = [0,1] is repeated"),
    ([[0, 1], [5, 1]], "indices[1] = [5,1] is out of bounds: need 0 <= index < [2,3]"),
])
def test_to_dense_validates_indices_like_tf(indices, message):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int64)
        dense = tf_sparse.to_dense(tf.SparseTensor(p, [1., 2.], [2, 3]))
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError, match=re.escape(message)):
                sess.run(dense, {p: np.array(indices, np.int64)})


def test_sparse_to_dense_scalar_values_and_unvalidated():
    with tf.Graph().as_default():
        a = tf.sparse_to_dense([[1, 0], [0, 2]], [2, 3], 7, default_value=1,
                               validate_indices=False)
        b = tf.sparse_to_dense([1, 3], [5], [2., 1.])
        with tf.Session() as sess:
            got = sess.run([a, b])
    assert got[0].tolist() == [[1, 1, 7], [7, 1, 1]]
    assert got[1].tolist() == [0, 2, 0, 1, 0]
