"""Gradients of the segment reductions: (Unsorted)Segment{Sum, Max, Min, Prod} and
SegmentMean.

A sum's gradient gathers the output gradient back to every row of its segment
(rows with a negative id, dropped by the unsorted ops, get zero); a mean's
divides it by the segment sizes; max and min send it to the selected rows,
split evenly between ties; a product's is the product of the segment's other
rows, computed without dividing by zero. The optimizers' sparse path
(Unique + UnsortedSegmentSum) relies on these. Imported at the end of `math_ops`.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.registry import RegisterGradient
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather
from trainflow._src.ops.array import join
from trainflow._src.ops.array import shape
from trainflow._src.ops.array import cast
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import segment


def _op(op_type, **inputs):
    return arith._out(op_type, None, **inputs)


@RegisterGradient("SegmentSum")
def _segment_sum_grad(op, grad):
    return gather.gather(grad, op.inputs[1]), None


@RegisterGradient("SegmentMean")
def _segment_mean_grad(op, grad):
    data_rank = shape.rank(op.inputs[0])
    segment_ids_shape = shape.shape(op.inputs[1])
    remaining_shape = create.ones(shape.expand_dims(data_rank - 1, 0),
                                     dtype=segment_ids_shape.dtype.base_dtype)
    ones_shape = join.concat([segment_ids_shape, remaining_shape], 0)
    ones = create.ones(ones_shape, dtype=grad.dtype.base_dtype)
    scaled_grad = arith.divide(grad, segment.segment_sum(ones, op.inputs[1]))
    return gather.gather(scaled_grad, op.inputs[1]), None


def _segment_min_or_max_grad(op, grad):
    zeros = create.zeros_like(op.inputs[0], dtype=op.inputs[0].dtype.base_dtype)
    gathered_outputs = gather.gather(op.outputs[0], op.inputs[1])
    is_selected = arith.equal(op.inputs[0], gathered_outputs)
    num_selected = segment.segment_sum(cast.cast(is_selected, grad.dtype.base_dtype),
                                        op.inputs[1])
    weighted_grads = arith.divide(grad, num_selected)
    gathered_grads = gather.gather(weighted_grads, op.inputs[1])
    return gather.where_v2(is_selected, gathered_grads, zeros), None


RegisterGradient("SegmentMin")(_segment_min_or_max_grad)
RegisterGradient("SegmentMax")(_segment_min_or_max_grad)


@RegisterGradient("SegmentProd")
def _segment_prod_grad(op, grad):
    # Per segment: no zero -> prod / x; one zero -> the product of the other rows at the
    # zero and 0 elsewhere; two or more zeros -> 0 everywhere.
    data, segment_ids = op.inputs
    is_zero = arith.equal(data, 0)
    num_zeros = _op("SegmentSum", data=cast.cast(is_zero, dtype=dtypes.int32),
                    segment_ids=segment_ids)
    grad = gather.where_v2(arith.greater(num_zeros, 1), create.zeros_like(grad),
                              grad)
    non_zero_data = gather.where_v2(is_zero, create.ones_like(data), data)
    non_zero_prod = _op("SegmentProd", data=non_zero_data, segment_ids=segment_ids)
    gathered_prod = gather.gather(op.outputs[0], segment_ids)
    gathered_non_zero_prod = gather.gather(non_zero_prod, segment_ids)
    prod_divided_by_el = gathered_prod / non_zero_data
    partial_derivative = gather.where_v2(is_zero, gathered_non_zero_prod,
                                            prod_divided_by_el)
    gathered_grad = gather.gather(grad, segment_ids)
    return gathered_grad * partial_derivative, None


def _gather_drop_negatives(params, ids, zero_clipped_indices=None, is_positive=None):
    """Gathers params[ids] with zeros for negative ids.

    Returns:
      (gathered, zero_clipped_indices, is_positive); pass the last two back in to
      reuse them for another gather with the same ids.
    """
    if zero_clipped_indices is None:
        zero_clipped_indices = arith.maximum(ids, create.zeros_like(ids))
    gathered = gather.gather(params, zero_clipped_indices)
    if is_positive is None:
        is_positive = arith.greater_equal(ids, 0)
        # Broadcast the mask over the trailing dimensions of the gathered rows.
        is_positive_shape = shape.shape(is_positive)
        broadcastable_shape = join.concat(
            [is_positive_shape,
             create.ones([shape.rank(gathered) - shape.rank(is_positive)],
                            dtype=is_positive_shape.dtype.base_dtype)],
            axis=0)
        is_positive = shape.reshape(is_positive, broadcastable_shape)
        is_positive = is_positive & create.ones_like(gathered, dtype=dtypes.bool)
    zero_slice = create.zeros_like(gathered)
    return (gather.where_v2(is_positive, gathered, zero_slice), zero_clipped_indices,
            is_positive)


def _unsorted_segment_min_or_max_grad(op, grad):
    gathered_outputs, zero_clipped_indices, is_positive = _gather_drop_negatives(
        op.outputs[0], op.inputs[1])
    is_selected = arith.equal(op.inputs[0], gathered_outputs)
    is_selected = arith.logical_and(is_selected, is_positive)
    num_selected = segment.unsorted_segment_sum(
        cast.cast(is_selected, grad.dtype.base_dtype), op.inputs[1], op.inputs[2])
    weighted_grads = arith.divide(grad, num_selected)
    gathered_grads, _, _ = _gather_drop_negatives(weighted_grads, None, zero_clipped_indices,
                                                  is_positive)
    zeros = create.zeros_like(gathered_grads)
    return gather.where_v2(is_selected, gathered_grads, zeros), None, None


RegisterGradient("UnsortedSegmentMax")(_unsorted_segment_min_or_max_grad)
RegisterGradient("UnsortedSegmentMin")(_unsorted_segment_min_or_max_grad)


@RegisterGradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op, grad):
    return _gather_drop_negatives(grad, op.inputs[1])[0], None, None


@RegisterGradient("UnsortedSegmentProd")
def _unsorted_segment_prod_grad(op, grad):
    # As SegmentProd; negative ids were dropped by the op, and get zero here.
    data, segment_ids, num_segments = op.inputs
    is_zero = arith.equal(data, 0)
    num_zeros = _op("UnsortedSegmentSum", data=cast.cast(is_zero, dtype=dtypes.int32),
                    segment_ids=segment_ids, num_segments=num_segments)
    grad = gather.where_v2(arith.greater(num_zeros, 1), create.zeros_like(grad),
                              grad)
    non_zero_data = gather.where_v2(is_zero, create.ones_like(data), data)
    non_zero_prod = _op("UnsortedSegmentProd", data=non_zero_data, segment_ids=segment_ids,
                        num_segments=num_segments)
    zero_clipped_indices = arith.maximum(segment_ids, create.zeros_like(segment_ids))
    gathered_prod = gather.gather(op.outputs[0], zero_clipped_indices)
    gathered_non_zero_prod = gather.gather(non_zero_prod, zero_clipped_indices)
    prod_divided_by_el = gathered_prod / data  # inf/nan where data is 0; not selected there
    partial_derivative = gather.where_v2(is_zero, gathered_non_zero_prod,
                                            prod_divided_by_el)
    gathered_grad = _gather_drop_negatives(grad, segment_ids, zero_clipped_indices)[0]
    return gathered_grad * partial_derivative, None, None
