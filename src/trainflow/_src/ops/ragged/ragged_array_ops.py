"""Ragged array ops: `tf.ragged.boolean_mask`, `tf.ragged.stack`,
`tf.ragged.stack_dynamic_partitions`, and gathering rows of a RaggedTensor."""
__all__ = ["boolean_mask", "stack", "stack_dynamic_partitions", "gather_rows"]

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import gather as gather_ops
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import range as range_
from trainflow._src.ops.array.join import concat, stack as dense_stack
from trainflow._src.ops.array.layout import transpose
from trainflow._src.ops.array.shape import reshape, shape as shape_op
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.math.argmax_scan import cumprod, cumsum
from trainflow._src.ops.math.reductions import count_nonzero
from trainflow._src.ops.math.segment import unsorted_segment_sum
from trainflow._src.ops.math.sort_ops import argsort
from trainflow._src.ops.ragged import ragged_convert  # noqa: F401 - from_tensor & co.
from trainflow._src.ops.ragged.ragged_factory import map_flat_values
from trainflow._src.ops.ragged.ragged_tensor import RaggedTensor, \
    convert_to_tensor_or_ragged_tensor
from trainflow._src.ops.ragged.segment_ids import row_splits_to_segment_ids


def _lengths_to_splits(lengths):
    zero = np.zeros([1], lengths.dtype.as_numpy_dtype)
    return concat([zero, cumsum(lengths)], axis=0)


def _splits_dtype(*values):
    """The row splits dtype of the ragged ones among `values` (int64 if they differ or
    none is ragged), and the values cast to it."""
    ragged = [v for v in values if isinstance(v, RaggedTensor)]
    dtype = dtypes.int64
    if ragged and all(v.row_splits.dtype == dtypes.int32 for v in ragged):
        dtype = dtypes.int32
    return dtype, [v.with_row_splits_dtype(dtype) if isinstance(v, RaggedTensor) else v
                   for v in values]


def _splits_match(a, b):
    return [check_ops.assert_equal(x, y, message="Inputs must have identical ragged splits")
            for x, y in zip(a, b) if x is not y]


def gather_rows(rt, indices):
    """The rows `indices` (a vector) of ragged `rt` (one RaggedGather op), or of a dense
    tensor."""
    if not isinstance(rt, RaggedTensor):
        return gather_ops.gather(rt, indices)
    outs = apply_op("RaggedGather", params_nested_splits=list(rt.nested_row_splits),
                    params_dense_values=rt.flat_values, indices=indices,
                    OUTPUT_RAGGED_RANK=rt.ragged_rank).outputs
    return RaggedTensor.from_nested_row_splits(outs[-1], outs[:-1], validate=False)


def boolean_mask(data, mask, name=None):
    """The items of `data` where `mask` (dense or ragged, its shape a prefix of data's)
    is True; masking an inner dimension makes the result ragged there."""
    with name_scope(name, "RaggedMask", [data, mask]):
        data = convert_to_tensor_or_ragged_tensor(data, name="data")
        mask = convert_to_tensor_or_ragged_tensor(mask, dtypes.bool, name="mask")
        splits_dtype, (data, mask) = _splits_dtype(data, mask)
        if mask.shape.rank is None:
            raise ValueError("mask.shape.ndims must be known statically.")
        if mask.shape.rank == 0:
            raise ValueError("mask cannot be scalar.")
        if isinstance(mask, RaggedTensor):
            if not isinstance(data, RaggedTensor):
                data = RaggedTensor.from_tensor(data, ragged_rank=mask.ragged_rank,
                                                row_splits_dtype=mask.row_splits.dtype)
            checks = _splits_match(mask.nested_row_splits,
                                   data.nested_row_splits[:mask.ragged_rank])
            with control_dependencies(checks):
                splits = []
                while isinstance(mask, RaggedTensor):
                    if mask.shape.rank > 2:
                        splits.append(mask.row_splits)
                    else:
                        counts = cast(mask.values, splits_dtype)
                        lengths = unsorted_segment_sum(counts, mask.value_rowids(),
                                                       mask.nrows())
                        splits.append(_lengths_to_splits(lengths))
                    mask, data = mask.values, data.values
                return RaggedTensor.from_nested_row_splits(boolean_mask(data, mask), splits,
                                                           validate=False)
        if isinstance(data, RaggedTensor) and mask.shape.rank == 1:
            lengths = gather_ops.boolean_mask(data.row_lengths(), mask)
            segment_mask = gather_ops.gather(mask, row_splits_to_segment_ids(data.row_splits))
            values = boolean_mask(data.values, segment_mask)
            return RaggedTensor.from_row_splits(values, _lengths_to_splits(lengths),
                                                validate=False)
        if isinstance(data, RaggedTensor):
            mask = RaggedTensor.from_tensor(
                mask, ragged_rank=min(data.ragged_rank, mask.shape.rank - 1),
                row_splits_dtype=data.row_splits.dtype)
            return boolean_mask(data, mask)
        values = gather_ops.boolean_mask(data, mask)
        if mask.shape.rank >= 2:
            lengths = reshape(count_nonzero(mask, axis=-1, dtype=splits_dtype), [-1])
            values = RaggedTensor.from_row_lengths(values, lengths, validate=False)
            if mask.shape.rank > 2:
                if mask.shape.is_fully_defined():
                    mask_shape = [np.asarray(d, splits_dtype.as_numpy_dtype)
                                  for d in mask.shape.as_list()]
                    split_size = np.cumprod(mask_shape) + 1
                else:
                    mask_shape = shape_op(mask, out_type=splits_dtype)
                    split_size = cumprod(mask_shape) + 1
                for dim in range(mask.shape.rank - 3, -1, -1):
                    splits = range_(split_size[dim]) * mask_shape[dim + 1]
                    values = RaggedTensor.from_row_splits(values, splits, validate=False)
        return values


def _increase_ragged_rank(rt, ragged_rank, splits_dtype):
    if ragged_rank > 0:
        if not isinstance(rt, RaggedTensor):
            rt = RaggedTensor.from_tensor(rt, row_splits_dtype=splits_dtype)
        if rt.ragged_rank < ragged_rank:
            rt = rt.with_values(_increase_ragged_rank(rt.values, ragged_rank - 1,
                                                      splits_dtype))
    return rt


def _concat_splits(splits_list):
    pieces, offset = [splits_list[0]], splits_list[0][-1]
    for splits in splits_list[1:]:
        pieces.append(splits[1:] + offset)
        offset += splits[-1]
    return concat(pieces, axis=0)


def _stack_axis_0(rts, stack_values):
    flat = concat([rt.flat_values for rt in rts], axis=0)
    nested = [rt.nested_row_splits for rt in rts]
    splits = [_concat_splits([n[d] for n in nested]) for d in range(rts[0].ragged_rank)]
    if stack_values:
        splits.insert(0, _lengths_to_splits(dense_stack([rt.nrows() for rt in rts])))
    return RaggedTensor.from_nested_row_splits(flat, splits, validate=False)


def _stack_axis_1(rts, stack_values):
    n = len(rts)
    nrows = rts[0].nrows()
    checks = [check_ops.assert_equal(nrows, rt.nrows(), message=(
        f"Input tensors at index 0 (=x) and {i + 1} (=y) have incompatible shapes."))
        for i, rt in enumerate(rts[1:])]
    with control_dependencies(checks):
        joined = _stack_axis_0(rts, stack_values=False)
        order = reshape(transpose(reshape(range_(nrows * n), [n, -1])), [-1])
        permuted = gather_rows(joined, order)
        if stack_values:
            splits = range_(0, nrows * n + 1, n)
            return RaggedTensor.from_row_splits(permuted, splits, validate=False)
        return RaggedTensor.from_row_splits(permuted.values, permuted.row_splits[::n],
                                            validate=False)


def _stack_helper(inputs, axis, stack_values):
    inputs = [convert_to_tensor_or_ragged_tensor(rt, name="rt_input") for rt in inputs]
    splits_dtype, inputs = _splits_dtype(*inputs)
    ndims = None
    for rt in inputs:
        if ndims is None:
            ndims = rt.shape.rank
        else:
            rt.shape.assert_has_rank(ndims)
    out_ndims = ndims if ndims is None or not stack_values else ndims + 1
    if out_ndims is not None:
        if not -out_ndims <= axis < out_ndims:
            raise ValueError(f"axis={axis} out of bounds: expected {-out_ndims}<=axis<"
                             f"{out_ndims}")
        axis = axis + out_ndims if axis < 0 else axis
    elif axis < 0:
        raise ValueError("axis may not be negative if ndims is statically unknown.")
    if stack_values and ndims == 1 and axis == 0:
        return RaggedTensor.from_row_lengths(
            concat(inputs, axis=0),
            concat([shape_op(r) for r in inputs], axis=0))
    if all(not isinstance(rt, RaggedTensor) for rt in inputs) and ndims is not None and \
            (axis == out_ndims - 1 or axis == ndims - 1):
        return dense_stack(inputs, axis=axis) if stack_values else concat(inputs, axis=axis)
    inputs = [rt if isinstance(rt, RaggedTensor) else
              RaggedTensor.from_tensor(rt, ragged_rank=1, row_splits_dtype=splits_dtype)
              for rt in inputs]
    ragged_rank = max(max(rt.ragged_rank for rt in inputs), 1)
    inputs = [_increase_ragged_rank(rt, ragged_rank, splits_dtype) for rt in inputs]
    if axis == 0:
        return _stack_axis_0(inputs, stack_values)
    if axis == 1:
        return _stack_axis_1(inputs, stack_values)
    first = inputs[0].row_splits
    checks = [c for rt in inputs[1:] for c in _splits_match([first], [rt.row_splits])]
    with control_dependencies(checks):
        return RaggedTensor.from_row_splits(
            _stack_helper([rt.values for rt in inputs], axis - 1, stack_values), first,
            validate=False)


def stack(values, axis=0, name=None):
    """`values` (Tensors and RaggedTensors of one rank) stacked along a new `axis`."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    with name_scope(name, "RaggedConcat", values):
        return _stack_helper(values, axis, stack_values=True)


def stack_dynamic_partitions(data, partitions, num_partitions, name=None):
    """Row `p` of the result stacks the items of `data` whose partition is `p`, in order."""
    with name_scope(name, "SegmentStack", [data, partitions, num_partitions]):
        data = convert_to_tensor_or_ragged_tensor(data)
        splits_dtype = data.row_splits.dtype if isinstance(data, RaggedTensor) else None
        partitions = convert_to_tensor_or_ragged_tensor(partitions, dtype=dtypes.int32,
                                                        preferred_dtype=splits_dtype)
        num_partitions = convert_to_tensor(num_partitions, preferred_dtype=partitions.dtype)
        if splits_dtype is not None:
            partitions = cast(partitions, splits_dtype) if not isinstance(
                partitions, RaggedTensor) else map_flat_values(cast, partitions, splits_dtype)
        num_partitions = cast(num_partitions, partitions.dtype)
        rank = partitions.shape.rank
        if rank is None:
            raise ValueError("partitions must have known rank.")
        num_partitions.shape.assert_has_rank(0)
        partitions.shape.assert_is_compatible_with(data.shape[:rank])
        if rank == 0:
            return RaggedTensor.from_value_rowids(dense_stack([data]) if not isinstance(
                data, RaggedTensor) else _stack_helper([data], 0, True),
                dense_stack([partitions]), nrows=num_partitions, validate=False)
        if rank == 1:
            permutation = argsort(partitions, stable=True)
            rowids = gather_ops.gather(partitions, permutation)
            values = gather_rows(data, permutation)
            checks = [check_ops.assert_less(rowids[-1:], num_partitions,
                                            message="partitions must be less than "
                                                    "num_partitions"),
                      check_ops.assert_non_negative(partitions,
                                                    message="partitions must be "
                                                            "non-negative.")]
            with control_dependencies(checks):
                return RaggedTensor.from_value_rowids(values, rowids, nrows=num_partitions,
                                                      validate=False)
        if not isinstance(data, RaggedTensor):
            data = RaggedTensor.from_tensor(data, row_splits_dtype=partitions.dtype,
                                            ragged_rank=1)
        if not isinstance(partitions, RaggedTensor):
            partitions = RaggedTensor.from_tensor(
                partitions, row_splits_dtype=partitions.dtype,
                ragged_rank=max(data.ragged_rank, rank - 1))
        check = check_ops.assert_equal(data.row_splits, partitions.row_splits,
                                       message="data and partitions have incompatible "
                                               "ragged shapes")
        with control_dependencies([check]):
            return stack_dynamic_partitions(data.values, partitions.values, num_partitions)
