"""Datasets that cut the element stream differently: WindowDataset (window: datasets of
datasets), UnbatchDataset (unbatch) and ShardDataset (shard)."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import register_dataset


class ListValue(dv.DatasetValue):
    """A dataset of the given elements (lists of component arrays)."""

    def __init__(self, elements):
        self.elements = list(elements)

    def iterator(self):
        return _ListIterator(self.elements)

    def cardinality(self):
        return len(self.elements)


class _ListIterator(dv.ElementIterator):
    def __init__(self, elements):
        self.elements, self.index = elements, 0

    def next(self, state):
        if self.index >= len(self.elements):
            return dv.END
        self.index += 1
        return list(self.elements[self.index - 1])

    def save(self):
        return {"index": self.index}

    def restore(self, saved):
        self.index = saved["index"]


class _Failed:
    """An input element whose making raised `error`."""

    def __init__(self, error):
        self.error = error


class WindowValue(dv.DatasetValue):
    """Windows of `size` elements of `source` (every `stride`-th), one per `shift`
    elements; each window element holds one dataset per component."""

    def __init__(self, source, size, shift, stride, drop_remainder, op):
        for what, value in (("size", size), ("shift", shift), ("stride", stride)):
            if value <= 0:
                raise errors.InvalidArgumentError(
                    None, op, f"Window {what} must be greater than zero, but got {value}.")
        self.source, self.size, self.shift, self.stride = source, size, shift, stride
        self.drop_remainder = drop_remainder
        self.span = (size - 1) * stride + 1

    def iterator(self):
        return _WindowIterator(self.source.iterator(), self)

    def cardinality(self):
        n = self.source.cardinality()
        if n < 0:
            return n
        if self.drop_remainder:
            return 0 if n < self.span else (n - self.span) // self.shift + 1
        return -(-n // self.shift)

    def inputs(self):
        return (self.source,)


class _WindowIterator(dv.ChildIterator):
    def __init__(self, source, spec):
        super().__init__(source)
        self.spec = spec
        self.buffer = []
        self.to_skip = 0  # input elements to drop before the next window (shift > span)
        self.done = False

    def _read(self, state):
        """The next input element, END, or the error making it raised (kept in the buffer:
        it is raised only if the element is part of a window, as in TF)."""
        try:
            element = self.source.next(state)
        except errors.OutOfRangeError:
            raise
        except errors.OpError as e:
            return _Failed(e)
        if element is dv.END:
            self.done = True
        return element

    def next(self, state):
        spec = self.spec
        while self.to_skip and not self.done:
            if self._read(state) is not dv.END:
                self.to_skip -= 1
        while not self.done and len(self.buffer) < spec.span:
            element = self._read(state)
            if element is not dv.END:
                self.buffer.append(element)
        if not self.buffer or (spec.drop_remainder and len(self.buffer) < spec.span):
            return dv.END
        window = self.buffer[:spec.span:spec.stride]
        for element in window:
            if isinstance(element, _Failed):
                self.buffer = self.buffer[spec.shift:]
                raise element.error
        self.to_skip = max(0, spec.shift - len(self.buffer))
        self.buffer = self.buffer[spec.shift:]
        n_components = len(window[0])
        return [dv.variant(ListValue([[e[k]] for e in window])) for k in range(n_components)]

    def save(self):
        if any(isinstance(e, _Failed) for e in self.buffer):
            raise errors.UnimplementedError(None, None, "Saving a window iterator that holds a "
                                                        "failed element is not supported")
        return {"buffer": [list(e) for e in self.buffer], "to_skip": self.to_skip,
                "done": self.done, "source": self.source.save()}

    def restore(self, saved):
        self.buffer = [list(e) for e in saved["buffer"]]
        self.to_skip, self.done = saved["to_skip"], saved["done"]
        self.source.restore(saved["source"])


class UnbatchValue(dv.DatasetValue):
    """The slices of each element of `source` along its first dimension."""

    def __init__(self, source, op):
        self.source, self.op = source, op

    def iterator(self):
        return _UnbatchIterator(self.source.iterator(), self.op)

    def inputs(self):
        return (self.source,)


class _UnbatchIterator(dv.ChildIterator):
    def __init__(self, source, op):
        super().__init__(source)
        self.op = op
        self.current, self.index = None, 0

    def _split(self, element):
        sizes = []
        for value in element:
            if np.ndim(value) == 0:
                raise errors.InvalidArgumentError(
                    None, self.op, "Input element must have a non-scalar value in each "
                                   "component.")
            sizes.append(np.shape(value)[0])
        for k, size in enumerate(sizes[1:], 1):
            if size != sizes[0]:
                raise errors.InvalidArgumentError(
                    None, self.op, f"Input element must have the same batch size in each "
                                   f"component. Component 0 had size {sizes[0]} but component "
                                   f"{k} had size {size}.")
        return [np.asarray(v) for v in element], sizes[0]

    def next(self, state):
        while self.current is None or self.index >= self.size:
            element = self.source.next(state)
            if element is dv.END:
                return dv.END
            self.current, self.size = self._split(element)
            self.index = 0
        self.index += 1
        return [c[self.index - 1, ...] for c in self.current]

    def save(self):
        return {"current": self.current, "index": self.index,
                "size": getattr(self, "size", 0), "source": self.source.save()}

    def restore(self, saved):
        self.current, self.index, self.size = saved["current"], saved["index"], saved["size"]
        self.source.restore(saved["source"])


class ShardValue(dv.DatasetValue):
    """The elements of `source` whose position is `index` modulo `num_shards`."""

    def __init__(self, source, num_shards, index, op):
        if num_shards <= 0:
            raise errors.InvalidArgumentError(
                None, op, f"Number of shards must be greater than zero (currently "
                          f"num_shards = {num_shards}).")
        if not 0 <= index < num_shards:
            raise errors.InvalidArgumentError(
                None, op, f"Index must be between 0 and {num_shards - 1} (currently "
                          f"index = {index}).")
        self.source, self.num_shards, self.index = source, num_shards, index

    def iterator(self):
        return _ShardIterator(self.source.iterator(), self.num_shards, self.index)

    def cardinality(self):
        n = self.source.cardinality()
        if n < 0:
            return n
        return n // self.num_shards + (1 if n % self.num_shards > self.index else 0)

    def inputs(self):
        return (self.source,)


class _ShardIterator(dv.ChildIterator):
    def __init__(self, source, num_shards, index):
        super().__init__(source)
        self.num_shards, self.index = num_shards, index
        self.position = 0  # elements of the input read so far

    def next(self, state):
        while True:
            element = self.source.next(state)
            if element is dv.END:
                return dv.END
            self.position += 1
            if (self.position - 1) % self.num_shards == self.index:
                return element

    def save(self):
        return {"position": self.position, "source": self.source.save()}

    def restore(self, saved):
        self.position = saved["position"]
        self.source.restore(saved["source"])


def _window(input_dataset, size, shift, stride, drop_remainder, *, ctx):
    return WindowValue(dv.as_dataset(input_dataset), dv.scalar_value(size, "size"),
                       dv.scalar_value(shift, "shift"), dv.scalar_value(stride, "stride"),
                       bool(np.asarray(drop_remainder)), ctx.op)


def _unbatch(input_dataset, *, ctx):
    return UnbatchValue(dv.as_dataset(input_dataset), ctx.op)


def _shard(input_dataset, num_shards, index, *, ctx):
    return ShardValue(dv.as_dataset(input_dataset), dv.scalar_value(num_shards, "num_shards"),
                      dv.scalar_value(index, "index"), ctx.op)


register_dataset("WindowDataset", ["input_dataset: variant", "size: int64", "shift: int64",
                                   "stride: int64", "drop_remainder: bool"], [], _window)
register_dataset("UnbatchDataset", ["input_dataset: variant"], [], _unbatch)
register_dataset("ShardDataset", ["input_dataset: variant", "num_shards: int64",
                                  "index: int64"], ["require_non_empty: bool = false"], _shard)
