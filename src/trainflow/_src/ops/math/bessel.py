"""BesselI0, BesselI1, BesselI0e and BesselI1e: the modified Bessel functions of the
first kind of orders 0 and 1 and their exponentially scaled forms (`tf.math.bessel_*`;
`tf.signal.kaiser_window` uses I0e): registrations, NumPy kernels (power series, the
asymptotic series for |x| > 30), gradients."""
import math

import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.ops.math import arith
from trainflow._src.framework.shape_inference import unchanged_shape
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather as gather_ops

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]

_TYPES = "T: {bfloat16, half, float, double}"


def _scaled(order, x):
    """I_order(|x|) exp(-|x|) in float64."""
    a = np.abs(np.asarray(x, np.float64))
    out = np.empty_like(a)
    small = a <= 30.0
    s = a[small]
    term = (s / 2.0) ** order / math.factorial(order)
    total = term.copy()
    for k in range(1, 120):
        term = term * (s / 2.0) ** 2 / (k * (k + order))
        total = total + term
    out[small] = total * np.exp(-s)
    big = a[~small]
    mu = 4.0 * order * order
    coef, series = np.ones_like(big), np.ones_like(big)
    for k in range(1, 12):
        coef = coef * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * big)
        series = series + coef
    out[~small] = series / np.sqrt(2.0 * np.pi * big)
    return out


def _i0e_kernel(x):
    return _scaled(0, x).astype(x.dtype)


def _i1e_kernel(x):
    return (np.sign(np.asarray(x, np.float64)) * _scaled(1, x)).astype(x.dtype)


def _i0_kernel(x):
    a = np.abs(np.asarray(x, np.float64))
    return (_scaled(0, x) * np.exp(a)).astype(x.dtype)


def _i1_kernel(x):
    a = np.asarray(x, np.float64)
    return (np.sign(a) * _scaled(1, x) * np.exp(np.abs(a))).astype(x.dtype)


register_op("BesselI0", inputs=["x: T"], outputs=["y: T"], attrs=[_TYPES],
            shape_fn=unchanged_shape, kernel=_i0_kernel)
register_op("BesselI1", inputs=["x: T"], outputs=["y: T"], attrs=[_TYPES],
            shape_fn=unchanged_shape, kernel=_i1_kernel)
register_op("BesselI0e", inputs=["x: T"], outputs=["y: T"], attrs=[_TYPES],
            shape_fn=unchanged_shape, kernel=_i0e_kernel)
register_op("BesselI1e", inputs=["x: T"], outputs=["y: T"], attrs=[_TYPES],
            shape_fn=unchanged_shape, kernel=_i1e_kernel)


def bessel_i0(x, name=None):
    """I0(x) element-wise (`BesselI0`)."""
    with name_scope(name, "bessel_i0", [x]):
        return apply_op("BesselI0", x=x).outputs[0]


def bessel_i1(x, name=None):
    """I1(x) element-wise (`BesselI1`)."""
    with name_scope(name, "bessel_i1", [x]):
        return apply_op("BesselI1", x=x).outputs[0]


def bessel_i0e(x, name=None):
    """I0(x) exp(-|x|) element-wise (`BesselI0e`)."""
    with name_scope(name, "bessel_i0e", [x]):
        return apply_op("BesselI0e", x=x).outputs[0]


def bessel_i1e(x, name=None):
    """I1(x) exp(-|x|) element-wise (`BesselI1e`)."""
    with name_scope(name, "bessel_i1e", [x]):
        return apply_op("BesselI1e", x=x).outputs[0]


@RegisterGradient("BesselI0e")
def _bessel_i0e_grad(op, grad):
    with name_scope(None, "BesselI0eGrad"):
        x, y = op.inputs[0], op.outputs[0]
        return grad * (bessel_i1e(x) - arith.sign(x) * y)


@RegisterGradient("BesselI1e")
def _bessel_i1e_grad(op, grad):
    # d/dx i1e(x) = i0e(x) - y (sign(x) + 1 / x), with the limit 0.5 at x = 0.
    with name_scope(None, "BesselI1eGrad"):
        x, y = op.inputs[0], op.outputs[0]
        deriv = bessel_i0e(x) - y * arith.sign(x) - arith.div_no_nan(y, x)
        half = create.ones_like(x) * 0.5
        return grad * gather_ops.where(arith.equal(x, 0), half, deriv)


@RegisterGradient("BesselI0")
def _bessel_i0_grad(op, grad):
    with name_scope(None, "BesselI0Grad"):
        return grad * bessel_i1(op.inputs[0])


@RegisterGradient("BesselI1")
def _bessel_i1_grad(op, grad):
    # d/dx i1(x) = i0(x) - y / x; at x = 0 TF gives i0(0) = 1 (its y / x term is
    # taken as 0 there, not the limit), and so does this.
    with name_scope(None, "BesselI1Grad"):
        x, y = op.inputs[0], op.outputs[0]
        return grad * (bessel_i0(x) - arith.div_no_nan(y, x))
