"""unbatch (Dataset.unbatch and tf.data.experimental.unbatch), ported from TF's
experimental unbatch_test (10 methods)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset
unbatch = tf.data.experimental.unbatch
STV = tf.SparseTensorValue


def _produces(dataset, want):
    iterator = dataset.make_initializable_iterator()
    get_next = iterator.get_next()
    got = []
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        while True:
            try:
                got.append(sess.run(get_next))
            except tf.errors.OutOfRangeError:
                break
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _assert_equal(g, w)


def _assert_equal(got, want):
    if isinstance(want, STV):
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
    elif isinstance(want, tuple):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            _assert_equal(a, b)
    else:
        np.testing.assert_array_equal(got, want)


def test_unbatch_with_unknown_rank_input():  # testUnbatchWithUnknownRankInput
    with tf.Graph().as_default():
        _produces(D.from_tensors([0, 1, 2, 3]).apply(unbatch()), list(range(4)))


def test_unbatch_scalar_dataset():  # testUnbatchScalarDataset
    with tf.Graph().as_default():
        data = D.from_tensor_slices(tuple(tf.range(10) for _ in range(3))).batch(2)
        assert data.output_types == (tf.int32,) * 3
        data = data.apply(unbatch())
        assert data.output_types == (tf.int32,) * 3
        _produces(data, [(i,) * 3 for i in range(10)])


def test_unbatch_dataset_with_strings():  # testUnbatchDatasetWithStrings
    with tf.Graph().as_default():
        data = D.from_tensor_slices(tuple(tf.range(10) for _ in range(3))) \
            .map(lambda x, y, z: (x, tf.as_string(y), z)).batch(2)
        assert data.output_types == (tf.int32, tf.string, tf.int32)
        data = data.apply(unbatch())
        assert data.output_types == (tf.int32, tf.string, tf.int32)
        _produces(data, [(i, str(i).encode(), i) for i in range(10)])


SPARSE = STV(indices=[[i, i] for i in range(10)], values=list(range(10)), dense_shape=[10, 10])


def test_unbatch_dataset_with_sparse_tensor():  # testUnbatchDatasetWithSparseTensor
    with tf.Graph().as_default():
        data = D.from_tensors(SPARSE).apply(unbatch()).batch(5).apply(unbatch())
        _produces(data, [STV([[i]], [i], [10]) for i in range(10)])


def test_unbatch_dataset_with_dense_and_sparse():  # testUnbatchDatasetWithDenseAndSparseTensor
    with tf.Graph().as_default():
        data = D.from_tensors((list(range(10)), SPARSE)).apply(unbatch()).batch(5) \
            .apply(unbatch())
        _produces(data, [(i, STV([[i]], [i], [10])) for i in range(10)])


def test_unbatch_single_element_tuple_dataset():  # testUnbatchSingleElementTupleDataset
    with tf.Graph().as_default():
        data = D.from_tensor_slices(tuple((tf.range(10),) for _ in range(3))).batch(2)
        assert data.output_types == ((tf.int32,),) * 3
        data = data.apply(unbatch())
        assert data.output_types == ((tf.int32,),) * 3
        _produces(data, [((i,),) * 3 for i in range(10)])


def test_unbatch_multi_element_tuple_dataset():  # testUnbatchMultiElementTupleDataset
    with tf.Graph().as_default():
        data = D.from_tensor_slices(tuple((tf.range(10 * i, 10 * i + 10), tf.fill([10], "hi"))
                                          for i in range(3))).batch(2)
        assert data.output_types == ((tf.int32, tf.string),) * 3
        data = data.apply(unbatch())
        assert data.output_types == ((tf.int32, tf.string),) * 3
        _produces(data, [((i, b"hi"), (10 + i, b"hi"), (20 + i, b"hi")) for i in range(10)])


def test_unbatch_empty():  # testUnbatchEmpty
    with tf.Graph().as_default():
        data = D.from_tensors((tf.constant([]), tf.constant([], shape=[0, 4]),
                               tf.constant([], shape=[0, 4, 0]))).apply(unbatch())
        _produces(data, [])


def test_unbatch_static_shape_mismatch():  # testUnbatchStaticShapeMismatch
    with tf.Graph().as_default(), pytest.raises(ValueError):
        D.from_tensors((np.arange(7), np.arange(8), np.arange(9))).apply(unbatch())


def test_unbatch_dynamic_shape_mismatch():  # testSkipEagerUnbatchDynamicShapeMismatch
    with tf.Graph().as_default():
        ph1 = tf.placeholder(tf.int32, shape=[None])
        ph2 = tf.placeholder(tf.int32, shape=None)
        iterator = D.from_tensors((ph1, ph2)).apply(unbatch()).make_initializable_iterator()
        next_element = iterator.get_next()
        with tf.Session() as sess:
            for second in (np.arange(8).astype(np.int32), 7):
                sess.run(iterator.initializer,
                         {ph1: np.arange(7).astype(np.int32), ph2: second})
                with pytest.raises(tf.errors.InvalidArgumentError):
                    sess.run(next_element)
