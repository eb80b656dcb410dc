"""Gradients of the broadcasting binary math ops, and the comparison, logical and
bitwise ops marked not differentiable (as in TensorFlow).

Each input's gradient is summed over the axes it was broadcast along and
reshaped to its shape (`math_grad_util.reduce_gradient_args`). Gradients are
taken in the conjugate direction for complex inputs. Integer-valued ops
(FloorDiv, TruncateDiv) have a gradient that returns None, as TensorFlow's.

Imported at the end of `math_ops`.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient
from trainflow._src.framework.tensor import Tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.math.grad_util import (broadcast_gradient_args, reduce_gradient_args,
                                          shapes_fully_specified_and_equal)


def _op(op_type, **inputs):
    """The raw op (TF's gen_math_ops call): no name scope, no conversion rules."""
    return math_ops._out(op_type, None, **inputs)


def _after(grad):
    return grad.graph.control_dependencies([grad])


def _equal_shapes(x, y, grad):
    return isinstance(grad, Tensor) and shapes_fully_specified_and_equal(x, y, grad)


def _add_grad(op, grad):
    x, y = op.inputs
    if _equal_shapes(x, y, grad):
        return grad, grad
    return reduce_gradient_args(x, y, grad, grad)


RegisterGradient("Add")(_add_grad)
RegisterGradient("AddV2")(_add_grad)


@RegisterGradient("Sub")
def _sub_grad(op, grad):
    x, y = op.inputs
    if _equal_shapes(x, y, grad):
        return grad, -grad
    return reduce_gradient_args(x, y, grad, -grad)


@RegisterGradient("Mul")
def _mul_grad(op, grad):
    x, y = op.inputs
    if _equal_shapes(x, y, grad) and grad.dtype.base_dtype in (dtypes.int32, dtypes.float32):
        return _op("Mul", x=grad, y=y), _op("Mul", x=grad, y=x)
    gx = _op("Mul", x=grad, y=math_ops.conj(y))
    gy = _op("Mul", x=math_ops.conj(x), y=grad)
    return reduce_gradient_args(x, y, gx, gy)


@RegisterGradient("MulNoNan")
def _mul_no_nan_grad(op, grad):
    x, y = op.inputs
    if _equal_shapes(x, y, grad):
        return _op("MulNoNan", x=grad, y=y), _op("MulNoNan", x=x, y=grad)
    gx = _op("MulNoNan", x=grad, y=y)
    gy = _op("MulNoNan", x=x, y=grad)
    return reduce_gradient_args(x, y, gx, gy)


def _quotient_grad(divide):
    """The gradient of x / y computed with `divide`: (1 / y, -x / y^2)."""
    def grad_fn(op, grad):
        x, y = op.inputs
        cx, cy = math_ops.conj(x), math_ops.conj(y)
        gx = divide(grad, cy)
        gy = grad * divide(divide(-cx, cy), cy)
        return reduce_gradient_args(x, y, gx, gy)
    return grad_fn


RegisterGradient("Div")(_quotient_grad(math_ops.divide))
RegisterGradient("RealDiv")(_quotient_grad(math_ops.realdiv))


@RegisterGradient("DivNoNan")
def _div_no_nan_grad(op, grad):
    x = math_ops.conj(op.inputs[0])
    y = math_ops.conj(op.inputs[1])
    gx = math_ops.div_no_nan(grad, y)
    gy = grad * math_ops.div_no_nan(math_ops.div_no_nan(-x, y), y)
    return reduce_gradient_args(x, y, gx, gy)


def _integer_valued_grad(op, grad):
    return None, None


RegisterGradient("FloorDiv")(_integer_valued_grad)
RegisterGradient("TruncateDiv")(_integer_valued_grad)


@RegisterGradient("FloorMod")
def _floor_mod_grad(op, grad):
    # x mod y = x - floor(x / y) * y
    x = math_ops.conj(op.inputs[0])
    y = math_ops.conj(op.inputs[1])
    floor_xy = math_ops.floor_div(x, y)
    return reduce_gradient_args(x, y, grad, grad * math_ops.negative(floor_xy))


@RegisterGradient("Pow")
def _pow_grad(op, grad):
    # d(x^y) = (y * x^(y-1), x^y * log(x)); log(x) is taken as 0 where it is undefined.
    x, y = op.inputs
    cx, cy = math_ops.conj(x), math_ops.conj(y)
    gx = grad * cy * math_ops.pow(cx, cy - 1)
    if x.dtype.is_complex:
        mask = math_ops.not_equal(cx, 0)
    else:
        mask = cx > 0
    safe_x = array_ops.where(mask, cx, array_ops.ones_like(x))
    log_x = array_ops.where(mask, math_ops.log(safe_x), array_ops.zeros_like(x))
    gy = grad * math_ops.conj(op.outputs[0]) * log_x
    return reduce_gradient_args(x, y, gx, gy)


def _maximum_minimum_grad(op, grad, selector):
    # The gradient goes to x where selector(x, y) holds (ties go to x), else to y.
    x, y = op.inputs
    zeros = array_ops.zeros_like(grad)
    xmask = selector(x, y)
    gx = array_ops.where_v2(xmask, grad, zeros)
    gy = array_ops.where_v2(xmask, zeros, grad)
    return reduce_gradient_args(x, y, gx, gy)


@RegisterGradient("Maximum")
def _maximum_grad(op, grad):
    return _maximum_minimum_grad(op, grad, math_ops.greater_equal)


@RegisterGradient("Minimum")
def _minimum_grad(op, grad):
    return _maximum_minimum_grad(op, grad, math_ops.less_equal)


@RegisterGradient("SquaredDifference")
def _squared_difference_grad(op, grad):
    x, y = op.inputs
    with _after(grad):
        # scalar_mul keeps an IndexedSlices grad working (it densifies on the multiply).
        x_grad = math_ops.scalar_mul(2.0, grad) * (x - y)
    if _equal_shapes(x, y, grad):
        return x_grad, -x_grad
    return reduce_gradient_args(x, y, x_grad, -x_grad)


@RegisterGradient("Atan2")
def _atan2_grad(op, grad):
    # d atan2(y, x) = (x, -y) / (x^2 + y^2)
    y, x = op.inputs
    with _after(grad):
        grad_inv = grad / (math_ops.square(y) + math_ops.square(x))
        gy = x * grad_inv
        gx = -y * grad_inv
        return reduce_gradient_args(y, x, gy, gx)


def _x_op_grad(op, grad, partials):
    """Gradient of Xlogy/Xlog1py/Xdivy: `partials(not_zero_x, x, y)` gives (dz/dx, dz/dy)."""
    x, y = op.inputs
    sx = array_ops.shape(x)
    sy = array_ops.shape(y)
    rx, ry = broadcast_gradient_args(sx, sy)
    with _after(grad):
        zero = math_ops.cast(0., dtype=x.dtype.base_dtype)
        not_zero_x = math_ops.cast(math_ops.not_equal(x, zero), dtype=x.dtype.base_dtype)
        partial_x, partial_y = partials(not_zero_x, x, y)
        return (array_ops.reshape(math_ops.reduce_sum(partial_x * grad, rx), sx),
                array_ops.reshape(math_ops.reduce_sum(partial_y * grad, ry), sy))


@RegisterGradient("Xlogy")
def _xlogy_grad(op, grad):
    return _x_op_grad(op, grad, lambda nz, x, y: (_op("Xlogy", x=nz, y=y),
                                                  _op("Xdivy", x=x, y=y)))


@RegisterGradient("Xlog1py")
def _xlog1py_grad(op, grad):
    return _x_op_grad(op, grad, lambda nz, x, y: (_op("Xlog1py", x=nz, y=y),
                                                  _op("Xdivy", x=x, y=y + 1.)))


@RegisterGradient("Xdivy")
def _xdivy_grad(op, grad):
    return _x_op_grad(op, grad, lambda nz, x, y: (_op("Xdivy", x=nz, y=y),
                                                  _op("Xdivy", x=math_ops.negative(x),
                                                      y=y ** 2)))


@RegisterGradient("Polygamma")
def _polygamma_grad(op, grad):
    # d psi^(n)(x) / dx = psi^(n+1)(x); the order n gets no gradient.
    n, x = op.inputs
    sn = array_ops.shape(n)
    sx = array_ops.shape(x)
    _, rx = broadcast_gradient_args(sn, sx)
    with _after(grad):
        n = math_ops.conj(n)
        x = math_ops.conj(x)
        partial_x = math_ops.polygamma(n + 1, x)
        return None, array_ops.reshape(math_ops.reduce_sum(partial_x * grad, rx), sx)


for _op_type in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual",
                 "LogicalAnd", "LogicalOr", "LogicalNot", "BitwiseAnd", "BitwiseOr",
                 "BitwiseXor", "Invert"):
    NotDifferentiable(_op_type)
