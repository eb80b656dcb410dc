"""`tf.math.betainc`: the regularized incomplete beta function I_x(a, b) (the Betainc op),
from its continued fraction (modified Lentz) on the side of the mean that converges, in
float64; its gradient in x (TF gives none for a and b)."""
import math

import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.math import arith, reductions
from trainflow._src.ops.math.grad_util import broadcast_gradient_args

__all__ = ["betainc"]

_TINY = 1e-300
_EPS = 1e-16
_MAX_TERMS = 5000
_lgamma = np.frompyfunc(math.lgamma, 1, 1)


def _lgamma64(v):
    return np.asarray(_lgamma(v), dtype=np.float64)


def _fix(v):
    return np.where(np.abs(v) < _TINY, _TINY, v)


def _continued_fraction(a, b, x):
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 / _fix(1.0 - qab * x / qap)
    h = d.copy()
    for m in range(1, _MAX_TERMS + 1):
        m2 = 2.0 * m
        step = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 / _fix(1.0 + step * d)
        c = _fix(1.0 + step / c)
        h *= d * c
        step = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 / _fix(1.0 + step * d)
        c = _fix(1.0 + step / c)
        delta = d * c
        h *= delta
        if np.all(np.abs(delta - 1.0) < _EPS):
            break
    return h


def _betainc64(a, b, x):
    a, b, x = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, x)))
    out = np.full(a.shape, np.nan)
    valid = (a > 0) & (b > 0) & (x >= 0) & (x <= 1)
    out[valid & (x == 0)] = 0.0
    out[valid & (x == 1)] = 1.0
    inner = valid & (x > 0) & (x < 1)
    if inner.any():
        aa, bb, xx = a[inner], b[inner], x[inner]
        swap = xx > (aa + 1.0) / (aa + bb + 2.0)
        p, q, z = np.where(swap, bb, aa), np.where(swap, aa, bb), np.where(swap, 1 - xx, xx)
        log_front = (_lgamma64(p + q) - _lgamma64(p) - _lgamma64(q) + p * np.log(z)
                     + q * np.log1p(-z))
        value = np.exp(log_front) * _continued_fraction(p, q, z) / p
        out[inner] = np.where(swap, 1.0 - value, value)
    return out


def _betainc_kernel(a, b, x):
    dt = np.result_type(a, b, x)
    with np.errstate(all="ignore"):
        return _betainc64(a, b, x).astype(dt)


def _betainc_shape(op):
    """a, b and x: each a scalar or one common shape."""
    shapes = [t._shape for t in op._inputs]
    out = TensorShape(None)
    for s in shapes:
        if s._dims is not None and len(s._dims) == 0:
            continue
        try:
            out = out.merge_with(s)
        except ValueError:
            raise ValueError("Shapes of a, b, and x must be consistent") from None
    if out._dims is None and all(s._dims is not None for s in shapes):
        return [TensorShape([])]
    return [out]


register_op("Betainc", inputs=["a: T", "b: T", "x: T"], outputs=["z: T"],
            attrs=["T: {float32, float64}"], shape_fn=_betainc_shape, kernel=_betainc_kernel)


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b) (`Betainc`)."""
    return apply_op("Betainc", a=a, b=b, x=x, name=name).outputs[0]


@RegisterGradient("Betainc")
def _betainc_grad(op, grad):
    """dI/dx = x^(a-1) (1-x)^(b-1) / B(a, b); no gradient in a and b (as TF)."""
    a, b, x = op.inputs
    sa, sx = shape_lib.shape(a), shape_lib.shape(x)
    _, rx = broadcast_gradient_args(sa, sx)
    log_beta = arith.lgamma(a) + arith.lgamma(b) - arith.lgamma(a + b)
    # xlog1py and xlogy: the derivative tends to 0 in a tail when a or b is 1.
    partial_x = arith.exp(arith.xlog1py(b - 1, -x) + arith.xlogy(a - 1, x) - log_beta)
    return (None, None,
            shape_lib.reshape(reductions.reduce_sum(partial_x * grad, rx), sx))
