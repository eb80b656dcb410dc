"""More of TF's map_dataset_op_test (r1.8-r1.12), ported: one thread per function call,
a captured hash table, a seeded
stateful op (its sequence starts again when the iterator is initialized again, while
repeats and nested datasets of one iterator go on with it), sparse elements through two
maps, and a function that fails to instantiate.

Not counted (TF 2.21 fails them as written): testWarnOnLookupTable (TF 2.x warns with
other words) and testNestedDatasetError (TF 2.x maps to nested datasets).
"""
import threading

import numpy as np
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset


def _drain(sess, get_next):
    out = []
    while True:
        try:
            out.append(sess.run(get_next))
        except tf.errors.OutOfRangeError:
            return out


@pytest.mark.parametrize("calls", [None, 1])
def test_no_inter_op_parallelism(calls):
    # testNoInterOpParallelism (TF builds MapDataset / ParallelMapDataset with
    # use_inter_op_parallelism=False): the ops of one call of the function run on one
    # thread, so ten py_funcs see the same thread.
    def _get_tid():
        return np.int64(threading.current_thread().ident)

    def _map_fn(_):
        return [tf.py_func(_get_tid, [], tf.int64) for _ in range(10)]

    with tf.Graph().as_default():
        get_next = D.from_tensors(0).map(_map_fn, calls).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            tids = sess.run(get_next)
    assert len(set(tids)) == 1


def test_capture_hash_table():  # testCaptureHashTable
    with tf.Graph().as_default():
        keys = tf.constant(["brain", "salad", "surgery"])
        values = tf.constant([0, 1, 2], tf.int64)
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, values), -1)
        sentences = D.from_tensor_slices(["brain brain tank salad surgery", "surgery brain"])
        iterator = sentences.map(lambda x: tf.string_split([x]).values).map(
            table.lookup).make_initializable_iterator()
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(table.initializer)
            sess.run(iterator.initializer)
            got = _drain(sess, get_next)
    assert [g.tolist() for g in got] == [[0, 0, -1, 1, 2], [2, 0]]


def test_seeded_stateful_operator_is_properly_stateful():
    # testSeededStatefulOperatorIsProperlyStateful
    with tf.Graph().as_default():
        iterator = D.from_tensors(0).repeat(10).map(
            lambda _: tf.random_uniform((), seed=11)).batch(2).make_initializable_iterator()
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(iterator.initializer)
            first = np.concatenate(_drain(sess, get_next))
            assert len(first) == 10
            assert np.abs(np.diff(first)).max() > 1e-6
            sess.run(iterator.initializer)
            second = np.concatenate(_drain(sess, get_next))
    np.testing.assert_allclose(first, second)  # repeatable given the same seed


def test_seeded_stateful_operator_goes_on_in_nested_datasets():
    # As TF: the datasets an iterator's flat_map makes share one function runtime.
    with tf.Graph().as_default():
        iterator = D.range(3).flat_map(lambda _: D.from_tensors(0).repeat(2).map(
            lambda _: tf.random_uniform((), seed=11))).make_initializable_iterator()
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(iterator.initializer)
            first = _drain(sess, get_next)
            sess.run(iterator.initializer)
            second = _drain(sess, get_next)
    assert len(set(np.round(first, 6).tolist())) == 6
    np.testing.assert_allclose(first, second)


def _sparse(i):
    return tf.SparseTensorValue(indices=np.array([[0, 0]]), values=i * np.array([1]),
                                dense_shape=np.array([1, 1]))


def test_sparse_chain():  # testSparseChain
    def _check(x):
        assert isinstance(x, tf.SparseTensor)
        return tf.sparse_concat(0, [x, x])

    with tf.Graph().as_default():
        iterator = D.range(10).map(_sparse).map(_check).make_initializable_iterator()
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(iterator.initializer)
            for i in range(10):
                got = sess.run(get_next)
                assert isinstance(got, tf.SparseTensorValue)
                want = sess.run(_check(tf.SparseTensor.from_value(_sparse(i))))
                np.testing.assert_array_equal(got.indices, want.indices)
                np.testing.assert_array_equal(got.values, want.values)
                np.testing.assert_array_equal(got.dense_shape, want.dense_shape)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_broken_function_error_on_initialization():
    # testBrokenFunctionErrorOnInitialization: a Const whose value (float32) is not its
    # dtype (int32) fails when the iterator is initialized, naming the node.
    def broken_function(_):
        value = tf.AttrValue()
        value.tensor.CopyFrom(tf.make_tensor_proto([], dtype=tf.float32, shape=[0],
                                                   verify_shape=False))
        dtype = tf.AttrValue(type=tf.int32.as_datatype_enum)
        return tf.get_default_graph().create_op(
            "Const", [], [tf.int32], attrs={"value": value, "dtype": dtype},
            name="BrokenConst").outputs[0]

    with tf.Graph().as_default():
        iterator = D.from_tensor_slices([1.0, 2.0, 3.0]).map(
            broken_function).make_initializable_iterator()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="BrokenConst"):
                sess.run(iterator.initializer)
