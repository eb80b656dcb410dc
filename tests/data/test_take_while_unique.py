"""take_while and unique, ported from TF's experimental take_while_test (4 methods) and
unique_test (3 methods; from_generator's inputs are made with from_tensors/concatenate)."""
import functools

import numpy as np
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset
X = tf.data.experimental


def _elements(dataset):
    iterator = dataset.make_initializable_iterator()
    get_next = iterator.get_next()
    out = []
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        while True:
            try:
                out.append(sess.run(get_next))
            except tf.errors.OutOfRangeError:
                return out


@pytest.mark.parametrize("num_elements,window_size", [(14, 2), (15, 2), (100, 3)])
def test_take_while_dataset(num_elements, window_size):  # testTakeWhileDataset
    with tf.Graph().as_default():
        dataset = D.range(num_elements).batch(window_size).apply(
            X.take_while(lambda e: tf.shape(e)[0] > (window_size - 1))) \
            .flat_map(D.from_tensor_slices)
        want = list(range(int(num_elements / window_size) * window_size))
        assert _elements(dataset) == want


@pytest.mark.parametrize("num_elements,upper_bound,out_of_bounds", [
    (10, 2, False), (16, 7, False), (100, 99, False), (100, 101, True), (0, 1, True)])
def test_take_while_dataset_range(num_elements, upper_bound, out_of_bounds):
    # testTakeWhileDatasetRange: out of bounds, fewer elements than upper_bound come.
    with tf.Graph().as_default():
        got = _elements(D.range(num_elements).apply(X.take_while(lambda x: x < upper_bound)))
    assert got == list(range(min(num_elements, upper_bound)))
    assert (len(got) < upper_bound) == out_of_bounds


def test_take_while_dataset_string():  # testTakeWhileDatasetString
    strings = ["this", "is", "the", "test", "for", "strings"]
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(strings).apply(
            X.take_while(lambda x: tf.not_equal(x, tf.constant("test"))))
        assert _elements(dataset) == [b"this", b"is", b"the"]


@pytest.mark.parametrize("size,index", [(5, 3), (10, 0), (100, 5), (8, 7)])
def test_take_while_short_circuit(size, index):  # testTakewhileDatasetShortCircuit
    flags = [True] * size
    flags[index] = False
    with tf.Graph().as_default():
        got = _elements(D.from_tensor_slices(flags).apply(X.take_while(lambda x: x)))
    assert got == [True] * index


def _from_list(values, dtype):
    parts = [D.from_tensors(tf.constant(v, dtype=dtype)) for v in values]
    if not parts:
        return D.from_tensor_slices(tf.constant([], dtype=dtype))
    if len({np.shape(v) for v in values}) > 1:
        parts = [p.map(lambda t: tf.reshape(t, [-1])) for p in parts]
    return functools.reduce(lambda a, b: a.concatenate(b), parts)


INT_CASES = [([], []), ([1], [1]), ([1, 1, 1, 1, 1, 1, 1], [1]), ([1, 2, 3, 4], [1, 2, 3, 4]),
             ([1, 2, 4, 3, 2, 1, 2, 3, 4], [1, 2, 4, 3]),
             ([[1], [1, 1], [1, 1, 1]], [[1], [1, 1], [1, 1, 1]]),
             ([[1, 1], [1, 1], [2, 2], [3, 3], [1, 1]], [[1, 1], [2, 2], [3, 3]])]


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
@pytest.mark.parametrize("values,want", INT_CASES)
def test_unique_simple_int(dtype, values, want):  # testSimpleInt
    with tf.Graph().as_default():
        got = _elements(_from_list(values, dtype).apply(X.unique()))
    assert [np.asarray(g).tolist() for g in got] == want


@pytest.mark.parametrize("values,want", [
    ([], []), (["hello"], ["hello"]), (["hello", "hello", "hello"], ["hello"]),
    (["hello", "world"], ["hello", "world"]),
    (["foo", "bar", "baz", "baz", "bar", "foo"], ["foo", "bar", "baz"])])
def test_unique_simple_string(values, want):  # testSimpleString
    with tf.Graph().as_default():
        got = _elements(_from_list(values, tf.string).apply(X.unique()))
    assert got == [w.encode() for w in want]


@pytest.mark.parametrize("dtype", [tf.bool, tf.double, tf.complex64, tf.float32, tf.float64,
                                   tf.qint16, tf.qint32])
def test_unique_unsupported_types(dtype):  # testUnsupportedTypes
    with tf.Graph().as_default():
        dataset = D.from_tensors(tf.constant(False if dtype == tf.bool else 0, dtype=dtype))
        with pytest.raises(TypeError, match="only supports inputs with a single"):
            dataset.apply(X.unique())
