"""Datasets that group elements: BatchDatasetV2 (batch). Padded batches are in
padded_batch_ops."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import register_dataset


def stack_components(elements, op=None):
    """One array per component: the components of `elements` stacked on a new axis.

    Raises:
      InvalidArgumentError: if some component's shape differs between elements.
    """
    out = []
    for k, first in enumerate(elements[0]):
        shape = np.shape(first)
        if shape == () and isinstance(first, np.ndarray):
            column = _stack_scalars(elements, k, first.dtype)
            if column is not None:
                out.append(column)
                continue
        for n, element in enumerate(elements[1:], 1):
            if np.shape(element[k]) != shape:
                raise errors.InvalidArgumentError(
                    None, op, f"Cannot batch tensors with different shapes in component {k}. "
                              f"First element had shape {list(shape)} and element {n} had "
                              f"shape {list(np.shape(element[k]))}.")
        out.append(np.stack([np.asarray(e[k]) for e in elements]))
    return out


def _stack_scalars(elements, k, dtype):
    """Component `k` of `elements` as a vector when every one is a 0-d array of `dtype`
    (None otherwise: the general path checks and words the error)."""
    items = []
    append = items.append
    ndarray = np.ndarray
    for e in elements:
        value = e[k]
        if type(value) is not ndarray or value.shape or \
                (value.dtype is not dtype and value.dtype != dtype):
            return None
        append(value[()])
    out = np.empty(len(items), dtype=dtype)
    out[:] = items
    return out


def batch_cardinality(n, batch_size, drop_remainder):
    if n < 0:
        return n
    return n // batch_size if drop_remainder else -(-n // batch_size)


class BatchValue(dv.DatasetValue):
    """Consecutive elements of `source` stacked `batch_size` at a time."""

    def __init__(self, source, batch_size, drop_remainder, op):
        if batch_size <= 0:
            raise errors.InvalidArgumentError(None, op, "Batch size must be greater than zero.")
        self.source, self.batch_size, self.drop_remainder, self.op = \
            source, batch_size, drop_remainder, op

    def iterator(self):
        return _BatchIterator(self.source.iterator(), self)

    def cardinality(self):
        return batch_cardinality(self.source.cardinality(), self.batch_size,
                                 self.drop_remainder)

    def inputs(self):
        return (self.source,)


class _BatchIterator(dv.ChildIterator):
    def __init__(self, source, spec):
        super().__init__(source)
        self.spec = spec
        self.done = False

    def next(self, state):
        spec = self.spec
        elements = []
        if not self.done:
            stacked = getattr(self.source, "next_stacked", None)
            column = None if stacked is None else stacked(state, spec.batch_size)
            if column is not None:  # a reader's records: one vector, not one per record
                return self._stacked(column)
            elements = self.source.next_many(state, spec.batch_size)
            self.done = len(elements) < spec.batch_size
        if not elements or (spec.drop_remainder and len(elements) < spec.batch_size):
            return dv.END
        return stack_components(elements, spec.op)

    def _stacked(self, components):
        n = len(components[0])
        self.done = n < self.spec.batch_size
        if not n or (self.spec.drop_remainder and self.done):
            return dv.END
        return components

    def save(self):
        return {"done": self.done, "source": self.source.save()}

    def restore(self, saved):
        self.done = saved["done"]
        self.source.restore(saved["source"])


def _batch(input_dataset, batch_size, drop_remainder, *, ctx):
    return BatchValue(dv.as_dataset(input_dataset), dv.scalar_value(batch_size, "batch_size"),
                      bool(np.asarray(drop_remainder)), ctx.op)


register_dataset("BatchDatasetV2",
                 ["input_dataset: variant", "batch_size: int64", "drop_remainder: bool"],
                 ["parallel_copy: bool = false"], _batch)
