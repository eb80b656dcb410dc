"""Datasets that call a function per element: MapDataset (map), FilterDataset (filter),
FlatMapDataset (flat_map). ParallelMapDatasetV2 lives in parallel_map_ops."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_function import cached_function
from trainflow._src.ops.dataset.dataset_op import register_dataset

FUNCTION_ATTRS = ["Targuments: list(type) >= 0"]


class MapValue(dv.DatasetValue):
    """`fn` applied to each element of `source`."""

    def __init__(self, source, fn):
        self.source, self.fn = source, fn

    def iterator(self):
        return _MapIterator(self.source.iterator(), self.fn)

    def cardinality(self):
        return self.source.cardinality()

    def inputs(self):
        return (self.source,)


class _MapIterator(dv.ChildIterator):
    def __init__(self, source, fn):
        super().__init__(source)
        self.fn = fn

    def next(self, state):
        element = self.source.next(state)
        if element is dv.END:
            return dv.END
        return self.fn(element)

    def save(self):
        return {"source": self.source.save()}

    def restore(self, saved):
        self.source.restore(saved["source"])


def predicate_true(fn, element, op):
    """Whether filter's predicate `fn` keeps `element` (it must return a scalar bool)."""
    out = fn(element)
    value = np.asarray(out[0]) if len(out) == 1 else None
    if value is None or value.shape != () or value.dtype != np.bool_:
        raise errors.InvalidArgumentError(
            None, op, "Filter predicate `predicate` must return a scalar boolean tensor.")
    return bool(value)


class FilterValue(dv.DatasetValue):
    """The elements of `source` that `predicate` keeps."""

    def __init__(self, source, fn, op):
        self.source, self.fn, self.op = source, fn, op

    def iterator(self):
        return _FilterIterator(self.source.iterator(), self.fn, self.op)

    def inputs(self):
        return (self.source,)


class _FilterIterator(dv.ChildIterator):
    def __init__(self, source, fn, op):
        super().__init__(source)
        self.fn, self.op = fn, op

    def next(self, state):
        while True:
            element = self.source.next(state)
            if element is dv.END or predicate_true(self.fn, element, self.op):
                return element

    def save(self):
        return {"source": self.source.save()}

    def restore(self, saved):
        self.source.restore(saved["source"])


class FlatMapValue(dv.DatasetValue):
    """The concatenation of the datasets `fn` makes of each element of `source`."""

    def __init__(self, source, fn):
        self.source, self.fn = source, fn

    def iterator(self):
        return _FlatMapIterator(self.source.iterator(), self.fn)

    def inputs(self):
        return (self.source,)


class _FlatMapIterator(dv.ChildIterator):
    def __init__(self, source, fn):
        super().__init__(source)
        self.fn = fn
        self.current = None  # the iterator of the current element's dataset
        self.element = None  # the element that made it (to rebuild it on restore)
        self.done = False

    def next(self, state):
        while not self.done:
            if self.current is None:
                element = self.source.next(state)
                if element is dv.END:
                    self.done = True
                    break
                self.element = element
                self.current = dv.as_dataset(self.fn(element)[0]).iterator()
            out = self.current.next(state)
            if out is not dv.END:
                return out
            self.current.close()
            self.current = None
        return dv.END

    def next_many(self, state, n):
        out = []
        while len(out) < n and not self.done:
            if self.current is None:
                element = self.next(state)  # opens the next element's dataset
                if element is dv.END:
                    break
                out.append(element)
                continue
            got = self.current.next_many(state, n - len(out))
            out.extend(got)
            if len(out) < n:  # the current dataset ended
                self.current.close()
                self.current = None
        return out

    def save(self):
        return {"source": self.source.save(), "done": self.done,
                "element": self.element if self.current is not None else None,
                "current": self.current.save() if self.current is not None else None}

    def restore(self, saved):
        self.source.restore(saved["source"])
        self.done = saved["done"]
        if saved["element"] is not None:
            self.element = saved["element"]
            self.current = dv.as_dataset(self.fn(self.element)[0]).iterator()
            self.current.restore(saved["current"])

    def close(self):
        if self.current is not None:
            self.current.close()
        super().close()


def _map(input_dataset, other_arguments, *, ctx):
    return MapValue(dv.as_dataset(input_dataset), cached_function(ctx, "f", other_arguments))


def _filter(input_dataset, other_arguments, *, ctx):
    return FilterValue(dv.as_dataset(input_dataset),
                       cached_function(ctx, "predicate", other_arguments), ctx.op)


def _flat_map(input_dataset, other_arguments, *, ctx):
    return FlatMapValue(dv.as_dataset(input_dataset),
                        cached_function(ctx, "f", other_arguments))


_INPUTS = ["input_dataset: variant", "other_arguments: Targuments"]
register_dataset("MapDataset", _INPUTS,
                 ["f: func"] + FUNCTION_ATTRS + ["use_inter_op_parallelism: bool = true",
                                                 "preserve_cardinality: bool = false",
                                                 "force_synchronous: bool = false"], _map)
register_dataset("FilterDataset", _INPUTS, ["predicate: func"] + FUNCTION_ATTRS, _filter)
register_dataset("FlatMapDataset", _INPUTS, ["f: func"] + FUNCTION_ATTRS, _flat_map)
