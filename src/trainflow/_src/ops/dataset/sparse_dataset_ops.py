"""Datasets of sparse data: SparseTensorSliceDataset (from_sparse_tensor_slices: the rows
of a SparseTensor as (indices, values, dense_shape)) and DenseToSparseBatchDataset
(tf.data.experimental.dense_to_sparse_batch)."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.batch_ops import batch_cardinality
from trainflow._src.ops.dataset.dataset_op import register_dataset, scalar_shape


class SparseSliceValue(dv.DatasetValue):
    """Row i of the sparse tensor: its indices (without the first column), values and
    dense shape (without the first dimension)."""

    def __init__(self, indices, values, dense_shape):
        indices = np.asarray(indices, np.int64)
        dense_shape = np.asarray(dense_shape, np.int64)
        if indices.ndim != 2 or dense_shape.ndim != 1 or \
                indices.shape[1] != dense_shape.shape[0]:
            raise errors.InvalidArgumentError(
                None, None, "Input indices should be a matrix and its second dimension "
                            "should equal the rank of dense_shape")
        if dense_shape.size < 1:
            raise errors.InvalidArgumentError(
                None, None, "Input tensor should have rank >= 1")
        if len(indices) and np.any(np.diff(indices[:, 0]) < 0):
            raise errors.UnimplementedError(
                None, None, "The SparseTensor must be ordered in the batch dimension; "
                            "handling arbitrarily ordered input is not currently supported.")
        self.indices, self.values, self.dense_shape = indices, np.asarray(values), dense_shape
        self.count = int(dense_shape[0])

    def iterator(self):
        return _SparseSliceIterator(self)

    def cardinality(self):
        return self.count


class _SparseSliceIterator(dv.ElementIterator):
    def __init__(self, spec):
        self.spec, self.row = spec, 0

    def next(self, state):
        spec = self.spec
        if self.row >= spec.count:
            return dv.END
        keep = spec.indices[:, 0] == self.row
        self.row += 1
        return [spec.indices[keep, 1:], spec.values[keep], spec.dense_shape[1:]]

    def save(self):
        return {"row": self.row}

    def restore(self, saved):
        self.row = saved["row"]


class DenseToSparseBatchValue(dv.DatasetValue):
    """Batches of `batch_size` elements of `source` (one component) as a SparseTensor of
    dense shape [batch, *row_shape] (a -1 row dimension: the batch's largest)."""

    def __init__(self, source, batch_size, row_shape, op):
        if batch_size <= 0:
            raise errors.InvalidArgumentError(None, op, "Batch size must be greater than zero.")
        self.source, self.batch_size, self.op = source, batch_size, op
        self.row_shape = [int(d) for d in np.asarray(row_shape).reshape(-1)]

    def iterator(self):
        return _DenseToSparseIterator(self.source.iterator(), self)

    def cardinality(self):
        return batch_cardinality(self.source.cardinality(), self.batch_size, False)

    def inputs(self):
        return (self.source,)

    def make(self, elements):
        values = [np.asarray(e[0]) for e in elements]
        shape = list(self.row_shape)
        for v in values:
            if v.ndim != len(shape):
                raise errors.InvalidArgumentError(
                    None, self.op, f"Input element had shape ({', '.join(map(str, v.shape))})"
                                   f" that is incompatible with the row shape "
                                   f"({', '.join(map(str, self.row_shape))}).")
        for i, d in enumerate(shape):
            if d == -1:
                shape[i] = max((v.shape[i] for v in values), default=0)
        indices, flat = [], []
        for n, v in enumerate(values):
            if any(s > d for s, d in zip(v.shape, shape)):
                raise errors.DataLossError(
                    None, self.op, f"Input element had shape ({', '.join(map(str, v.shape))})"
                                   f" that is larger than the row shape "
                                   f"({', '.join(map(str, self.row_shape))}).")
            for index in np.ndindex(*v.shape):
                indices.append((n,) + index)
            flat.append(v.reshape(-1))
        out = np.empty(3, dtype=object)
        out[0] = np.asarray(indices, np.int64).reshape(-1, len(shape) + 1)
        out[1] = np.concatenate(flat) if flat else np.zeros(0, values[0].dtype)
        out[2] = np.asarray([len(values)] + shape, np.int64)
        return [out]


class _DenseToSparseIterator(dv.ChildIterator):
    def __init__(self, source, spec):
        super().__init__(source)
        self.spec, self.done = spec, False

    def next(self, state):
        elements = []
        while not self.done and len(elements) < self.spec.batch_size:
            element = self.source.next(state)
            if element is dv.END:
                self.done = True
            else:
                elements.append(element)
        return self.spec.make(elements) if elements else dv.END

    def save(self):
        return {"done": self.done, "source": self.source.save()}

    def restore(self, saved):
        self.done = saved["done"]
        self.source.restore(saved["source"])


def _sparse_slices(indices, values, dense_shape, *, Tvalues):  # noqa: N803
    return dv.variant(SparseSliceValue(indices, values, dense_shape))


def _dense_to_sparse_batch(input_dataset, batch_size, row_shape, *, ctx):
    return DenseToSparseBatchValue(dv.as_dataset(input_dataset),
                                   dv.scalar_value(batch_size, "batch_size"), row_shape, ctx.op)


register_op("SparseTensorSliceDataset",
            inputs=["indices: int64", "values: Tvalues", "dense_shape: int64"],
            outputs=["handle: variant"], attrs=["Tvalues: type"], shape_fn=scalar_shape,
            kernel=_sparse_slices, stateful=True, host_only=True)
NotDifferentiable("SparseTensorSliceDataset")
register_dataset("DenseToSparseBatchDataset",
                 ["input_dataset: variant", "batch_size: int64", "row_shape: int64"], [],
                 _dense_to_sparse_batch, metadata=False)
