"""tf.data.experimental's element filters: TakeWhileDataset (take_while),
IgnoreErrorsDataset (ignore_errors), UniqueDataset (unique) and AssertCardinalityDataset
(assert_cardinality)."""
import numpy as np

from trainflow._src import tf_logging
from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_function import cached_function
from trainflow._src.ops.dataset.dataset_op import register_dataset
from trainflow._src.ops.dataset.map_ops import FUNCTION_ATTRS, predicate_true


class TakeWhileValue(dv.DatasetValue):
    """The elements of `source` up to the first one `predicate` rejects."""

    def __init__(self, source, fn, op):
        self.source, self.fn, self.op = source, fn, op

    def iterator(self):
        return _TakeWhileIterator(self.source.iterator(), self.fn, self.op)

    def inputs(self):
        return (self.source,)


class _TakeWhileIterator(dv.ChildIterator):
    def __init__(self, source, fn, op):
        super().__init__(source)
        self.fn, self.op, self.done = fn, op, False

    def next(self, state):
        if self.done:
            return dv.END
        element = self.source.next(state)
        if element is dv.END or not predicate_true(self.fn, element, self.op):
            self.done = True
            return dv.END
        return element

    def save(self):
        return {"done": self.done, "source": self.source.save()}

    def restore(self, saved):
        self.done = saved["done"]
        self.source.restore(saved["source"])


class IgnoreErrorsValue(dv.DatasetValue):
    """The elements of `source`, skipping those whose making raised an error (logged as
    a warning when `log_warning`)."""

    def __init__(self, source, log_warning=False):
        self.source, self.log_warning = source, log_warning

    def iterator(self):
        return _IgnoreErrorsIterator(self.source.iterator(), self.log_warning)

    def inputs(self):
        return (self.source,)


class _IgnoreErrorsIterator(dv.ChildIterator):
    def __init__(self, source, log_warning):
        super().__init__(source)
        self.log_warning = log_warning

    def next(self, state):
        while True:
            try:
                return self.source.next(state)
            except errors.OutOfRangeError:
                raise
            except errors.OpError as e:
                if self.log_warning:
                    tf_logging.warning(f"Error raised with error message {e.message}")

    def save(self):
        return {"source": self.source.save()}

    def restore(self, saved):
        self.source.restore(saved["source"])


class UniqueValue(dv.DatasetValue):
    """The elements of `source` (one component) not seen before."""

    def __init__(self, source):
        self.source = source

    def iterator(self):
        return _UniqueIterator(self.source.iterator())

    def inputs(self):
        return (self.source,)


def _hashable(value):
    value = np.asarray(value)
    return (value.shape, tuple(value.reshape(-1).tolist()))


class _UniqueIterator(dv.ChildIterator):
    def __init__(self, source):
        super().__init__(source)
        self.seen = set()

    def next(self, state):
        while True:
            element = self.source.next(state)
            if element is dv.END:
                return dv.END
            key = _hashable(element[0])
            if key not in self.seen:
                self.seen.add(key)
                return element

    def save(self):
        return {"seen": [list(k) for k in self.seen], "source": self.source.save()}

    def restore(self, saved):
        self.seen = {(tuple(shape), tuple(values)) for shape, values in saved["seen"]}
        self.source.restore(saved["source"])


class AssertCardinalityValue(dv.DatasetValue):
    """The elements of `source`, FailedPreconditionError once there are more or fewer
    than `expected` (-1: infinitely many)."""

    def __init__(self, source, expected):
        self.source, self.expected = source, expected

    def iterator(self):
        return _AssertCardinalityIterator(self.source.iterator(), self.expected)

    def cardinality(self):
        return self.expected

    def inputs(self):
        return (self.source,)


def _elements(n):
    if n == dv.INFINITE:
        return "an infinite number of elements"
    return f"{n} element" + ("" if n == 1 else "s")


class _AssertCardinalityIterator(dv.ChildIterator):
    def __init__(self, source, expected):
        super().__init__(source)
        self.expected, self.count = expected, 0

    def next(self, state):
        element = self.source.next(state)
        if element is dv.END:
            if self.count != self.expected:
                raise errors.FailedPreconditionError(
                    None, None, f"Input dataset was expected to contain "
                                f"{_elements(self.expected)} but contained only "
                                f"{_elements(self.count)}.")
            return dv.END
        self.count += 1
        if self.expected != dv.INFINITE and self.count > self.expected:
            raise errors.FailedPreconditionError(
                None, None, f"Input dataset was expected to contain "
                            f"{_elements(self.expected)} but contained at least "
                            f"{_elements(self.count)}.")
        return element

    def save(self):
        return {"count": self.count, "source": self.source.save()}

    def restore(self, saved):
        self.count = int(saved["count"])
        self.source.restore(saved["source"])


def _take_while(input_dataset, other_arguments, *, ctx):
    return TakeWhileValue(dv.as_dataset(input_dataset),
                          cached_function(ctx, "predicate", other_arguments), ctx.op)


def _ignore_errors(input_dataset, *, log_warning):
    return IgnoreErrorsValue(dv.as_dataset(input_dataset), bool(log_warning))


def _unique(input_dataset):
    return UniqueValue(dv.as_dataset(input_dataset))


register_dataset("TakeWhileDataset", ["input_dataset: variant", "other_arguments: Targuments"],
                 ["predicate: func"] + FUNCTION_ATTRS, _take_while)
register_dataset("IgnoreErrorsDataset", ["input_dataset: variant"],
                 ["log_warning: bool = false"], _ignore_errors, metadata=False)
register_dataset("UniqueDataset", ["input_dataset: variant"], [], _unique)


def _assert_cardinality(input_dataset, cardinality):
    return AssertCardinalityValue(dv.as_dataset(input_dataset),
                                  dv.scalar_value(cardinality, "cardinality"))


register_dataset("AssertCardinalityDataset", ["input_dataset: variant", "cardinality: int64"],
                 [], _assert_cardinality, metadata=False)
