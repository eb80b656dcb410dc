"""Gradients of the shape and creation ops: Reshape, ExpandDims, Squeeze, BroadcastTo and
Fill, with `dense_gradient` (an IndexedSlices gradient summed into a dense Tensor). They
sit above `shape` and `create` because they build reductions and segment sums."""
from trainflow._src.framework import tensor_util
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient
from trainflow._src.ops.array.shape import reshape, shape
from trainflow._src.ops.array.shape_util import dims_of
from trainflow._src.ops.math.reductions import reduce_sum
from trainflow._src.ops.math.segment import unsorted_segment_sum


def dense_gradient(grad):
    """`grad` as a dense Tensor: an IndexedSlices is summed into its dense shape
    (UnsortedSegmentSum, as TF's gradients densify without a warning).

    Raises:
      ValueError: for an IndexedSlices without dense_shape.
    """
    if not isinstance(grad, IndexedSlices):
        return grad
    if grad.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices without dense_shape: "
                         f"{grad}")
    return unsorted_segment_sum(grad.values, grad.indices, grad.dense_shape[0])


@RegisterGradient("Reshape")
def _reshape_grad(op, grad):
    """Reshapes the gradient back; one unknown input size becomes -1 (no Shape op)."""
    dims = dims_of(op.inputs[0])
    if dims is not None and None in dims and 0 not in dims and dims.count(None) == 1:
        return reshape(dense_gradient(grad), [-1 if d is None else d for d in dims]), None
    return reshape(dense_gradient(grad), shape(op.inputs[0])), None


def _reshape_to_input(op, grad):
    return reshape(dense_gradient(grad), shape(op.inputs[0]))


RegisterGradient("ExpandDims")(lambda op, grad: (_reshape_to_input(op, grad), None))
RegisterGradient("Squeeze")(_reshape_to_input)


@RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op, grad):
    """Sums the gradient over the broadcast axes and reshapes it to the input's shape."""
    target = op.inputs[1]
    shape_dtype = target.dtype.base_dtype
    input_shape = shape(op.inputs[0], out_type=shape_dtype)
    static = tensor_util.constant_value(target)
    if static is not None and (static >= 0).all():
        target = constant(static.tolist(), dtype=shape_dtype)
    axes = apply_op("BroadcastGradientArgs", s0=target, s1=input_shape).outputs[1]
    summed = reduce_sum(grad, axis=axes, keepdims=True)
    return reshape(summed, input_shape), None


@RegisterGradient("Fill")
def _fill_grad(op, grad):
    """Every output element is `value`, so its gradient is the sum of `grad`."""
    return None, reduce_sum(grad)
