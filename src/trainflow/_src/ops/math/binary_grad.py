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
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather
from trainflow._src.ops.array import shape
from trainflow._src.ops.array import cast
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions
from trainflow._src.ops.math.grad_util import (broadcast_gradient_args, reduce_gradient_args,
                                          shapes_fully_specified_and_equal)


def _op(op_type, **inputs):
    """The raw op (TF's gen_math_ops call): no name scope, no conversion rules."""
    return arith._out(op_type, None, **inputs)


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
    gx = _op("Mul", x=grad, y=arith.conj(y))
    gy = _op("Mul", x=arith.conj(x), y=grad)
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
        cx, cy = arith.conj(x), arith.conj(y)
        gx = divide(grad, cy)
        gy = grad * divide(divide(-cx, cy), cy)
        return reduce_gradient_args(x, y, gx, gy)
    return grad_fn


RegisterGradient("Div")(_quotient_grad(arith.divide))
RegisterGradient("RealDiv")(_quotient_grad(arith.realdiv))


@RegisterGradient("DivNoNan")
def _div_no_nan_grad(op, grad):
    x = arith.conj(op.inputs[0])
    y = arith.conj(op.inputs[1])
    gx = arith.div_no_nan(grad, y)
    gy = grad * arith.div_no_nan(arith.div_no_nan(-x, y), y)
    return reduce_gradient_args(x, y, gx, gy)


def _integer_valued_grad(op, grad):
    return None, None


RegisterGradient("FloorDiv")(_integer_valued_grad)
RegisterGradient("TruncateDiv")(_integer_valued_grad)


@RegisterGradient("FloorMod")
def _floor_mod_grad(op, grad):
    # x mod y = x - floor(x / y) * y
    x = arith.conj(op.inputs[0])
    y = arith.conj(op.inputs[1])
    floor_xy = arith.floor_div(x, y)
    return reduce_gradient_args(x, y, grad, grad * arith.negative(floor_xy))


@RegisterGradient("Pow")
def _pow_grad(op, grad):
    # d(x^y) = (y * x^(y-1), x^y * log(x)); log(x) is taken as 0 where it is undefined.
    x, y = op.inputs
    cx, cy = arith.conj(x), arith.conj(y)
    gx = grad * cy * arith.pow(cx, cy - 1)
    if x.dtype.is_complex:
        mask = arith.not_equal(cx, 0)
    else:
        mask = cx > 0
    safe_x = gather.where(mask, cx, create.ones_like(x))
    log_x = gather.where(mask, arith.log(safe_x), create.zeros_like(x))
    gy = grad * arith.conj(op.outputs[0]) * log_x
    return reduce_gradient_args(x, y, gx, gy)


def _maximum_minimum_grad(op, grad, selector):
    # The gradient goes to x where selector(x, y) holds (ties go to x), else to y.
    x, y = op.inputs
    zeros = create.zeros_like(grad)
    xmask = selector(x, y)
    gx = gather.where_v2(xmask, grad, zeros)
    gy = gather.where_v2(xmask, zeros, grad)
    return reduce_gradient_args(x, y, gx, gy)


@RegisterGradient("Maximum")
def _maximum_grad(op, grad):
    return _maximum_minimum_grad(op, grad, arith.greater_equal)


@RegisterGradient("Minimum")
def _minimum_grad(op, grad):
    return _maximum_minimum_grad(op, grad, arith.less_equal)


@RegisterGradient("SquaredDifference")
def _squared_difference_grad(op, grad):
    x, y = op.inputs
    with _after(grad):
        # scalar_mul keeps an IndexedSlices grad working (it densifies on the multiply).
        x_grad = arith.scalar_mul(2.0, grad) * (x - y)
    if _equal_shapes(x, y, grad):
        return x_grad, -x_grad
    return reduce_gradient_args(x, y, x_grad, -x_grad)


@RegisterGradient("Atan2")
def _atan2_grad(op, grad):
    # d atan2(y, x) = (x, -y) / (x^2 + y^2)
    y, x = op.inputs
    with _after(grad):
        grad_inv = grad / (arith.square(y) + arith.square(x))
        gy = x * grad_inv
        gx = -y * grad_inv
        return reduce_gradient_args(y, x, gy, gx)


def _x_op_grad(op, grad, partials):
    """Gradient of Xlogy/Xlog1py/Xdivy: `partials(not_zero_x, x, y)` gives (dz/dx, dz/dy)."""
    x, y = op.inputs
    sx = shape.shape(x)
    sy = shape.shape(y)
    rx, ry = broadcast_gradient_args(sx, sy)
    with _after(grad):
        zero = cast.cast(0., dtype=x.dtype.base_dtype)
        not_zero_x = cast.cast(arith.not_equal(x, zero), dtype=x.dtype.base_dtype)
        partial_x, partial_y = partials(not_zero_x, x, y)
        return (shape.reshape(reductions.reduce_sum(partial_x * grad, rx), sx),
                shape.reshape(reductions.reduce_sum(partial_y * grad, ry), sy))


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
                                                  _op("Xdivy", x=arith.negative(x),
                                                      y=y ** 2)))


@RegisterGradient("Polygamma")
def _polygamma_grad(op, grad):
    # d psi^(n)(x) / dx = psi^(n+1)(x); the order n gets no gradient.
    n, x = op.inputs
    sn = shape.shape(n)
    sx = shape.shape(x)
    _, rx = broadcast_gradient_args(sn, sx)
    with _after(grad):
        n = arith.conj(n)
        x = arith.conj(x)
        partial_x = arith.polygamma(n + 1, x)
        return None, shape.reshape(reductions.reduce_sum(partial_x * grad, rx), sx)


for _op_type in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual",
                 "LogicalAnd", "LogicalOr", "LogicalNot", "BitwiseAnd", "BitwiseOr",
                 "BitwiseXor", "Invert"):
    NotDifferentiable(_op_type)
