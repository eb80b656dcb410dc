"""from_tensors / from_tensor_slices / from_sparse_tensor_slices with dense and sparse
components, ported from TF r1.8's dataset_constructor_op_test (11 of its 12 methods;
testSplitPipelineFailsWithPlacementError needs two CPU devices and is not ported)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset
STV = tf.SparseTensorValue


def _drain(sess, get_next):
    out = []
    while True:
        try:
            out.append(sess.run(get_next))
        except tf.errors.OutOfRangeError:
            return out


def _assert_equal(want, got):
    if isinstance(want, STV):
        assert isinstance(got, STV)
        np.testing.assert_array_equal(want.indices, got.indices)
        np.testing.assert_array_equal(want.values, got.values)
        np.testing.assert_array_equal(want.dense_shape, got.dense_shape)
    else:
        np.testing.assert_array_equal(want, got)


def _shape_of(c, sliced=False):
    if isinstance(c, STV):
        return list(c.dense_shape[1:] if sliced else c.dense_shape)
    return list(c.shape[1:] if sliced else c.shape)


SPARSE_1 = STV(indices=np.array([[0]]), values=np.array([0]), dense_shape=np.array([1]))
SPARSE_2 = STV(indices=np.array([[0, 0], [1, 1]]), values=np.array([-1, 1]),
               dense_shape=np.array([2, 2]))
DENSE = (np.array(1), np.array([1, 2, 3]), np.array(37.0))


@pytest.mark.parametrize("components", [DENSE, (SPARSE_1, SPARSE_2), DENSE + (SPARSE_1, SPARSE_2)],
                         ids=["testFromTensors", "testFromTensorsSparse", "testFromTensorsMixed"])
def test_from_tensors(components):
    with tf.Graph().as_default():
        iterator = D.from_tensors(components).make_initializable_iterator()
        get_next = iterator.get_next()
        assert [s.as_list() for s in iterator.output_shapes] == \
            [_shape_of(c) for c in components]
        with tf.Session() as sess:
            sess.run(iterator.initializer)
            got = _drain(sess, get_next)
    assert len(got) == 1
    for want, result in zip(components, got[0]):
        _assert_equal(want, result)


SLICE_SPARSE = (STV(indices=np.array([[0, 0], [1, 0], [2, 0]]), values=np.array([0, 0, 0]),
                    dense_shape=np.array([3, 1])),
                STV(indices=np.array([[0, 0], [1, 1], [2, 2]]), values=np.array([1, 2, 3]),
                    dense_shape=np.array([3, 3])))
SLICE_SPARSE_WANT = [(STV([[0]], [0], [1]), STV([[i]], [i + 1], [3])) for i in range(3)]
SLICE_DENSE = (np.tile(np.array([[1], [2], [3]]), 20), np.tile(np.array([[12], [13], [14]]), 22),
               np.array([37.0, 38.0, 39.0]))


@pytest.mark.parametrize("components,want", [
    (SLICE_DENSE, list(zip(*SLICE_DENSE))),
    (SLICE_SPARSE, SLICE_SPARSE_WANT),
    (SLICE_DENSE + SLICE_SPARSE,
     [d + s for d, s in zip(zip(*SLICE_DENSE), SLICE_SPARSE_WANT)]),
], ids=["testFromTensorSlices", "testFromTensorSlicesSparse", "testFromTensorSlicesMixed"])
def test_from_tensor_slices(components, want):
    with tf.Graph().as_default():
        iterator = D.from_tensor_slices(components).make_initializable_iterator()
        get_next = iterator.get_next()
        assert [s.as_list() for s in iterator.output_shapes] == \
            [_shape_of(c, sliced=True) for c in components]
        with tf.Session() as sess:
            sess.run(iterator.initializer)
            got = _drain(sess, get_next)
    assert len(got) == len(want)
    for w, g in zip(want, got):
        for a, b in zip(w, g):
            _assert_equal(a, b)


def test_from_tensor_slices_with_dict():  # testFromTensorSlicesWithDict
    components = {"foo": [1, 2, 3], "bar": [[4.0], [5.0], [6.0]]}
    with tf.Graph().as_default():
        iterator = D.from_tensor_slices(components).make_initializable_iterator()
        assert iterator.output_types == {"foo": tf.int32, "bar": tf.float32}
        assert iterator.output_shapes["foo"].as_list() == []
        assert iterator.output_shapes["bar"].as_list() == [1]
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(iterator.initializer)
            got = _drain(sess, get_next)
    assert [(g["foo"], list(g["bar"])) for g in got] == [(1, [4.0]), (2, [5.0]), (3, [6.0])]


def test_from_sparse_tensor_slices():  # testFromSparseTensorSlices
    with tf.Graph().as_default():
        st = tf.sparse_placeholder(tf.float64)
        iterator = D.from_sparse_tensor_slices(st).make_initializable_iterator()
        get_next = tf.SparseTensor(*iterator.get_next())
        slices = [[1., 2., 3.], [1.], [1.], [1., 2.], [], [1., 2.], [], [], []]
        indices = np.array([[i, j] for i in range(len(slices)) for j in range(len(slices[i]))])
        values = np.array([v for s in slices for v in s])
        dense_shape = np.array([len(slices), max(len(s) for s in slices) + 1])
        with tf.Session() as sess:
            sess.run(iterator.initializer, {st: STV(indices, values, dense_shape)})
            for s in slices:
                got = sess.run(get_next)
                np.testing.assert_array_equal(got.values, s)
                np.testing.assert_array_equal(
                    got.indices, np.array([[j] for j in range(len(s))]).reshape([-1, 1]))
                np.testing.assert_array_equal(got.dense_shape, dense_shape[1:])
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)
            with pytest.raises(tf.errors.UnimplementedError):
                sess.run(iterator.initializer,
                         {st: STV(indices[::-1, :], values[::-1], dense_shape)})
            sess.run(iterator.initializer, {st: STV(np.empty((0, 4), np.int64),
                                                    np.empty((0,), np.float64),
                                                    [0, 4, 37, 9])})
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_nested_structure():  # testNestedStructure
    components = (np.array([1, 2, 3], dtype=np.int64),
                  (np.array([4., 5.]), np.array([6., 7.])), np.array([8, 9, 10], dtype=np.int64))
    types = (tf.int64, (tf.float64, tf.float64), tf.int64)
    with tf.Graph().as_default():
        dataset = D.from_tensors(components)

        def check(d, want_types, want_shapes):
            assert d.output_types == want_types
            got = tf.nest.map_structure(lambda s: s.as_list(), d.output_shapes)
            assert got == want_shapes

        shapes = ([3], ([2], [2]), [3])
        check(dataset, types, shapes)
        dataset = dataset.shuffle(10, 10)
        check(dataset, types, shapes)
        dataset = dataset.repeat(-1)
        check(dataset, types, shapes)
        dataset = dataset.filter(lambda x, y, z: True)
        check(dataset, types, shapes)
        dataset = dataset.take(5)
        check(dataset, types, shapes)
        dataset = dataset.map(lambda x, y, z: ((x, z), (y[0], y[1])))
        types2 = ((tf.int64, tf.int64), (tf.float64, tf.float64))
        check(dataset, types2, (([3], [3]), ([2], [2])))
        dataset = dataset.flat_map(lambda x, y: D.from_tensors(((x[0], x[1]), (y[0], y[1]))))
        check(dataset, types2, (([3], [3]), ([2], [2])))
        dataset = dataset.batch(32)
        check(dataset, types2, (([None, 3], [None, 3]), ([None, 2], [None, 2])))
        for iterator in (dataset.make_one_shot_iterator(), dataset.make_initializable_iterator()):
            (w, x), (y, z) = iterator.get_next()
            assert [t.dtype for t in (w, x, y, z)] == [tf.int64, tf.int64, tf.float64, tf.float64]
            assert [t.shape.as_list() for t in (w, x, y, z)] == \
                [[None, 3], [None, 3], [None, 2], [None, 2]]
        sliced = D.from_tensor_slices((np.array([1, 2, 3], dtype=np.int64),
                                       (np.array([4., 5., 6.]), np.array([7., 8., 9.])),
                                       np.array([10, 11, 12], dtype=np.int64)))
        check(sliced, types, ([], ([], []), []))


def test_nested_dict():  # testNestedDict
    with tf.Graph().as_default():
        dataset = D.from_tensors({"a": {"aa": 1, "ab": [2.0, 2.0]}, "b": [3, 3, 3]})
        assert dataset.output_types == {"a": {"aa": tf.int32, "ab": tf.float32}, "b": tf.int32}
        assert dataset.output_shapes["a"]["aa"].as_list() == []
        assert dataset.output_shapes["a"]["ab"].as_list() == [2]
        assert dataset.output_shapes["b"].as_list() == [3]


def test_non_sequence_nested_structure():  # testNonSequenceNestedStructure
    components = np.array([1, 2, 3], dtype=np.int64)
    with tf.Graph().as_default():
        dataset = D.from_tensors(components)
        assert dataset.output_types == tf.int64 and dataset.output_shapes.as_list() == [3]
        dataset = dataset.filter(lambda x: tf.reduce_all(tf.equal(x, components)))
        assert dataset.output_shapes.as_list() == [3]
        dataset = dataset.map(lambda x: tf.stack([x, x]))
        assert dataset.output_shapes.as_list() == [2, 3]
        dataset = dataset.flat_map(lambda x: D.from_tensor_slices(x))
        assert dataset.output_shapes.as_list() == [3]
        get_next = dataset.make_one_shot_iterator().get_next()
        assert get_next.dtype == tf.int64 and get_next.shape.as_list() == [3]
        with tf.Session() as sess:
            assert [list(e) for e in _drain(sess, get_next)] == [[1, 2, 3], [1, 2, 3]]


def test_sparse_output_classes_and_get_next():
    with tf.Graph().as_default():
        dataset = D.from_tensors((SPARSE_2, np.array(1)))
        assert dataset.output_classes == (tf.SparseTensor, tf.Tensor)
        assert dataset.output_types == (tf.int64, tf.int64)
        iterator = dataset.make_one_shot_iterator()
        sparse, _ = iterator.get_next()
        assert isinstance(sparse, tf.SparseTensor)
        assert sparse.shape.as_list() == [2, 2]


def test_sparse_through_map_filter_and_unbatch():
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(SLICE_SPARSE[1]).map(
            lambda s: tf.SparseTensor(s.indices, s.values * 10, s.dense_shape))
        assert dataset.output_classes is tf.SparseTensor
        batched = dataset.batch(3)
        assert batched.output_shapes.as_list() == [None, None]
        unbatched = batched.unbatch()
        with tf.Session() as sess:
            get_next = unbatched.make_one_shot_iterator().get_next()
            got = _drain(sess, get_next)
    assert [list(g.values) for g in got] == [[10], [20], [30]]
    assert [list(g.dense_shape) for g in got] == [[3]] * 3
