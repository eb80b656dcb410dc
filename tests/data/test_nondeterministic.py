"""Options.experimental_deterministic = False (OptimizeDataset "make_sloppy" at iterator
creation): map with num_parallel_calls and interleave return elements as they become
ready. TF's map_dataset_op_test and interleave_dataset_op_test sloppy methods, ported
(testSloppyInterleaveInOrder and testSloppyInterleaveOutOfOrder of both files)."""
import threading

import numpy as np
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset


def _interleave_order(lists, cycle_length, block_length):
    """TF's interleave order (test_interleave.py's reference, for the lists here)."""
    pending = [iter(v) for v in lists]
    cycle = [pending.pop(0) if pending else None for _ in range(cycle_length)]
    out = []
    while any(c is not None for c in cycle) or pending:
        for i in range(cycle_length):
            if cycle[i] is None:
                if not pending:
                    continue
                cycle[i] = pending.pop(0)
            for _ in range(block_length):
                try:
                    out.append(next(cycle[i]))
                except StopIteration:
                    cycle[i] = None
                    break
    return out


def _sloppy(dataset):
    options = tf.data.Options()
    options.experimental_deterministic = False
    return dataset.with_options(options)


def _coordinated(values, build):
    """(get_next, events): each element x is computed once events[x] is set."""
    events = {v: threading.Event() for v in set(values)}

    def slow_square(x):
        assert events[x].wait(10)
        events[x].clear()
        return x * x

    def square(x):
        return tf.py_func(slow_square, [x], x.dtype)

    return build(square).make_one_shot_iterator().get_next(), events


def _check(get_next, events, order):
    with tf.Session() as sess:
        for x in order:
            events[x].set()
            assert sess.run(get_next) == x * x
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(get_next)


def _swapped(order):
    order = list(order)
    for i in (1, 4, 7):
        order[i], order[i + 1] = order[i + 1], order[i]
    return order


MAP_IN_ORDER = [(1, 1), (10, 1), (10, 10), (100, 1), (100, 10), (100, 100)]


@pytest.mark.parametrize("num_elements,calls", MAP_IN_ORDER)
def test_map_sloppy_in_order(num_elements, calls):  # map's testSloppyInterleaveInOrder
    with tf.Graph().as_default():
        get_next, events = _coordinated(range(num_elements), lambda f: _sloppy(
            D.range(num_elements).map(f, calls)))
        _check(get_next, events, range(num_elements))


@pytest.mark.parametrize("num_elements,calls", [(10, 10), (100, 10), (100, 100)])
def test_map_sloppy_out_of_order(num_elements, calls):  # map's testSloppyInterleaveOutOfOrder
    with tf.Graph().as_default():
        get_next, events = _coordinated(range(num_elements), lambda f: _sloppy(
            D.range(num_elements).map(f, calls)))
        _check(get_next, events, _swapped(range(num_elements)))


def _interleaved(values, cycle, block, calls):
    def build(f):
        return _sloppy(D.from_tensor_slices(np.int64(values)).repeat(2).interleave(
            lambda x: D.from_tensors(x).repeat(x).map(f), cycle, block, calls))
    return build


def _order(values, cycle, block):
    return _interleave_order([[v] * v for v in list(values) * 2], cycle, block)


@pytest.mark.parametrize("values,cycle,block,calls", [
    ([4, 5, 6], 2, 1, 1), ([4, 5, 6], 2, 1, 2), ([4, 5, 6], 2, 3, 1), ([4, 5, 6], 2, 3, 2),
    ([4, 5, 6], 3, 2, 1), ([4, 5, 6], 3, 2, 2), ([4, 5, 6], 3, 2, 3), ([4, 0, 6], 2, 3, 1),
    ([4, 0, 6], 2, 3, 2)])
def test_interleave_sloppy_in_order(values, cycle, block, calls):
    # interleave's testSloppyInterleaveInOrder, under the options
    with tf.Graph().as_default():
        get_next, events = _coordinated(values, _interleaved(values, cycle, block, calls))
        _check(get_next, events, _order(values, cycle, block))


@pytest.mark.parametrize("values,cycle,block,calls", [
    ([4, 5, 6], 2, 1, 2), ([4, 5, 6], 2, 3, 2), ([4, 5, 6], 3, 2, 3), ([4, 0, 6], 2, 3, 2)])
def test_interleave_sloppy_out_of_order(values, cycle, block, calls):
    # interleave's testSloppyInterleaveOutOfOrder
    with tf.Graph().as_default():
        get_next, events = _coordinated(values, _interleaved(values, cycle, block, calls))
        _check(get_next, events, _swapped(_order(values, cycle, block)))


def test_optimize_dataset_in_the_graph():
    with tf.Graph().as_default() as g:
        it = _sloppy(D.range(3).map(lambda x: x + 1, 2)).make_initializable_iterator()
        op = g.get_operation_by_name("OptimizeDataset")
        assert op.inputs[0].op.type == "ParallelMapDatasetV2"
        assert it.initializer.inputs[0].op is op
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            assert sorted(sess.run(get_next) for _ in range(3)) == [1, 2, 3]
    with tf.Graph().as_default() as g:
        D.range(3).map(lambda x: x + 1, 2).make_initializable_iterator()
        assert "OptimizeDataset" not in [o.type for o in g.get_operations()]
