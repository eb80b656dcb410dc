"""The host iterators of the parallel area (parallel map, interleave, scan, grouping,
directed interleave, random), driven directly: order under uneven timing, errors in
order, save()/restore() into a fresh iterator, close() ending every thread."""
import random
import threading
import time

import numpy as np
import pytest

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import background
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.grouping_ops import (DirectedInterleaveValue,
                                                     RandomValue, _GroupByReducerIterator,
                                                     _GroupByWindowIterator, _ScanIterator,
                                                     _Value)
from trainflow._src.ops.dataset.interleave_ops import InterleaveValue
from trainflow._src.ops.dataset.parallel_map_ops import ParallelMapValue
from trainflow._src.ops.dataset.source_ops import RangeValue
from trainflow._src.ops.dataset.window_ops import ListValue


def _range(n, start=0):
    return RangeValue(start, start + n, 1, np.int64)


def _slow_square(element):
    time.sleep(random.random() * 0.002)
    return [element[0] * element[0]]


def _failing_at(bad):
    def fn(element):
        if int(element[0]) in bad:
            raise errors.InvalidArgumentError(None, None, f"bad {int(element[0])}")
        return [element[0] + 100]
    return fn


def _run(it, limit=1000):
    """Every item of `it`: values, or ("error", message) for a raised OpError."""
    state = background.Cancellation()
    out = []
    for _ in range(limit):
        try:
            item = it.next(state)
        except errors.OpError as e:
            out.append(("error", e.message))
            continue
        if item is dv.END:
            return out
        out.append([np.asarray(v).tolist() for v in item])
    raise AssertionError("no end")


def _interleave_fn(element):
    n = int(element[0])
    return [dv.variant(ListValue([[np.int64(n * 10 + i)] for i in range(n)]))]


def _window_reduce(args):
    return [args[1]]  # the window itself


# (name, the dataset value)
VALUES = [
    ("parallel_map", lambda: ParallelMapValue(_range(40), _slow_square, 4, None)),
    ("parallel_map_one_call", lambda: ParallelMapValue(_range(10), _slow_square, 1, None)),
    ("parallel_map_errors", lambda: ParallelMapValue(_range(12), _failing_at({3, 7}), 3,
                                                     None)),
    ("interleave", lambda: InterleaveValue(_range(6, 1), _interleave_fn, 3, 2)),
    ("interleave_buffered", lambda: InterleaveValue(_range(6, 1), _interleave_fn, 2, 3, 3)),
    ("scan", lambda: _Value(_ScanIterator, _range(8), fn=lambda a: [a[0] + a[1], a[0] * 2],
                            state=[np.int64(0)])),
    ("group_by_window", lambda: _Value(
        _GroupByWindowIterator, _range(11), key_fn=lambda e: [e[0] % np.int64(3)],
        reduce_fn=_window_reduce, window_fn=lambda k: [np.int64(2)], op=None)),
    ("group_by_reducer", lambda: _Value(
        _GroupByReducerIterator, _range(10), key_fn=lambda e: [e[0] % np.int64(4)],
        init_fn=lambda k: [np.int64(0)], reduce_fn=lambda a: [a[0] + a[1]],
        finalize_fn=lambda s: [s[0] * 2], op=None)),
    ("directed", lambda: DirectedInterleaveValue(
        ListValue([[np.int64(i % 3)] for i in range(20)]),
        [_range(4), _range(3, 10), _range(5, 20)], None)),
    ("random", lambda: _Value(lambda src: src, RandomValue(3, 4))),
]


def _value_iterator(value):
    if isinstance(value, _Value) and value.iterator_cls.__name__ == "<lambda>":
        return value.source.iterator()
    return value.iterator()


def _take(it, n):
    state = background.Cancellation()
    out = []
    for _ in range(n):
        try:
            item = it.next(state)
        except errors.OpError as e:
            out.append(("error", e.message))
            continue
        out.append(item if item is dv.END else [np.asarray(v).tolist() for v in item])
    return out


@pytest.mark.parametrize("name,make", VALUES, ids=[v[0] for v in VALUES])
def test_same_elements_twice(name, make):
    """Two passes give the same elements (and parallel map keeps input order)."""
    value = make()
    first, second = _take(_value_iterator(value), 25), _take(_value_iterator(value), 25)
    assert first == second
    if name == "parallel_map":
        assert first == [[i * i] for i in range(25)]
    if name == "parallel_map_errors":
        assert first[3] == ("error", "bad 3") and first[7] == ("error", "bad 7")
        assert first[:3] == [[100], [101], [102]] and first[11] == [111]


@pytest.mark.parametrize("steps", [0, 3, 9])
@pytest.mark.parametrize("name,make", VALUES, ids=[v[0] for v in VALUES])
def test_save_restore(name, make, steps):
    """The rest of a pass after restore() into a fresh iterator equals the rest of an
    uninterrupted pass."""
    value = make()
    whole = _take(_value_iterator(value), 30)
    it = _value_iterator(value)
    head = _take(it, steps)
    saved = it.save()
    tail_original = _take(it, 30 - steps)
    it.close()
    fresh = _value_iterator(value)
    fresh.restore(saved)
    tail = _take(fresh, 30 - steps)
    fresh.close()
    assert head + tail == whole
    assert head + tail_original == whole


def _threads():
    return {t for t in threading.enumerate() if t.name.startswith("tf.data")}


@pytest.mark.parametrize("make", [
    lambda: ParallelMapValue(_range(1000), _slow_square, 8, None),
    lambda: InterleaveValue(_range(50, 10), _interleave_fn, 4, 2, 4),
], ids=["parallel_map", "parallel_interleave"])
def test_close_ends_threads(make):
    before = _threads()
    it = make().iterator()
    _take(it, 5)
    assert _threads() - before
    it.close()
    deadline = time.monotonic() + 5
    while _threads() - before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _threads() - before


def test_parallel_map_bounded_in_flight():
    """At most num_parallel_calls results are computed ahead of the consumer."""
    calls = []

    def fn(element):
        calls.append(int(element[0]))
        return [element[0]]

    it = ParallelMapValue(_range(100), fn, 3, None).iterator()
    state = background.Cancellation()
    assert it.next(state) == [0]
    time.sleep(0.2)
    assert len(calls) <= 1 + 3
    it.close()


def test_parallel_map_end_is_sticky_and_close_is_idempotent():
    it = ParallelMapValue(_range(2), _slow_square, 2, None).iterator()
    assert _run(it) == [[0], [1]]
    state = background.Cancellation()
    assert it.next(state) is dv.END
    it.close()
    it.close()


def test_parallel_map_consumer_wait_is_cancellable():
    """A consumer waiting on a slow function gives up when its step is cancelled."""
    release = threading.Event()

    def blocked(element):
        release.wait(5)
        return element

    it = ParallelMapValue(_range(3), blocked, 2, None).iterator()
    state = background.Cancellation()
    threading.Timer(0.1, state.cancel).start()
    with pytest.raises(errors.CancelledError):
        it.next(state)
    release.set()
    it.close()


def _run_many(it, n, limit=1000):
    """Every item of `it` read `n` at a time: values, or ("error", message) where a
    next_many raised (the elements it had gathered go with it, as a batch's do)."""
    state = background.Cancellation()
    out = []
    for _ in range(limit):
        try:
            got = it.next_many(state, n)
        except errors.OpError as e:
            out.append(("error", e.message))
            continue
        out.extend([np.asarray(v).tolist() for v in item] for item in got)
        if len(got) < n:
            return out
    raise AssertionError("no end")


@pytest.mark.parametrize("n", [1, 4, 64])
def test_parallel_map_next_many_in_order(n):
    it = ParallelMapValue(_range(300), _slow_square, 3, None).iterator()
    assert _run_many(it, n) == [[i * i] for i in range(300)]
    state = background.Cancellation()
    assert it.next_many(state, n) == [] and it.next(state) is dv.END
    it.close()


@pytest.mark.parametrize("n,want", [
    (1, [[100], [101], [102], ("error", "bad 3"), [104], [105], [106], ("error", "bad 7"),
         [108], [109]]),
    # A batch of 4 that meets an error raises it (its elements go with it, as next()'s
    # loop's do); the next batch starts after the error.
    (4, [("error", "bad 3"), ("error", "bad 7"), [108], [109]]),
])
def test_parallel_map_next_many_errors_in_place(n, want):
    it = ParallelMapValue(_range(10), _failing_at({3, 7}), 2, None).iterator()
    assert _run_many(it, n) == want
    it.close()


def test_parallel_map_next_many_bounded_in_flight():
    """Asked for n at a time, at most n results are computed ahead of the consumer."""
    calls = []

    def fn(element):
        calls.append(int(element[0]))
        return [element[0]]

    it = ParallelMapValue(_range(1000), fn, 2, None).iterator()
    state = background.Cancellation()
    assert [int(e[0]) for e in it.next_many(state, 10)] == list(range(10))
    time.sleep(0.2)
    assert len(calls) <= 10 + 10
    it.next(state)
    it.close()


def test_parallel_map_next_many_save_restore():
    value = ParallelMapValue(_range(40), _slow_square, 3, None)
    it = value.iterator()
    state = background.Cancellation()
    head = it.next_many(state, 7)
    saved = it.save()
    it.close()
    fresh = value.iterator()
    fresh.restore(saved)
    tail = fresh.next_many(state, 100)
    fresh.close()
    assert [int(e[0]) for e in head + tail] == [i * i for i in range(40)]
