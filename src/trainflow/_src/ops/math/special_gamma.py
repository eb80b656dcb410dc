"""Incomplete gamma and Hurwitz zeta: the Igamma, Igammac, IgammaGradA and Zeta ops
(registrations, NumPy kernels in float64, gradients).

P(a, x) comes from its power series where x < a + 1 and from the continued fraction
of Q = 1 - P elsewhere; dP/da is the series differentiated term by term. Domain
rules are Eigen's (TensorFlow's kernels): NaN for a <= 0 or x < 0, P(a, 0) = 0.
"""
import math

import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient
from trainflow._src.ops.math.cwise import binary
from trainflow._src.ops.math.special import _hurwitz_zeta
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.math import arith, reductions
from trainflow._src.ops.math.grad_util import broadcast_gradient_args
from trainflow._src.ops.math.special import digamma

__all__ = ["igamma", "igammac", "zeta"]

_EPS = 1e-16
_MAX_ITER = 100000
_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _series_terms(a, x):
    """Yields (term_n, psi(a + n + 1)) of P's series e^-x x^(a+n) / Gamma(a+n+1)."""
    log_x = np.log(x)
    log_t = a * log_x - x - _lgamma(a + 1.0)
    psi = digamma(a + 1.0)
    n = 0
    while True:
        yield np.exp(log_t), psi
        n += 1
        log_t = log_t + log_x - np.log(a + n)
        psi = psi + 1.0 / (a + n)


def _p_series(a, x):
    total = np.zeros_like(x)
    for n, (t, _) in enumerate(_series_terms(a, x)):
        total += t
        if n > 5 and np.all(t <= _EPS * total) or n > _MAX_ITER:
            return total


def _q_fraction(a, x):
    """Q(a, x) by the modified Lentz method on its continued fraction."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = np.full_like(x, 1.0 / tiny)
    d = 1.0 / b
    h = d.copy()
    for i in range(1, _MAX_ITER):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1.0 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1.0) < _EPS):
            break
    return np.exp(a * np.log(x) - x - _lgamma(a)) * h


def _p_and_q(a, x):
    """(P, Q) in float64 with Eigen's domain rules."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    p = np.full(a.shape, np.nan)
    q = np.full(a.shape, np.nan)
    ok = (a > 0) & (x >= 0) & ~np.isnan(a) & ~np.isnan(x)
    zero = ok & (x == 0)
    p[zero], q[zero] = 0.0, 1.0
    inf = ok & np.isinf(x)
    p[inf], q[inf] = 1.0, 0.0
    rest = ok & ~zero & ~inf
    use_series = rest & (x < a + 1.0)
    if use_series.any():
        p[use_series] = _p_series(a[use_series], x[use_series])
        q[use_series] = 1.0 - p[use_series]
    use_fraction = rest & ~use_series
    if use_fraction.any():
        q[use_fraction] = _q_fraction(a[use_fraction], x[use_fraction])
        p[use_fraction] = 1.0 - q[use_fraction]
    return p, q


def _igamma_grad_a64(a, x):
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x >= 0)
    out[ok & ((x == 0) | np.isinf(x))] = 0.0
    rest = ok & (x > 0) & ~np.isinf(x)
    if rest.any():
        ar, xr = a[rest], x[rest]
        log_x = np.log(xr)
        total = np.zeros_like(xr)
        size = np.zeros_like(xr)
        for n, (t, psi) in enumerate(_series_terms(ar, xr)):
            total += t * (log_x - psi)
            size += t
            if n > xr.max() + 5 and np.all(t <= _EPS * size) or n > _MAX_ITER:
                break
        out[rest] = total
    return out


def _cast_back(fn):
    def kernel(x, y):
        dt = np.result_type(x, y)
        with np.errstate(all="ignore"):
            out = fn(x, y)
        return np.asarray(out).astype(dt)
    return kernel


def _zeta64(x, q):
    x, q = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(q, np.float64))
    with np.errstate(all="ignore"):
        out = _hurwitz_zeta(np.where(x > 1, x, 2.0), q)
    out = np.where(x == 1, np.inf, out)
    out = np.where(x < 1, np.nan, out)
    # Negative non-integer q with non-integer x has no real value.
    return np.where((q < 0) & (q != np.floor(q)) & (x != np.floor(x)), np.nan, out)


binary("Igamma", "{float32, float64}", _cast_back(lambda a, x: _p_and_q(a, x)[0]),
       names=("a", "x"))
binary("Igammac", "{float32, float64}", _cast_back(lambda a, x: _p_and_q(a, x)[1]),
       names=("a", "x"))
binary("IgammaGradA", "{float32, float64}", _cast_back(_igamma_grad_a64), names=("a", "x"))
binary("Zeta", "{float32, float64}", _cast_back(_zeta64), names=("x", "q"))
NotDifferentiable("IgammaGradA")


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function P(a, x) (`Igamma`)."""
    return apply_op("Igamma", a=a, x=x, name=name).outputs[0]


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)
    (`Igammac`)."""
    return apply_op("Igammac", a=a, x=x, name=name).outputs[0]


def zeta(x, q, name=None):
    """The Hurwitz zeta function sum_k (q + k)^-x (`Zeta`)."""
    return apply_op("Zeta", x=x, q=q, name=name).outputs[0]


def _reduce_to(grad, axes, shape):
    return shape_lib.reshape(reductions.reduce_sum(grad, axes), shape)


@RegisterGradient("Igamma")
def _igamma_grad(op, grad):
    a, x = op.inputs
    sa, sx = shape_lib.shape(a), shape_lib.shape(x)
    ra, rx = broadcast_gradient_args(sa, sx)
    with op.graph.control_dependencies([grad]):
        partial_a = apply_op("IgammaGradA", a=a, x=x).outputs[0]
        # d/dx P = x^(a-1) e^-x / Gamma(a), in log space against overflow.
        partial_x = arith.exp(-x + (a - 1) * arith.log(x) - arith.lgamma(a))
        return _reduce_to(partial_a * grad, ra, sa), _reduce_to(partial_x * grad, rx, sx)


@RegisterGradient("Igammac")
def _igammac_grad(op, grad):
    ga, gx = _igamma_grad(op, grad)
    return -ga, -gx


@RegisterGradient("Zeta")
def _zeta_grad(op, grad):
    # d/dq zeta(x, q) = -x zeta(x + 1, q); TensorFlow has no derivative in x either.
    x, q = op.inputs
    sx, sq = shape_lib.shape(x), shape_lib.shape(q)
    _, rq = broadcast_gradient_args(sx, sq)
    with op.graph.control_dependencies([grad]):
        partial_q = -x * zeta(x + 1, q)
        return None, _reduce_to(partial_q * grad, rq, sq)
