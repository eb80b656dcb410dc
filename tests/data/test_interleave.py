"""Dataset.interleave (InterleaveDataset, ParallelInterleaveDatasetV2): TF's
interleave_dataset_op_test, ported (each test names the TF method it ports)."""
import threading

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tests.helpers.dataset_run import elements

D = tf.data.Dataset


def reference_interleave(lists, cycle_length, block_length):
    """TF's order: `cycle_length` open lists, `block_length` items from each in turn; an
    exhausted list's place is taken by the next list when the cycle comes back to it."""
    pending = [iter(v) for v in lists]
    cycle = [pending.pop(0) if pending else None for _ in range(cycle_length)]
    while any(c is not None for c in cycle) or pending:
        for i in range(cycle_length):
            if cycle[i] is None:
                if not pending:
                    continue
                cycle[i] = pending.pop(0)
            for _ in range(block_length):
                try:
                    yield next(cycle[i])
                except StopIteration:
                    cycle[i] = None
                    break


def repeated(values, count):
    return [[v] * v for v in np.tile(values, count)]


@pytest.mark.parametrize("values,cycle,block,want", [
    ([4, 5, 6], 1, 1, [4] * 4 + [5] * 5 + [6] * 6 + [4] * 4 + [5] * 5 + [6] * 6),
    ([4, 5, 6], 2, 1, [4, 5, 4, 5, 4, 5, 4, 5, 5, 6, 6, 4, 6, 4, 6, 4, 6, 4, 6, 5, 6, 5, 6,
                       5, 6, 5, 6, 5, 6, 6]),
    ([4, 5, 6], 2, 3, [4, 4, 4, 5, 5, 5, 4, 5, 5, 6, 6, 6, 4, 4, 4, 6, 6, 6, 4, 5, 5, 5, 6,
                       6, 6, 5, 5, 6, 6, 6]),
    ([4, 5, 6], 7, 2, [4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6,
                       6, 5, 6, 6, 5, 6, 6]),
    ([4, 0, 6], 2, 1, [4, 4, 6, 4, 6, 4, 6, 6, 4, 6, 4, 6, 4, 4, 6, 6, 6, 6, 6, 6]),
    ([4, 5, 6], 2, 2, [4, 4, 5, 5, 4, 4, 5, 5, 5, 6, 6, 4, 4, 6, 6, 4, 4, 6, 6, 5, 5, 6, 6, 5,
                       5, 6, 6, 5, 6, 6]),
])
def test_python_implementation(values, cycle, block, want):
    """testPythonImplementation (and the contrib ParallelInterleaveDatasetTest's
    testPythonImplementation[BlockLength|EmptyLists]): the reference order."""
    assert list(reference_interleave(repeated(values, 2), cycle, block)) == want


INTERLEAVE_CASES = [
    ([4, 5, 6], 1, 3, None), ([4, 5, 6], 1, 3, 1), ([4, 5, 6], 2, 1, None),
    ([4, 5, 6], 2, 1, 1), ([4, 5, 6], 2, 1, 2), ([4, 5, 6], 2, 3, None),
    ([4, 5, 6], 2, 3, 1), ([4, 5, 6], 2, 3, 2), ([4, 5, 6], 7, 2, None),
    ([4, 5, 6], 7, 2, 1), ([4, 5, 6], 7, 2, 3), ([4, 5, 6], 7, 2, 5), ([4, 5, 6], 7, 2, 7),
    ([], 2, 3, None), ([0, 0, 0], 2, 3, None), ([4, 0, 6], 2, 3, None),
    ([4, 0, 6], 2, 3, 1), ([4, 0, 6], 2, 3, 2),
]


@pytest.mark.parametrize("values,cycle,block,calls", INTERLEAVE_CASES)
def test_interleave_dataset(values, cycle, block, calls):
    """testInterleaveDataset: TF's order, sequential and parallel; OutOfRange repeats."""
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(np.int64(values)).repeat(2).interleave(
            lambda x: D.from_tensors(x).repeat(x), cycle, block, calls)
        get_next = tf.data.make_one_shot_iterator(dataset).get_next()
        with tf.Session() as sess:
            for want in reference_interleave(repeated(values, 2), cycle, block):
                assert sess.run(get_next) == want
            for _ in range(2):
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(get_next)


ERROR_CASES = [(1, 3, None), (1, 3, 1), (2, 1, None), (2, 1, 1), (2, 1, 2), (2, 3, None),
               (2, 3, 1), (2, 3, 2), (7, 2, None), (7, 2, 1), (7, 2, 3), (7, 2, 5), (7, 2, 7)]


@pytest.mark.parametrize("cycle,block,calls", ERROR_CASES)
def test_interleave_dataset_error(cycle, block, calls):
    """testInterleaveDatasetError: an input's error arrives in order, iteration goes on."""
    values = np.float32([1., np.nan, 2., np.nan, 3.])
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(values).map(
            lambda x: tf.check_numerics(x, "message")).interleave(
                D.from_tensors, cycle, block, calls)
        get_next = tf.data.make_one_shot_iterator(dataset).get_next()
        with tf.Session() as sess:
            for value in values:
                if np.isnan(value):
                    with pytest.raises(tf.errors.InvalidArgumentError):
                        sess.run(get_next)
                else:
                    assert sess.run(get_next) == value
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


@pytest.mark.parametrize("values,cycle,block,calls", [
    ([4, 5, 6], 2, 1, 1), ([4, 5, 6], 2, 1, 2), ([4, 5, 6], 2, 3, 1), ([4, 5, 6], 2, 3, 2),
    ([4, 5, 6], 3, 2, 1), ([4, 5, 6], 3, 2, 2), ([4, 5, 6], 3, 2, 3), ([4, 0, 6], 2, 3, 1),
    ([4, 0, 6], 2, 3, 2)])
def test_parallel_interleave_in_order(values, cycle, block, calls):
    """testSloppyInterleaveInOrder: elements released one at a time in TF's order come
    out in that order (the open datasets are read on other threads)."""
    events = {v: threading.Event() for v in values}

    def slow_square(x):
        assert events[x].wait(10)
        events[x].clear()
        return x * x

    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(np.int64(values)).repeat(2).interleave(
            lambda x: D.from_tensors(x).repeat(x).map(
                lambda y: tf.py_func(slow_square, [y], tf.int64)), cycle, block, calls)
        get_next = tf.data.make_one_shot_iterator(dataset).get_next()
        with tf.Session() as sess:
            for want in reference_interleave(repeated(values, 2), cycle, block):
                events[want].set()
                assert sess.run(get_next) == want * want
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_interleave_autotune_cycle_and_captures():
    """cycle_length defaults to AUTOTUNE (the machine's CPUs); the function's captures."""
    with tf.Graph().as_default():
        offset = tf.constant(100, tf.int64)
        dataset = D.range(3).interleave(lambda x: D.from_tensors(x + offset).repeat(2))
        got = elements(dataset)
    assert sorted(got) == [100, 100, 101, 101, 102, 102]


@pytest.mark.parametrize("cycle,block,calls,match", [
    (0, 1, None, "cycle_length must be greater than zero"),
    (2, 0, None, "block_length must be greater than zero"),
    (2, 1, 0, "num_parallel_calls must be greater than zero"),
])
def test_interleave_invalid_arguments(cycle, block, calls, match):
    with tf.Graph().as_default():
        dataset = D.range(3).interleave(D.from_tensors, cycle, block, calls)
        with pytest.raises(tf.errors.InvalidArgumentError, match=match):
            elements(dataset)


def test_interleave_structure():
    with tf.Graph().as_default():
        dataset = D.range(3).interleave(
            lambda x: D.from_tensors({"a": x, "b": tf.fill([2], x)}), 2)
        assert dataset.output_types == {"a": tf.int64, "b": tf.int64}
        assert dataset.output_shapes["b"].as_list() == [2]
        assert dataset._variant_tensor.op.type == "InterleaveDataset"
        parallel = D.range(3).interleave(D.from_tensors, 2, num_parallel_calls=2)
        assert parallel._variant_tensor.op.type == "ParallelInterleaveDatasetV2"
        with pytest.raises(TypeError, match="must return a Dataset"):
            D.range(3).interleave(lambda x: x)


def test_interleave_sparse():  # testInterleaveSparse
    def _map_fn(i):
        return tf.SparseTensorValue(indices=[[0, 0], [1, 1]], values=(i * [1, -1]),
                                    dense_shape=[2, 2])

    def _interleave_fn(x):
        return D.from_tensor_slices(tf.sparse_to_dense(x.indices, x.dense_shape, x.values))

    with tf.Graph().as_default():
        get_next = D.range(10).map(_map_fn).interleave(
            _interleave_fn, cycle_length=1).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            for i in range(10):
                for j in range(2):
                    want = [i, 0] if j % 2 == 0 else [0, -i]
                    assert sess.run(get_next).tolist() == want
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)
