"""filter, flat_map and prefetch (the core's function-calling datasets): TF's
filter_dataset_op_test, flat_map_dataset_op_test and prefetch_dataset_op_test, ported
(each test names the TF method it ports)."""
import random

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tests.helpers.dataset_run import elements

D = tf.data.Dataset


def test_filter_dataset():
    """FilterDatasetTest.testFilterDataset: fed count and modulus per initialization."""
    components = (np.arange(7, dtype=np.int64),
                  np.array([[1, 2, 3]], dtype=np.int64) * np.arange(7, dtype=np.int64)[:, None],
                  np.array(37.0, dtype=np.float64) * np.arange(7))
    with tf.Graph().as_default():
        count = tf.placeholder(tf.int64, shape=[])
        modulus = tf.placeholder(tf.int64)
        dataset = D.from_tensor_slices(components).map(
            lambda x, y, z: (tf.square(x), tf.square(y), tf.square(z))).repeat(count).filter(
            lambda x, _y, _z: tf.equal(tf.mod(x, modulus), 0))
        it = tf.data.make_initializable_iterator(dataset)
        get_next = it.get_next()
        assert [c.shape[1:] for c in components] == [tuple(t.shape.as_list())
                                                      for t in get_next]
        with tf.Session() as sess:
            for count_val, modulus_val in [(14, 2), (4, 18), (0, 1)]:
                sess.run(it.initializer, {count: count_val, modulus: modulus_val})
                for _ in range(count_val):
                    for i in [x for x in range(7) if x ** 2 % modulus_val == 0]:
                        for comp, value in zip(components, sess.run(get_next)):
                            np.testing.assert_array_equal(comp[i] ** 2, value)
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(get_next)


# (TF method, builder, expected elements)
CASES = [
    ("FilterDatasetTest.testFilterRange",
     lambda: D.range(10).filter(lambda x: tf.not_equal(tf.mod(x, 3), 2)), [0, 1, 3, 4, 6, 7, 9]),
    ("FilterDatasetTest.testFilterDict",
     lambda: D.range(10).map(lambda x: {"foo": x * 2, "bar": x ** 2})
     .filter(lambda d: tf.equal(d["bar"] % 2, 0)).map(lambda d: d["foo"] + d["bar"]),
     [i * 2 + i ** 2 for i in range(10) if i ** 2 % 2 == 0]),
    ("FilterDatasetTest.testUseStepContainerInFilter",
     lambda: D.from_tensor_slices(np.int64([[1, 2, 3], [4, 5, 6]])).filter(
         lambda xs: tf.equal(tf.reduce_sum(tf.map_fn(lambda x: x * x, xs)), 1 + 4 + 9)),
     [[1, 2, 3]]),
    ("FilterDatasetTest.testReturnComponent",
     lambda: D.zip((D.range(10), D.from_tensors(True).repeat(None))).filter(lambda x, y: y),
     [(i, True) for i in range(10)]),
    ("FlatMapDatasetTest.testFlatMapDataset",
     lambda: D.from_tensor_slices(np.int64([1, 2, 3, 4, 5, 0, 1])).flat_map(
         lambda x: D.from_tensors([x]).repeat(x)),
     [[i] for i in [1, 2, 3, 4, 5, 0, 1] for _ in range(i)]),
    ("FlatMapDatasetTest.testNestedFlatMapDataset",
     lambda: D.from_tensor_slices(np.int64([[1, 2], [3, 4], [5, 0], [1, 7]])).flat_map(
         lambda x: D.from_tensor_slices(x).flat_map(lambda y: D.from_tensors(y).repeat(y))),
     [i for row in [[1, 2], [3, 4], [5, 0], [1, 7]] for i in row for _ in range(i)]),
    ("FlatMapDatasetTest.testMapDict",
     lambda: D.range(6).map(lambda x: {"foo": x * 2, "bar": x ** 2}).flat_map(
         lambda d: D.from_tensors(d["foo"]).repeat(d["bar"])),
     [i * 2 for i in range(6) for _ in range(i ** 2)]),
]


def _equal(got, want):
    if isinstance(want, tuple):
        return len(got) == len(want) and all(_equal(g, w) for g, w in zip(got, want))
    return np.array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("name,build,want", CASES, ids=[c[0] for c in CASES])
def test_elements(name, build, want):
    with tf.Graph().as_default():
        got = elements(build())
    assert len(got) == len(want)
    assert all(_equal(g, w) for g, w in zip(got, want))


def test_shared_resource_nested_flat_map_dataset():
    """FlatMapDatasetTest.testSharedResourceNestedFlatMapDataset: two sessions of one
    server read one shared iterator in turn."""
    repeats = [[1, 2], [3, 4], [5, 0], [1, 7]]
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(np.int64(repeats)).flat_map(
            lambda x: D.from_tensor_slices(x).flat_map(lambda y: D.from_tensors(y).repeat(y)))
        it = tf.data.make_initializable_iterator(dataset, shared_name="shared_flat_map")
        get_next = it.get_next()
        server = tf.train.Server.create_local_server()
        rng = random.Random(0)
        with tf.Session(server.target) as sess1, tf.Session(server.target) as sess2:
            rng.choice([sess1, sess2]).run(it.initializer)
            for row in repeats:
                for i in row:
                    for _ in range(i):
                        assert rng.choice([sess1, sess2]).run(get_next) == i
            with pytest.raises(tf.errors.OutOfRangeError):
                rng.choice([sess1, sess2]).run(get_next)


@pytest.mark.parametrize("buffer_size", [-1, 0, 5])
def test_prefetch_buffer_size(buffer_size):
    """PrefetchDatasetTest.testBufferSize."""
    with tf.Graph().as_default():
        size = tf.placeholder(tf.int64, shape=[])
        dataset = D.range(10).prefetch(buffer_size=size)
        assert elements(dataset, {size: buffer_size}) == list(range(10))


@pytest.mark.parametrize("buffer_size", [-2, -42])
def test_prefetch_invalid_buffer_size(buffer_size):
    """PrefetchDatasetTest.testInvalidBufferSize."""
    with tf.Graph().as_default():
        size = tf.placeholder(tf.int64, shape=[])
        it = tf.data.make_initializable_iterator(D.range(10).prefetch(buffer_size=size))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="buffer_size"):
            sess.run(it.initializer, {size: buffer_size})


def test_map_out_of_range_ends_the_sequence():
    """A sequential map whose function raises OutOfRangeError ends there (TF 1.x's map,
    preserve_cardinality=False), as the parallel one does."""
    def stop_at_3(v):
        if v == 3:
            raise StopIteration()
        return v

    with tf.Graph().as_default():
        dataset = D.range(6).map(lambda x: tf.py_func(stop_at_3, [x], tf.int64))
        it = tf.data.make_one_shot_iterator(dataset)
        get_next = it.get_next()
        with tf.Session() as sess:
            assert [sess.run(get_next) for _ in range(3)] == [0, 1, 2]
            for _ in range(2):
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(get_next)


def test_flat_map_sparse():  # flat_map_dataset_op_test's testSparse
    def _map_fn(i):
        return tf.SparseTensorValue(indices=[[0, 0], [1, 1]], values=(i * [1, -1]),
                                    dense_shape=[2, 2])

    def _flat_map_fn(x):
        return D.from_tensor_slices(tf.sparse_to_dense(x.indices, x.dense_shape, x.values))

    with tf.Graph().as_default():
        iterator = D.range(10).map(_map_fn).flat_map(_flat_map_fn).make_initializable_iterator()
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(iterator.initializer)
            for i in range(10):
                for j in range(2):
                    want = [i, 0] if j % 2 == 0 else [0, -i]
                    assert sess.run(get_next).tolist() == want
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)
