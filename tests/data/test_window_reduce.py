"""window (datasets of datasets) and reduce, ported from TF's window_dataset_op_test (7
methods) and reduce_dataset_op_test (6 methods)."""
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


def _assert_sparse_equal(a, b):
    assert isinstance(b, STV)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.dense_shape, b.dense_shape)


WINDOW_CASES = [(20, 14, 7, 1), (20, 17, 9, 1), (20, 14, 14, 1), (20, 10, 14, 1),
                (20, 14, 19, 1), (20, 4, 1, 2), (20, 2, 1, 6), (20, 4, 7, 2), (20, 2, 7, 6),
                (1, 10, 4, 1), (0, 10, 4, 1)]


@pytest.mark.parametrize("drop_remainder", [True, False])
@pytest.mark.parametrize("count,size,shift,stride", WINDOW_CASES)
def test_window_dataset(count, size, shift, stride, drop_remainder):  # testWindowDataset
    components = (np.arange(7), np.array([[1, 2, 3]]) * np.arange(7)[:, np.newaxis],
                  np.array(37.0) * np.arange(7))
    with tf.Graph().as_default():
        count_t, size_t, shift_t, stride_t = (tf.placeholder(tf.int64, shape=[])
                                              for _ in range(4))
        drop_t = tf.placeholder(tf.bool, shape=[])
        iterator = D.from_tensor_slices(components).map(
            lambda x, y, z: (tf.square(x), tf.square(y), tf.square(z))).repeat(count_t) \
            .window(size=size_t, shift=shift_t, stride=stride_t, drop_remainder=drop_t) \
            .flat_map(lambda x, y, z: D.zip((x.batch(size_t), y.batch(size_t),
                                             z.batch(size_t)))) \
            .make_initializable_iterator()
        get_next = iterator.get_next()
        assert [t.shape.as_list() for t in get_next] == \
            [[None] + list(c.shape[1:]) for c in components]
        with tf.Session() as sess:
            sess.run(iterator.initializer, {count_t: count, size_t: size, shift_t: shift,
                                            stride_t: stride, drop_t: drop_remainder})
            got = _drain(sess, get_next)
    n = count * 7
    full = max(0, (n - ((size - 1) * stride + 1)) // shift + 1)
    partial = 0 if drop_remainder else n // shift + (n % shift > 0) - full
    assert len(got) == full + partial
    for i, result in enumerate(got):
        remaining = n - i * shift
        width = size if i < full else remaining // stride + (remaining % stride > 0)
        for component, got_component in zip(components, result):
            assert len(got_component) == width
            for j in range(width):
                np.testing.assert_array_equal(component[(i * shift + j * stride) % 7] ** 2,
                                              got_component[j])


@pytest.mark.parametrize("count,size,shift,stride", [(14, 0, 3, 1), (14, 3, 0, 1),
                                                     (14, 3, 3, 0)])
def test_window_dataset_invalid(count, size, shift, stride):  # testWindowDatasetInvalid
    with tf.Graph().as_default():
        count_t, size_t, shift_t, stride_t = (tf.placeholder(tf.int64, shape=[])
                                              for _ in range(4))
        iterator = D.range(10).map(lambda x: x).repeat(count_t) \
            .window(size=size_t, shift=shift_t, stride=stride_t) \
            .flat_map(lambda x: x.batch(batch_size=size_t)).make_initializable_iterator()
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="must be greater than zero"):
            sess.run(iterator.initializer, {count_t: count, size_t: size, shift_t: shift,
                                            stride_t: stride})


def _sparse(i):
    return STV(indices=[[0]], values=(i * [1]), dense_shape=[1])


def test_window_sparse():  # testWindowSparse
    with tf.Graph().as_default():
        get_next = D.range(10).map(_sparse).window(size=5, shift=3, drop_remainder=True) \
            .flat_map(lambda x: x.batch(batch_size=5)).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = _drain(sess, get_next)
    assert len(got) == (10 - 5) // 3 + 1
    for i, actual in enumerate(got):
        _assert_sparse_equal(STV([[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]],
                                 [i * 3 + k for k in range(5)], [5, 1]), actual)


def test_window_sparse_with_different_dense_shapes():  # testWindowSparseWithDifferentDenseShapes
    def _ragged(i):
        return STV(indices=tf.expand_dims(tf.range(i, dtype=tf.int64), 1),
                   values=tf.fill([tf.to_int32(i)], i), dense_shape=[i])

    with tf.Graph().as_default():
        get_next = D.range(10).map(_ragged).window(size=5, shift=3, drop_remainder=True) \
            .flat_map(lambda x: x.batch(batch_size=5)).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = _drain(sess, get_next)
    assert len(got) == 2
    for i, actual in enumerate(got):
        indices = [[j, k] for j in range(5) for k in range(i * 3 + j)]
        values = [i * 3 + j for j in range(5) for _ in range(i * 3 + j)]
        _assert_sparse_equal(STV(np.array(indices).reshape(-1, 2), values,
                                 [5, i * 3 + 5 - 1]), actual)


def test_nested_window_sparse():  # testNestedWindowSparse
    with tf.Graph().as_default():
        get_next = D.range(10).map(_sparse).window(size=4, shift=2, drop_remainder=True) \
            .flat_map(lambda x: x.batch(batch_size=4)) \
            .window(size=3, shift=1, drop_remainder=True) \
            .flat_map(lambda x: x.batch(batch_size=3)).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = _drain(sess, get_next)
    indices = [[a, b, 0] for a in range(3) for b in range(4)]
    assert len(got) == 2
    _assert_sparse_equal(STV(indices, [0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7], [3, 4, 1]), got[0])
    _assert_sparse_equal(STV(indices, [2, 3, 4, 5, 4, 5, 6, 7, 6, 7, 8, 9], [3, 4, 1]), got[1])


def test_window_shape_error():  # testWindowShapeError
    with tf.Graph().as_default():
        lengths = D.from_tensor_slices(np.array([3, 3, 4], np.int32))
        get_next = lengths.map(lambda n: tf.fill([n], 1.0)).window(size=3, shift=1) \
            .flat_map(lambda x: x.batch(batch_size=3)).make_one_shot_iterator().get_next()
        with tf.Session() as sess, pytest.raises(
                tf.errors.InvalidArgumentError,
                match=r"Cannot batch tensors with different shapes in component 0. First "
                      r"element had shape \[3\] and element 2 had shape \[4\]."):
            sess.run(get_next)


def test_window_ignore_errors():  # testWindowIgnoreErrors
    values = np.float32([1., np.nan, 2., np.nan, 3.])
    with tf.Graph().as_default():
        get_next = D.from_tensor_slices(values).map(lambda x: tf.check_numerics(x, "message")) \
            .window(size=2, shift=2, stride=2, drop_remainder=True) \
            .flat_map(lambda x: x.batch(batch_size=2)).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = _drain(sess, get_next)
    assert [list(g) for g in got] == [[1., 2.], [2., 3.]]


def test_window_structure_and_classes():
    with tf.Graph().as_default():
        windows = D.zip((D.range(5), D.range(5).map(lambda x: {"v": x}))).window(2)
        inner, nested = windows.output_types
        assert repr(inner) == ("DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), "
                               "TensorShape([]))")
        assert windows.output_classes == windows.output_types == windows.output_shapes
        assert list(nested) == ["v"]
        batched = windows.flat_map(lambda a, b: D.zip((a.batch(2), b["v"].batch(2))))
        with tf.Session() as sess:
            got = _drain(sess, batched.make_one_shot_iterator().get_next())
    assert [(list(a), list(b)) for a, b in got] == [([0, 1], [0, 1]), ([2, 3], [2, 3]),
                                                    ([4], [4])]


# -- reduce_dataset_op_test ------------------------------------------------------------------

def _evaluate(tensors, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(tensors, feed_dict)


def test_reduce_sum():  # testSum
    for i in range(10):
        with tf.Graph().as_default():
            result = D.range(1, i + 1).reduce(tf.constant(0, dtype=tf.int64),
                                              lambda x, y: x + y)
            assert _evaluate(result) == ((i + 1) * i) // 2


def test_reduce_sum_tuple():  # testSumTuple
    for i in range(10):
        with tf.Graph().as_default():
            ds = D.range(1, i + 1)
            result = D.zip((ds, ds)).reduce(tf.constant(0, dtype=tf.int64),
                                             lambda state, value: state + value[0] + value[1])
            assert _evaluate(result) == (i + 1) * i


def test_reduce_sum_and_count():  # testSumAndCount
    for i in range(10):
        with tf.Graph().as_default():
            result = D.range(1, i + 1).reduce(
                (tf.constant(0, dtype=tf.int64), tf.constant(0, dtype=tf.int64)),
                lambda state, value: (state[0] + value, state[1] + 1))
            assert tuple(_evaluate(result)) == (((i + 1) * i) // 2, i)


def test_reduce_square_using_placeholder():  # testSkipEagerSquareUsingPlaceholder
    with tf.Graph().as_default():
        delta = tf.placeholder(dtype=tf.int64)
        for i in range(10):
            result = D.range(1, i + 1).reduce(np.int64(0), lambda state, _: state + delta)
            assert _evaluate(result, {delta: i}) == i * i


def _make_sparse(i):
    return STV(indices=np.array([[0, 0]]), values=(i * np.array([1])),
               dense_shape=np.array([1, 1]))


def test_reduce_sparse():  # testSparse
    for i in range(10):
        with tf.Graph().as_default():
            result = D.from_tensors(_make_sparse(i + 1)).reduce(_make_sparse(0),
                                                                lambda _, value: value)
            _assert_sparse_equal(_make_sparse(i + 1), _evaluate(result))


def test_reduce_nested():  # testNested
    def reduce_fn(state, value):
        state["dense"] += value["dense"]
        state["sparse"] = value["sparse"]
        return state

    def map_fn(i):
        return {"dense": tf.cast(i, dtype=tf.int64),
                "sparse": _make_sparse(tf.cast(i, dtype=tf.int64))}

    for i in range(10):
        with tf.Graph().as_default():
            result = _evaluate(D.range(1, i + 1).map(map_fn).reduce(map_fn(0), reduce_fn))
            assert result["dense"] == ((i + 1) * i) // 2
            _assert_sparse_equal(_make_sparse(i), result["sparse"])


def test_reduce_relaxes_state_shapes_and_checks_types():
    with tf.Graph().as_default():
        grown = D.range(3).reduce(tf.zeros([0], tf.int64),
                                  lambda s, x: tf.concat([s, [x]], 0))
        assert grown.shape.as_list() == [None]
        assert list(_evaluate(grown)) == [0, 1, 2]
        with pytest.raises(TypeError, match="element types for the new state"):
            D.range(3).reduce(np.int32(0), lambda s, x: x)


def test_datasets_as_map_results_and_elements():
    with tf.Graph().as_default():
        batched = D.range(7).window(3).map(lambda w: w.batch(3))
        assert "DatasetSpec" in repr(batched.output_types)
        sums = D.range(7).window(3).map(
            lambda w: w.reduce(tf.constant(0, tf.int64), lambda s, x: s + x))
        nested = D.from_tensors(D.range(3)).flat_map(lambda d: d)
        with tf.Session() as sess:
            got = _drain(sess, batched.flat_map(lambda d: d).make_one_shot_iterator()
                         .get_next())
            assert [list(g) for g in got] == [[0, 1, 2], [3, 4, 5], [6]]
            assert _drain(sess, sums.make_one_shot_iterator().get_next()) == [3, 12, 6]
            assert _drain(sess, nested.make_one_shot_iterator().get_next()) == [0, 1, 2]
