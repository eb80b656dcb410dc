"""Padded batches: PaddedBatchDataset and PaddedBatchDatasetV2 (padded_batch).

Each component of a batch is padded to its padded shape (a -1 dimension pads to the
longest element of the batch) with the component's padding value, as TF's kernel does,
with its errors.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.batch_ops import batch_cardinality
from trainflow._src.ops.dataset.dataset_op import register_dataset


class PaddedBatchValue(dv.DatasetValue):
    """Consecutive elements of `source`, `batch_size` at a time, padded and stacked."""

    def __init__(self, source, batch_size, padded_shapes, padding_values, drop_remainder, op):
        if batch_size <= 0:
            raise errors.InvalidArgumentError(None, op, "Batch size must be greater than zero.")
        for value in padding_values:
            if np.ndim(value) != 0:
                raise errors.InvalidArgumentError(None, op,
                                                  "All padding values must be scalars.")
        for shape in padded_shapes:
            if np.ndim(shape) != 1:
                raise errors.InvalidArgumentError(
                    None, op, f"All padded shapes must be vectors, but got a shape of rank "
                              f"{np.ndim(shape)}")
        self.source, self.batch_size, self.drop_remainder, self.op = \
            source, batch_size, drop_remainder, op
        self.padded_shapes = [[int(d) for d in s] for s in padded_shapes]
        self.padding_values = [np.asarray(v) for v in padding_values]

    def iterator(self):
        return _PaddedBatchIterator(self.source.iterator(), self)

    def cardinality(self):
        return batch_cardinality(self.source.cardinality(), self.batch_size,
                                 self.drop_remainder)

    def inputs(self):
        return (self.source,)

    def pad(self, elements):
        """The batch of `elements`, one padded array per component."""
        out = []
        for k, (padded, fill) in enumerate(zip(self.padded_shapes, self.padding_values)):
            shapes = [np.shape(e[k]) for e in elements]
            for shape in shapes:
                if len(shape) != len(padded):
                    raise errors.InvalidArgumentError(
                        None, self.op, f"All elements in a batch must have the same rank as "
                                       f"the padded shape for component{k}: expected rank "
                                       f"{len(padded)} but got element with rank {len(shape)}")
            dims = [d if d >= 0 else max((s[i] for s in shapes), default=0)
                    for i, d in enumerate(padded)]
            batch = np.full([len(elements)] + dims, fill, dtype=np.asarray(elements[0][k]).dtype)
            for n, (element, shape) in enumerate(zip(elements, shapes)):
                if any(s > d for s, d in zip(shape, dims)):
                    raise errors.DataLossError(
                        None, self.op, "Attempted to pad to a smaller size than the input "
                                       "element.")
                batch[(n,) + tuple(slice(0, s) for s in shape)] = element[k]
            out.append(batch)
        return out


class _PaddedBatchIterator(dv.ChildIterator):
    def __init__(self, source, spec):
        super().__init__(source)
        self.spec = spec
        self.done = False

    def next(self, state):
        spec = self.spec
        elements = []
        while not self.done and len(elements) < spec.batch_size:
            element = self.source.next(state)
            if element is dv.END:
                self.done = True
            else:
                elements.append(element)
        if not elements or (spec.drop_remainder and len(elements) < spec.batch_size):
            return dv.END
        return spec.pad(elements)

    def save(self):
        return {"done": self.done, "source": self.source.save()}

    def restore(self, saved):
        self.done = saved["done"]
        self.source.restore(saved["source"])


def _padded_batch(input_dataset, batch_size, padded_shapes, padding_values, *, ctx):
    return PaddedBatchValue(dv.as_dataset(input_dataset),
                            dv.scalar_value(batch_size, "batch_size"), padded_shapes,
                            padding_values, False, ctx.op)


def _padded_batch_v2(input_dataset, batch_size, padded_shapes, padding_values,
                     drop_remainder, *, ctx):
    return PaddedBatchValue(dv.as_dataset(input_dataset),
                            dv.scalar_value(batch_size, "batch_size"), padded_shapes,
                            padding_values, bool(np.asarray(drop_remainder)), ctx.op)


_INPUTS = ["input_dataset: variant", "batch_size: int64", "padded_shapes: N * int64",
           "padding_values: Toutput_types"]
_ATTRS = ["Toutput_types: list(type) >= 1", "output_shapes: list(shape) >= 1",
          "N: int >= 1"]
register_dataset("PaddedBatchDataset", _INPUTS, _ATTRS, _padded_batch, element_attrs=False)
register_dataset("PaddedBatchDatasetV2", _INPUTS + ["drop_remainder: bool"],
                 ["parallel_copy: bool = false"] + _ATTRS, _padded_batch_v2,
                 element_attrs=False)
