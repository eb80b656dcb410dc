"""RaggedTensor <-> dense and sparse tensors: `from_tensor`, `to_tensor`, `from_sparse`,
`to_sparse` (installed on RaggedTensor when this module loads)."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor, \
    convert_to_tensor_or_sparse_tensor
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, as_shape
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import range as range_, sequence_mask, zeros
from trainflow._src.ops.array.gather import boolean_mask, where
from trainflow._src.ops.array.join import concat, stack
from trainflow._src.ops.array.shape import expand_dims, reshape, shape as shape_op
from trainflow._src.ops.control_flow.assert_op import Assert
from trainflow._src.ops.math import arith
from trainflow._src.ops.math.argmax_scan import cumsum
from trainflow._src.ops.math.reductions import reduce_all, reduce_any, reduce_max, reduce_prod
from trainflow._src.ops.ragged import ragged_conversion  # noqa: F401 - registers the ops
from trainflow._src.ops.ragged.ragged_tensor import RaggedTensor


def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                row_splits_dtype=dtypes.int64):
    """The rows of dense `tensor`, cut to `lengths`, or with trailing `padding` dropped."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if lengths is not None and padding is not None:
        raise ValueError("Specify argument `lengths` or `padding`, but not both.")
    if not isinstance(ragged_rank, int):
        raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
    if ragged_rank <= 0:
        raise ValueError(f"Argument `ragged_rank` must be greater than 0. Received "
                         f"ragged_rank={ragged_rank}.")
    with name_scope(name, "RaggedFromTensor", [tensor, lengths, padding]):
        tensor = convert_to_tensor(tensor, name="tensor")
        tensor.shape.with_rank_at_least(ragged_rank + 1)
        input_shape = shape_op(tensor, out_type=row_splits_dtype)
        if ragged_rank > 1:
            static = tensor.shape.as_list()
            if tensor.shape.is_fully_defined():
                lead = int(np.prod(static[:ragged_rank]))
                new_shape = [lead] + static[ragged_rank:]
            else:
                new_shape = concat([reduce_prod(input_shape[:ragged_rank])[None],
                                    input_shape[ragged_rank:]], axis=0)
            result = from_tensor(cls, reshape(tensor, new_shape), lengths, padding,
                                 row_splits_dtype=row_splits_dtype)
            for axis in range(ragged_rank - 1, 0, -1):
                dim = static[axis]
                dim = input_shape[axis] if dim is None else \
                    convert_to_tensor(np.asarray(dim, row_splits_dtype.as_numpy_dtype))
                result = RaggedTensor.from_uniform_row_length(result, dim, validate=False)
            return result
        ncols = input_shape[1]
        if lengths is not None:
            lengths = convert_to_tensor(lengths, name="lengths",
                                        preferred_dtype=row_splits_dtype)
            lengths = cast(lengths, row_splits_dtype)
            lengths.shape.assert_has_rank(1)
            lengths = arith.maximum(arith.minimum(lengths, ncols), 0)
            splits = concat([np.zeros([1], row_splits_dtype.as_numpy_dtype), cumsum(lengths)],
                            axis=0)
            values = boolean_mask(tensor, sequence_mask(lengths, maxlen=ncols))
            return RaggedTensor.from_row_splits(values, splits, validate=False)
        if padding is not None:
            padding = convert_to_tensor(padding, name="padding", dtype=tensor.dtype)
            padding.shape.assert_is_compatible_with(tensor.shape[2:])
            has_default = arith.equal(padding, tensor)
            if tensor.shape.rank > 2:
                has_default = reduce_all(has_default, axis=list(range(2, tensor.shape.rank)))
            nondefault = cast(arith.logical_not(has_default), row_splits_dtype)
            length_for = nondefault * expand_dims(range_(1, ncols + 1), 0)
            lengths = reduce_max(length_for, axis=1)
            return from_tensor(cls, tensor, lengths=lengths, row_splits_dtype=row_splits_dtype)
        values = reshape(tensor, concat([(input_shape[0] * input_shape[1])[None],
                                         input_shape[2:]], axis=0))
        nrows_static, ncols_static = tensor.shape.as_list()[:2]
        np_type = row_splits_dtype.as_numpy_dtype
        nrows = input_shape[0] if nrows_static is None else \
            convert_to_tensor(np.asarray(nrows_static, np_type))
        ncols = ncols if ncols_static is None else \
            convert_to_tensor(np.asarray(ncols_static, np_type))
        rt = RaggedTensor.from_uniform_row_length(values, ncols, nrows=nrows, validate=False)
        if nrows_static is not None and ncols_static is not None:
            rt.values.set_shape(TensorShape([nrows_static * ncols_static]).concatenate(
                tensor.shape[2:]))
        return rt


def _shape_as_tensor(shape, dtype):
    if isinstance(shape, Tensor):
        return cast(shape, dtype) if shape.dtype != dtype else shape
    shape = as_shape(shape) if shape is not None else TensorShape(None)
    if shape.rank is None:
        return convert_to_tensor(np.asarray(-1, dtype.as_numpy_dtype))
    return convert_to_tensor(np.asarray([-1 if d is None else d for d in shape.as_list()],
                                        dtype.as_numpy_dtype))


def to_tensor(self, default_value=None, name=None, shape=None):
    """A dense tensor: rows padded with `default_value` (zero) to the bounding shape, or
    padded and cut to `shape`."""
    with name_scope(name, "RaggedToTensor", [self, default_value, shape]):
        if default_value is not None:
            default_value = convert_to_tensor(default_value, name="default_value",
                                              dtype=self.dtype)
        splits = list(self.nested_row_splits)
        if default_value is None:
            default_value = zeros((), self.dtype)
        if isinstance(shape, (list, tuple)) and any(isinstance(v, Tensor) for v in shape):
            shape = stack(shape)
        shape_tensor = _shape_as_tensor(shape, splits[0].dtype)
        out = apply_op("RaggedTensorToTensor", shape=shape_tensor, values=self.flat_values,
                       default_value=default_value, row_partition_tensors=splits,
                       row_partition_types=["ROW_SPLITS"] * len(splits)).outputs[0]
        ragged_shape = self.shape
        if ragged_shape.rank is not None and not isinstance(shape, Tensor):
            given = as_shape(shape) if shape is not None else TensorShape(None)
            if given.rank is None:
                out.set_shape(ragged_shape)
            else:
                out.set_shape([a if a is not None else b for a, b in
                               zip(given.as_list(), ragged_shape.as_list())])
        return out


def to_sparse(self, name=None):
    """The SparseTensor of the values at their (row, column ...) coordinates."""
    with name_scope(name, "RaggedToSparse", [self]):
        op = apply_op("RaggedTensorToSparse", rt_nested_splits=list(self.nested_row_splits),
                      rt_dense_values=self.flat_values)
        return SparseTensor(*op.outputs)


def _ragged_right_checks(indices):
    """An Assert that each row's column indices of a sparse tensor count 0, 1, 2, ..."""
    prefix, suffix = indices[:, :-1], indices[:, -1]
    changed = reduce_any(arith.not_equal(prefix[1:], prefix[:-1]), axis=1)
    ok = where(changed, arith.equal(suffix[1:], 0), arith.equal(suffix[1:], suffix[:-1] + 1))
    right = arith.logical_and(reduce_all(arith.equal(suffix[:1], 0)), reduce_all(ok))
    return [Assert(right, ["SparseTensor is not right-ragged", "SparseTensor.indices =",
                           indices], summarize=100)]


def from_sparse(cls, st_input, name=None, row_splits_dtype=dtypes.int64):
    """The rows of a 2-D SparseTensor whose rows have no gaps (columns 0, 1, 2 ...)."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
    if not isinstance(st_input, (SparseTensor,)) and not hasattr(st_input, "dense_shape"):
        raise TypeError(f"Argument `st_input` must be of type SparseTensor, but is "
                        f"{type(st_input).__name__}.")
    with name_scope(name, "RaggedFromSparse", [st_input]):
        st_input = convert_to_tensor_or_sparse_tensor(st_input, name="st_input")
        if st_input.dense_shape.shape.rank != 1 or \
                st_input.dense_shape.shape.dims[0].value not in (None, 2):
            raise ValueError("rank(st_input) must be 2.")
        with control_dependencies(_ragged_right_checks(st_input.indices)):
            segment_ids = cast(st_input.indices[:, 0], row_splits_dtype)
            num_segments = cast(st_input.dense_shape[0], row_splits_dtype)
            return cls.from_value_rowids(st_input.values, segment_ids, num_segments,
                                         validate=False)


RaggedTensor.from_tensor = classmethod(from_tensor)
RaggedTensor.from_sparse = classmethod(from_sparse)
RaggedTensor.to_tensor = to_tensor
RaggedTensor.to_sparse = to_sparse
