"""The host side of tf.data: what a dataset op's variant holds, and the iterators over it.

Protocol (every dataset kind implements it):
  * A `DatasetValue` is immutable once made; `iterator()` returns a fresh
    `ElementIterator` over it, and `cardinality()` is its element count
    (`INFINITE` or `UNKNOWN` where that is all there is to say).
  * `ElementIterator.next(state)` returns the next element as a list of component
    arrays, or `END` when there are no more. `state` is the RunState of the step asking
    (blocking waits honour its cancellation and deadline). Once `END` was returned it is
    returned again.
  * `next_many(state, n)` returns a list of up to `n` elements, fewer only at the end.
  * `save()` returns the iterator's position as plain data (dicts, lists, numbers, bytes,
    NumPy arrays); `restore(saved)` puts a fresh iterator over an equal dataset there.
  * `close()` stops what the iterator started (threads, files) and closes its inputs;
    it is idempotent and never blocks for long.
An iterator is used by one thread at a time: the IteratorResource serializes callers.
"""
import abc

import numpy as np

INFINITE = -1
UNKNOWN = -2


class _End:
    __slots__ = ()

    def __repr__(self):
        return "END"


END = _End()


class DatasetValue(abc.ABC):
    """A dataset made by a dataset op: a recipe for iterators."""

    @abc.abstractmethod
    def iterator(self):
        """A new ElementIterator at the first element."""

    def cardinality(self):
        """The number of elements, INFINITE, or UNKNOWN."""
        return UNKNOWN

    def inputs(self):
        """The datasets this one reads (for cardinality rules and debugging)."""
        return ()


class ElementIterator(abc.ABC):
    """The position in one pass over a dataset."""

    @abc.abstractmethod
    def next(self, state):
        """The next element (a list of arrays), or END."""

    def next_many(self, state, n):
        """Up to `n` next elements, fewer only at the end (readers override it to read in
        bulk; batch asks for its batch at once)."""
        out = []
        while len(out) < n:
            element = self.next(state)
            if element is END:
                break
            out.append(element)
        return out

    def save(self):
        return {}

    def restore(self, saved):
        if saved:
            raise ValueError(f"{type(self).__name__} holds no state to restore")

    def close(self):  # noqa: B027 - most iterators hold nothing to release
        """Releases what the iterator holds (threads, files, inputs)."""


class ChildIterator(ElementIterator):
    """An iterator that reads one input iterator; closes it when closed."""

    def __init__(self, source):
        self.source = source

    def close(self):
        self.source.close()


def as_dataset(value):
    """The DatasetValue of a variant input (a 0-d object array or the value itself)."""
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        value = value[()]
    if not isinstance(value, DatasetValue):
        raise TypeError(f"expected a dataset variant, got {type(value).__name__}")
    return value


def variant(obj):
    """A read-only 0-d object array holding `obj` (how variant values travel)."""
    out = np.empty((), dtype=object)
    out[()] = obj
    out.flags.writeable = False
    return out


def scalar_value(value, what):
    """A Python int from a scalar input."""
    arr = np.asarray(value)
    if arr.ndim != 0:
        raise ValueError(f"{what} must be a scalar, got shape {arr.shape}")
    return int(arr)
