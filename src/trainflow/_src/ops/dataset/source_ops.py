"""Datasets made from tensors and counters: TensorDataset (from_tensors),
TensorSliceDataset (from_tensor_slices), ListDataset (tf.data.experimental.from_list),
RangeDataset (range)."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import register_dataset


class _ListIterator(dv.ElementIterator):
    """Iterates `count` elements made by `element(i)`."""

    def __init__(self, count, element):
        self.index = 0
        self.count = count
        self.element = element

    def next(self, state):
        if self.index >= self.count:
            return dv.END
        self.index += 1
        return self.element(self.index - 1)

    def save(self):
        return {"index": self.index}

    def restore(self, saved):
        self.index = int(saved["index"])


class TensorValue(dv.DatasetValue):
    """One element: the components themselves."""

    def __init__(self, components):
        self.components = [np.asarray(c) for c in components]

    def iterator(self):
        return _ListIterator(1, lambda i: list(self.components))

    def cardinality(self):
        return 1


class SliceValue(dv.DatasetValue):
    """The slices of the components along their first dimension."""

    def __init__(self, components):
        self.components = [np.asarray(c) for c in components]
        sizes = {c.shape[0] if c.ndim else None for c in self.components}
        if None in sizes:
            raise errors.InvalidArgumentError(
                None, None, "Slicing a scalar is not supported: every component of "
                            "from_tensor_slices needs at least one dimension")
        if len(sizes) > 1:
            raise errors.InvalidArgumentError(
                None, None, "All components must have the same size in the 0th "
                            f"dimension, got sizes {sorted(sizes)}")
        self.count = sizes.pop() if sizes else 0

    def iterator(self):
        # c[i, ...] keeps a 0-d array (a string stays an object array, not bytes)
        return _ListIterator(self.count, lambda i: [c[i, ...] for c in self.components])

    def cardinality(self):
        return self.count


class ListValue(dv.DatasetValue):
    """Elements given one after another: `tensors` holds each element's `width`
    components in turn."""

    def __init__(self, tensors, width):
        self.components = [np.asarray(c) for c in tensors]
        if len(self.components) % width:
            raise errors.InvalidArgumentError(
                None, None, f"The number of tensors ({len(self.components)}) is not a "
                            f"multiple of the number of components of an element ({width})")
        self.width = width

    def iterator(self):
        w = self.width
        return _ListIterator(self.cardinality(),
                             lambda i: list(self.components[i * w:(i + 1) * w]))

    def cardinality(self):
        return len(self.components) // self.width


class RangeValue(dv.DatasetValue):
    """start, start + step, ... up to stop (excluded), as int64 (or output_types[0])."""

    def __init__(self, start, stop, step, dtype):
        if step == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        self.start, self.stop, self.step, self.dtype = start, stop, step, dtype

    def iterator(self):
        return _ListIterator(self.cardinality(),
                             lambda i: [np.asarray(self.start + i * self.step, self.dtype)])

    def cardinality(self):
        return len(range(self.start, self.stop, self.step))


def _tensor_dataset(components, *, Toutput_types, output_shapes):
    return TensorValue(components)


def _slice_dataset(components, *, Toutput_types, output_shapes):
    return SliceValue(components)


def _list_dataset(tensors, *, output_types):
    return ListValue(tensors, len(output_types))


def _range_dataset(start, stop, step, *, output_types):
    return RangeValue(dv.scalar_value(start, "start"), dv.scalar_value(stop, "stop"),
                      dv.scalar_value(step, "step"), output_types[0].as_numpy_dtype)


_TENSOR_ATTRS = ["Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1"]
register_dataset("TensorDataset", ["components: Toutput_types"], _TENSOR_ATTRS,
                 _tensor_dataset, element_attrs=False)
register_dataset("TensorSliceDataset", ["components: Toutput_types"],
                 _TENSOR_ATTRS + ["is_files: bool = false", "replicate_on_split: bool = false"],
                 _slice_dataset, element_attrs=False)
register_dataset("RangeDataset", ["start: int64", "stop: int64", "step: int64"],
                 ["replicate_on_split: bool = false"], _range_dataset)
register_dataset("ListDataset", ["tensors: Tinput_types"], ["Tinput_types: list(type) >= 1"],
                 _list_dataset)
