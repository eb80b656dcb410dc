"""IndexedSlices / IndexedSlicesValue: properties, dense conversion (UnsortedSegmentSum,
repeated rows add up), fetching and feeding. Names, shapes and values are what
TensorFlow 2.21 gives for the same programs (checked in a TF 2.21 environment)."""
import warnings

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import indexed_slices
from trainflow._src.framework.indexed_slices import IndexedSlicesValue


def _slices(dense_shape=(4, 3)):
    values = tf.constant([[1., 2., 3.], [4., 5., 6.]])
    indices = tf.constant([3, 3])
    shape = None if dense_shape is None else tf.constant(list(dense_shape))
    return tf.IndexedSlices(values, indices, shape)


def test_properties():
    with tf.Graph().as_default() as g:
        s = _slices()
        assert str(s.shape) == "(4, 3)" and s.get_shape() == s.shape
        assert s.dtype == tf.float32 and s.name == "Const:0"
        assert s.op is s.values.op and s.graph is g and s.device == ""
        assert s.indices.name == "Const_1:0" and s.dense_shape.name == "Const_2:0"
        assert _slices(None).shape.rank is None
        bare = tf.IndexedSlices(tf.constant([1.], name="v"), tf.constant([0], name="i"))
        assert str(bare) == ('IndexedSlices(indices=Tensor("i:0", shape=(1,), dtype=int32), '
                             'values=Tensor("v:0", shape=(1,), dtype=float32))')
        assert tf.is_tensor(s)


def test_dense_conversion_like_tf():
    with tf.Graph().as_default() as g:
        s = _slices()
        before = {o.name for o in g.get_operations()}
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            dense = tf.convert_to_tensor(s)
        new = [f"{o.name}:{o.type}" for o in g.get_operations() if o.name not in before]
        assert new == ["strided_slice/stack:Const", "strided_slice/stack_1:Const",
                       "strided_slice/stack_2:Const", "strided_slice:StridedSlice",
                       "UnsortedSegmentSum:UnsortedSegmentSum"]
        assert str(dense.shape) == "(4, 3)"
        dyn = tf.IndexedSlices(tf.constant([[1., 2., 3.]]), tf.constant([0]),
                               tf.placeholder(tf.int32, [2]))
        assert str(tf.convert_to_tensor(dyn).shape) == "(?, 3)"
        total = tf.add_n([tf.convert_to_tensor(s), tf.ones([4, 3])])
        with tf.Session() as sess:
            got = sess.run([dense, total])
    assert got[0].tolist() == [[0, 0, 0], [0, 0, 0], [0, 0, 0], [5, 7, 9]]
    assert got[1][3].tolist() == [6, 8, 10]


def test_conversion_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Tensor conversion requested for IndexedSlices for "
                                             "argument `value` without dense_shape"):
            tf.convert_to_tensor(_slices(None))
        with pytest.raises(ValueError, match="Incompatible tensor conversion requested to "
                                             "`dtype` int32"):
            tf.convert_to_tensor(_slices(), dtype=tf.int32)


def test_large_conversion_warns(monkeypatch):
    monkeypatch.setattr(indexed_slices, "_LARGE_SPARSE_NUM_ELEMENTS", 10)
    with tf.Graph().as_default():
        with pytest.warns(UserWarning, match="Converting sparse IndexedSlices to a dense Tensor "
                                             "with 12 elements"):
            tf.convert_to_tensor(_slices())


def test_fetch_and_feed():
    with tf.Graph().as_default():
        s = _slices()
        no_shape = _slices(None)
        with tf.Session() as sess:
            v = sess.run(s)
            assert isinstance(v, IndexedSlicesValue)
            assert v.indices.tolist() == [3, 3] and v.dense_shape.tolist() == [4, 3]
            assert v.values.tolist() == [[1, 2, 3], [4, 5, 6]]
            assert sess.run(no_shape).dense_shape is None
            fed = sess.run(s, {s: IndexedSlicesValue(np.ones([2, 3], np.float32),
                                                        np.array([0, 1], np.int32),
                                                        np.array([2, 3], np.int32))})
            assert fed.values.tolist() == [[1] * 3] * 2 and fed.dense_shape.tolist() == [2, 3]
            pair = sess.run([s, s.values])
            assert isinstance(pair[0], IndexedSlicesValue)


def test_gather_then_convert_sums_repeated_rows():
    with tf.Graph().as_default():
        emb = tf.constant(np.arange(8, dtype=np.float32).reshape(4, 2))
        rows = tf.gather(emb, [0, 2, 0])
        s = tf.IndexedSlices(rows, tf.constant([0, 2, 0]), tf.shape(emb))
        dense = tf.convert_to_tensor(s)
        with tf.Session() as sess:
            got = sess.run(dense)
    assert got.tolist() == [[0, 2], [0, 0], [4, 5], [0, 0]]
