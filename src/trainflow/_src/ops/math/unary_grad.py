"""Gradients of the element-wise unary math ops, and the *Grad op types they use.

`TanhGrad`, `SigmoidGrad`, `SqrtGrad`, `RsqrtGrad`, `ReciprocalGrad` and
`InvGrad` are registered here with their kernels and their own gradients, so
second derivatives (`tf.hessians`) work. Each gradient builds the graph
TensorFlow builds (same op types, same order, so the same names); for complex
inputs the gradient is taken in the conjugate direction, as in TensorFlow.

Imported at the end of `math_ops` (the gradient code calls the public math and
array functions, which must exist first).
"""
import numpy as np

from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.array import create
from trainflow._src.framework import constant_op
from trainflow._src.ops.math import arith
from trainflow._src.ops.math.shapes import merge_all_shape_fn

_GRAD_TYPES = "{bfloat16, half, float, double, complex64, complex128}"


# -- the *Grad op types: z = f(y, dy) -------------------------------------------------------
# The gradient functions pass conj(y) to TanhGrad/SigmoidGrad, while SqrtGrad, RsqrtGrad
# and ReciprocalGrad conjugate y themselves; these three also give 0 wherever dy is 0
# (even where y is inf or nan), as TensorFlow's kernels do.
def _conj(v):
    return np.conjugate(v) if v.dtype.kind == "c" else v


def _zero_where_no_gradient(dy, z):
    return np.where(dy == 0, np.zeros((), z.dtype), z)


def _tanh_grad(y, dy):
    return dy * (y.dtype.type(1) - y * y)


def _sigmoid_grad(y, dy):
    return dy * y * (y.dtype.type(1) - y)


def _sqrt_grad(y, dy):
    with np.errstate(divide="ignore", invalid="ignore"):
        return _zero_where_no_gradient(dy, y.dtype.type(0.5) * dy / _conj(y))


def _rsqrt_grad(y, dy):
    cy = _conj(y)
    with np.errstate(over="ignore", invalid="ignore"):
        return _zero_where_no_gradient(dy, y.dtype.type(-0.5) * (dy * cy) * (cy * cy))


def _reciprocal_grad(y, dy):
    cy = _conj(y)
    with np.errstate(over="ignore", invalid="ignore"):
        return _zero_where_no_gradient(dy, -(cy * cy) * dy)


def _register_grad_op(op_type, kernel):
    register_op(op_type, inputs=["y: T", "dy: T"], outputs=["z: T"],
                attrs=[f"T: {_GRAD_TYPES}"], shape_fn=merge_all_shape_fn, kernel=kernel)


_register_grad_op("TanhGrad", _tanh_grad)
_register_grad_op("SigmoidGrad", _sigmoid_grad)
_register_grad_op("SqrtGrad", _sqrt_grad)
_register_grad_op("RsqrtGrad", _rsqrt_grad)
_register_grad_op("ReciprocalGrad", _reciprocal_grad)
_register_grad_op("InvGrad", _reciprocal_grad)


def _grad_op(op_type, y, dy):
    return arith._out(op_type, None, y=y, dy=dy)


def _after(grad):
    """Ops created in this context run after `grad` is computed (TF's control edge)."""
    return grad.graph.control_dependencies([grad])


# -- gradients of the *Grad ops ---------------------------------------------------------------
def _reciprocal_grad_grad(op, grad):
    # z = -b * conj(a)^2
    b = op.inputs[1]
    with _after(grad):
        ca = arith.conj(op.inputs[0])
        cg = arith.conj(grad)
        return cg * -2.0 * b * ca, _grad_op("ReciprocalGrad", ca, grad)


RegisterGradient("ReciprocalGrad")(_reciprocal_grad_grad)
RegisterGradient("InvGrad")(_reciprocal_grad_grad)


@RegisterGradient("SqrtGrad")
def _sqrt_grad_grad(op, grad):
    # z = 0.5 * b / conj(a)
    a = op.inputs[0]
    y = op.outputs[0]
    with _after(grad):
        ga = grad / a
        return -arith.conj(ga) * y, 0.5 * ga


@RegisterGradient("RsqrtGrad")
def _rsqrt_grad_grad(op, grad):
    # z = -0.5 * b * conj(a)^3
    a, b = op.inputs[0], op.inputs[1]
    with _after(grad):
        ca = arith.conj(a)
        cg = arith.conj(grad)
        grad_a = -1.5 * cg * b * arith.square(ca)
        grad_b = _grad_op("RsqrtGrad", ca, grad)
        return grad_a, grad_b


@RegisterGradient("TanhGrad")
def _tanh_grad_grad(op, grad):
    # z = b * (1 - a^2)
    with _after(grad):
        a = arith.conj(op.inputs[0])
        b = arith.conj(op.inputs[1])
        return grad * -2.0 * b * a, _grad_op("TanhGrad", a, grad)


@RegisterGradient("SigmoidGrad")
def _sigmoid_grad_grad(op, grad):
    # z = b * a * (1 - a)
    with _after(grad):
        a = arith.conj(op.inputs[0])
        b = arith.conj(op.inputs[1])
        gb = grad * b
        return gb - 2.0 * gb * a, _grad_op("SigmoidGrad", a, grad)


# -- gradients through the op's output ----------------------------------------------------------
def _reciprocal_op_grad(op, grad):
    return _grad_op("ReciprocalGrad", op.outputs[0], grad)


RegisterGradient("Reciprocal")(_reciprocal_op_grad)
RegisterGradient("Inv")(_reciprocal_op_grad)


@RegisterGradient("Sqrt")
def _sqrt_op_grad(op, grad):
    return _grad_op("SqrtGrad", op.outputs[0], grad)


@RegisterGradient("Rsqrt")
def _rsqrt_op_grad(op, grad):
    return _grad_op("RsqrtGrad", op.outputs[0], grad)


@RegisterGradient("Tanh")
def _tanh_op_grad(op, grad):
    with _after(grad):
        y = arith.conj(op.outputs[0])
        return _grad_op("TanhGrad", y, grad)


@RegisterGradient("Sigmoid")
def _sigmoid_op_grad(op, grad):
    with _after(grad):
        y = arith.conj(op.outputs[0])
        return _grad_op("SigmoidGrad", y, grad)


@RegisterGradient("Exp")
def _exp_grad(op, grad):
    with _after(grad):
        y = arith.conj(op.outputs[0])
        return grad * y


@RegisterGradient("Asinh")
def _asinh_grad(op, grad):
    # d asinh(x) = 1 / cosh(asinh(x))
    with _after(grad):
        y = arith.conj(op.outputs[0])
        return grad / arith.cosh(y)


@RegisterGradient("Acosh")
def _acosh_grad(op, grad):
    # d acosh(x) = 1 / sinh(acosh(x))
    with _after(grad):
        y = arith.conj(op.outputs[0])
        return grad / arith.sinh(y)


# -- gradients through the op's input -------------------------------------------------------------
@RegisterGradient("Neg")
def _neg_grad(op, grad):
    return -grad


@RegisterGradient("Abs")
def _abs_grad(op, grad):
    return grad * arith.sign(op.inputs[0])


@RegisterGradient("Sign")
def _sign_grad(op, grad):
    # Zero almost everywhere (TF returns zeros, not None).
    return create.zeros_like(op.inputs[0])


@RegisterGradient("Square")
def _square_grad(op, grad):
    with _after(grad):
        x = arith.conj(op.inputs[0])
        two = constant_op.constant(2.0, dtype=x.dtype.base_dtype)
        return arith.multiply(grad, arith.multiply(x, two))


def _chain_rule(derivative):
    """The gradient grad * derivative(conj(x)) of an element-wise function of x."""
    def grad_fn(op, grad):
        with _after(grad):
            return grad * derivative(arith.conj(op.inputs[0]))
    return grad_fn


# d/dx of each element-wise function, as a function of (conjugated) x.
for _op_type, _derivative in (
        ("Expm1", arith.exp),
        ("Log", arith.reciprocal),
        ("Log1p", lambda x: arith.reciprocal(1 + x)),
        ("Sinh", arith.cosh),
        ("Cosh", arith.sinh),
        ("Sin", arith.cos),
        ("Lgamma", arith.digamma)):
    RegisterGradient(_op_type)(_chain_rule(_derivative))


@RegisterGradient("Cos")
def _cos_grad(op, grad):
    with _after(grad):
        x = arith.conj(op.inputs[0])
        return -grad * arith.sin(x)


@RegisterGradient("Tan")
def _tan_grad(op, grad):
    # d tan(x) = sec(x)^2
    with _after(grad):
        x = arith.conj(op.inputs[0])
        sec_x = arith.reciprocal(arith.cos(x))
        return arith.square(sec_x) * grad


def _one_minus_square(x, grad):
    x2 = arith.square(x)
    one = constant_op.constant(1, dtype=grad.dtype.base_dtype)
    return arith.subtract(one, x2)


@RegisterGradient("Asin")
def _asin_grad(op, grad):
    # d asin(x) = 1 / sqrt(1 - x^2)
    with _after(grad):
        x = arith.conj(op.inputs[0])
        inv = arith.reciprocal(arith.sqrt(_one_minus_square(x, grad)))
        return grad * inv


@RegisterGradient("Acos")
def _acos_grad(op, grad):
    # d acos(x) = -1 / sqrt(1 - x^2)
    with _after(grad):
        x = arith.conj(op.inputs[0])
        inv = arith.reciprocal(arith.sqrt(_one_minus_square(x, grad)))
        return -grad * inv


@RegisterGradient("Atan")
def _atan_grad(op, grad):
    # d atan(x) = 1 / (1 + x^2)
    with _after(grad):
        x = arith.conj(op.inputs[0])
        x2 = arith.square(x)
        one = constant_op.constant(1, dtype=grad.dtype.base_dtype)
        return grad * arith.reciprocal(arith.add(one, x2))


@RegisterGradient("Atanh")
def _atanh_grad(op, grad):
    # d atanh(x) = 1 / (1 - x^2)
    with _after(grad):
        x = arith.conj(op.inputs[0])
        return grad * arith.reciprocal(_one_minus_square(x, grad))


def _erf_family_grad(op, grad, factor):
    # d erf(x) = 2 / sqrt(pi) * exp(-x^2); erfc has the opposite sign.
    scale = constant_op.constant(factor, dtype=grad.dtype.base_dtype)
    with _after(grad):
        x = arith.conj(op.inputs[0])
        return grad * scale * arith.exp(-arith.square(x))


@RegisterGradient("Erf")
def _erf_grad(op, grad):
    return _erf_family_grad(op, grad, 2 / np.sqrt(np.pi))


@RegisterGradient("Erfc")
def _erfc_grad(op, grad):
    return _erf_family_grad(op, grad, -2 / np.sqrt(np.pi))


@RegisterGradient("Digamma")
def _digamma_grad(op, grad):
    with _after(grad):
        x = arith.conj(op.inputs[0])
        one = constant_op.constant(1, dtype=x.dtype.base_dtype)
        return grad * arith.polygamma(one, x)


def _none_grad(op, grad):
    # Piecewise constant: TF registers a gradient that returns None.
    return [None]


for _op_type in ("Floor", "Ceil", "Round", "Rint"):
    RegisterGradient(_op_type)(_none_grad)
