"""The shuffle iterator's next_many (what batch asks for) gives exactly what as many
next() calls give: the same refills in the same order and the same draws."""
import numpy as np
import pytest

from trainflow._src.ops.dataset import background
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.shuffle_ops import ShuffleValue
from trainflow._src.ops.dataset.source_ops import RangeValue


def _value(n, buffer_size, reshuffle=True):
    return ShuffleValue(RangeValue(0, n, 1, np.int64), buffer_size, 7, 3, reshuffle, None)


def _one_by_one(it, state):
    out = []
    while (element := it.next(state)) is not dv.END:
        out.append(int(element[0]))
    return out


@pytest.mark.parametrize("n,buffer_size,sizes", [
    (50, 8, [5]), (50, 8, [1, 3, 64]), (50, 100, [7]), (9, 4, [2, 5]), (0, 3, [4]),
    (64, 64, [64]),
])
def test_next_many_equals_next(n, buffer_size, sizes):
    state = background.Cancellation()
    want = _one_by_one(_value(n, buffer_size).iterator(), state)
    assert sorted(want) == list(range(n))
    it = _value(n, buffer_size).iterator()
    got, i = [], 0
    while True:
        k = sizes[i % len(sizes)]
        i += 1
        many = it.next_many(state, k)
        got.extend(int(e[0]) for e in many)
        if len(many) < k:
            break
        element = it.next(state)  # mixed with next()
        if element is dv.END:
            break
        got.append(int(element[0]))
    assert got == want
    assert it.next_many(state, 3) == [] and it.next(state) is dv.END


def test_next_many_save_restore():
    state = background.Cancellation()
    value = _value(40, 6, reshuffle=False)
    want = _one_by_one(value.iterator(), state)
    it = value.iterator()
    head = [int(e[0]) for e in it.next_many(state, 11)]
    saved = it.save()
    fresh = value.iterator()
    fresh.restore(saved)
    tail = _one_by_one(fresh, state)
    assert head + tail == want
