"""Helpers shared by the math gradients.

The broadcasting binary ops reduce each input's gradient back to the input's
shape. As in TensorFlow 2.x, the axes to sum over come from the static shapes
when they decide it (no extra ops), else from a `BroadcastGradientArgs` op on
the runtime shapes. The static value of `BroadcastGradientArgs` is registered
here too, so shapes computed from constant shapes stay static.
"""
import numpy as np

from trainflow._src.framework import errors, registry, tensor_util
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions


def shape_tuple(t):
    """The static dims of `t` as a tuple (None entries unknown), or None for unknown rank."""
    return t.shape._dims


def is_scalar(t):
    """True when `t` is statically known to be a scalar."""
    return shape_tuple(t) == ()


def shapes_fully_specified_and_equal(x, y, grad):
    """True when x, y and grad have the same fully known static shape."""
    xs, ys, gs = shape_tuple(x), shape_tuple(y), shape_tuple(grad)
    return xs == ys == gs and xs is not None and None not in xs


def infer_gradient_reduction_axes(x_shape, y_shape):
    """The axes along which x and y were broadcast, from static shapes alone.

    Args:
      x_shape, y_shape: TensorShapes of the two inputs of a broadcasting op.

    Returns:
      (x_axes, y_axes) as lists of ints, or (None, None) when an unknown rank or
      an unknown size makes the broadcast data-dependent.
    """
    if x_shape.rank is None or y_shape.rank is None:
        return None, None
    xd, yd = x_shape.as_list(), y_shape.as_list()
    rank = max(len(xd), len(yd))
    xd = [1] * (rank - len(xd)) + xd
    yd = [1] * (rank - len(yd)) + yd
    x_axes, y_axes = [], []
    for axis, (dx, dy) in enumerate(zip(xd, yd)):
        if dx == 1 and dy != 1:
            x_axes.append(axis)
        elif dy == 1 and dx != 1:
            y_axes.append(axis)
        elif dx is None or dy is None:
            return None, None
    return x_axes, y_axes


def broadcast_gradient_args(s0, s1, name=None):
    """The `BroadcastGradientArgs` op: the reduction axes for two shape vectors."""
    op = apply_op("BroadcastGradientArgs", s0=s0, s1=s1, name=name)
    return op.outputs[0], op.outputs[1]


def smart_broadcast_gradient_args(x, y):
    """Broadcast information for the inputs of a broadcasting binary op.

    Returns:
      ((x_shape, x_axes, x_must_reduce), (y_shape, y_axes, y_must_reduce)):
      each shape is a 1-D int tensor (a constant when static), each axes a
      list of ints or an int tensor, and must_reduce says whether the gradient
      needs reducing and reshaping.
    """
    x_shape = shape_lib.shape(x)
    y_shape = shape_lib.shape(y)
    x_axes, y_axes = infer_gradient_reduction_axes(x.shape, y.shape)
    if x_axes is None or y_axes is None:
        x_axes, y_axes = broadcast_gradient_args(x_shape, y_shape)
        return (x_shape, x_axes, True), (y_shape, y_axes, True)
    x_must = bool(x_axes) or x.shape.rank < y.shape.rank
    y_must = bool(y_axes) or y.shape.rank < x.shape.rank
    return (x_shape, x_axes, x_must), (y_shape, y_axes, y_must)


def reduce_gradient_arg(grad, shape_axes_must_reduce):
    """Sums `grad` over the broadcast axes and reshapes it to the input's shape."""
    shape, axes, must_reduce = shape_axes_must_reduce
    if grad is not None and must_reduce:
        grad = reductions.reduce_sum(grad, axes, keepdims=True)
        grad = shape_lib.reshape(grad, shape)
    return grad


def reduce_gradient_args(x, y, gx, gy):
    """Reduces the gradients of both inputs of a broadcasting binary op."""
    if gx is not None or gy is not None:
        bx, by = smart_broadcast_gradient_args(x, y)
        gx = reduce_gradient_arg(gx, bx)
        gy = reduce_gradient_arg(gy, by)
    return gx, gy


def safe_shape_div(x, y):
    """x // max(y, 1) for non-negative shapes, so that 0 / 0 gives 0."""
    return x // arith.maximum(y, 1)


@tensor_util.register_constant_value("BroadcastGradientArgs")
def _broadcast_gradient_args_value(op, index, partial):
    s0 = tensor_util.constant_value(op.inputs[0])
    s1 = tensor_util.constant_value(op.inputs[1])
    if s0 is None or s1 is None:
        return None
    try:
        outputs = registry.get("BroadcastGradientArgs").kernel(np.asarray(s0), np.asarray(s1))
    except errors.OpError:
        return None
    return outputs[index]

