"""Special functions for the Erf/Erfc/Lgamma/Digamma/Polygamma kernels.

SciPy's ufuncs are used when SciPy is installed (fast); otherwise the values
come from the C library through `math` (erf, erfc, lgamma) or from a series
(digamma). Half-precision inputs are computed in float32, the rest in their
own precision (float32 through float64), and cast back. Polygamma always uses
the Hurwitz zeta series below (computed in float64).
"""
import functools
import math

import numpy as np


@functools.lru_cache(maxsize=None)
def _scipy_special():
    try:
        from scipy import special
    except ImportError:
        return None
    return special


def _compute_dtype(x):
    """float32 for half types (float16, bfloat16), else the input's own dtype."""
    dt = x.dtype
    if dt.itemsize <= 2:
        return np.float32
    return dt


def _apply(x, scipy_name, py_fn):
    dt = x.dtype
    special = _scipy_special()
    if special is not None:
        out = getattr(special, scipy_name)(np.asarray(x, dtype=_compute_dtype(x)))
        return np.asarray(out).astype(dt, copy=False)
    wide = np.asarray(x, dtype=np.float64)
    out = np.frompyfunc(py_fn, 1, 1)(wide)
    return np.asarray(out, dtype=np.float64).astype(dt)


def _lgamma_scalar(v):
    if v <= 0 and v == math.floor(v):
        return math.inf
    return math.lgamma(v)


def erf(x):
    """Element-wise error function, in `x`'s dtype."""
    return _apply(x, "erf", math.erf)


def erfc(x):
    """Element-wise complementary error function, in `x`'s dtype."""
    return _apply(x, "erfc", math.erfc)


def lgamma(x):
    """Element-wise log |Gamma(x)| (inf at the poles), in `x`'s dtype."""
    return _apply(x, "gammaln", _lgamma_scalar)


# Asymptotic series of digamma: ln x - 1/(2x) - sum_k B_2k / (2k x^2k).
_DIGAMMA_COEFFS = (-1.0 / 12, 1.0 / 120, -1.0 / 252, 1.0 / 240, -1.0 / 132, 691.0 / 32760,
                   -1.0 / 12)


def _digamma_series(x):
    x = np.asarray(x, dtype=np.float64)
    nan_mask = (x <= 0) & (x == np.floor(x))
    reflect = x < 0.5
    z = np.where(reflect, 1.0 - x, x)
    acc = np.zeros_like(z)
    # Shift up with psi(z) = psi(z + 1) - 1/z until the series is accurate.
    for _ in range(8):
        small = z < 8.0
        if not small.any():
            break
        acc -= np.where(small, 1.0 / z, 0.0)
        z = np.where(small, z + 1.0, z)
    f = 1.0 / (z * z)
    poly = 0.0
    for c in reversed(_DIGAMMA_COEFFS):
        poly = f * (c + poly)
    res = np.log(z) - 0.5 / z + poly + acc
    with np.errstate(divide="ignore", invalid="ignore"):
        res = np.where(reflect, res - np.pi / np.tan(np.pi * x), res)
    return np.where(nan_mask, np.nan, res)


def digamma(x):
    """Element-wise digamma (derivative of lgamma; NaN at 0, -1, -2, ...)."""
    dt = x.dtype
    special = _scipy_special()
    if special is not None:
        out = special.psi(np.asarray(x, dtype=_compute_dtype(x)))
        out = np.where((x <= 0) & (x == np.floor(x)), np.nan, out)
        return np.asarray(out).astype(dt, copy=False)
    return _digamma_series(x).astype(dt)


# B_2j / (2j)! for the Euler-Maclaurin tail of the Hurwitz zeta series.
_ZETA_TAIL = (1.0 / 12, -1.0 / 720, 1.0 / 30240, -1.0 / 1209600, 1.0 / 47900160,
              -691.0 / 1307674368000, 1.0 / 74724249600)
_ZETA_TERMS = 12


def _hurwitz_zeta(s, q):
    """sum_k (q + k)^-s for integer-valued s >= 2 (float64 arrays, broadcast).

    The first terms are summed directly, shifting q past any negative part, and
    the rest is the Euler-Maclaurin tail. At q = 0, -1, -2, ... the sum diverges:
    inf for even s and NaN for odd s, as Eigen (TensorFlow's kernel) gives.
    """
    s, q = np.broadcast_arrays(np.asarray(s, np.float64), np.asarray(q, np.float64))
    pole = (q <= 0) & (q == np.floor(q))
    q = np.where(pole, 1.0, q)
    n = _ZETA_TERMS + int(np.ceil(max(0.0, -float(q.min())))) if q.size else 0
    total = np.zeros(q.shape)
    for k in range(n):
        total += (q + k) ** -s
    w = q + n
    total += w ** (1 - s) / (s - 1) + 0.5 * w ** -s
    rising = s / w ** (s + 1)  # s (s+1) ... (s+2j-2) / w^(s+2j-1), for j = 1
    for j, coef in enumerate(_ZETA_TAIL):
        total += coef * rising
        rising = rising * (s + 2 * j + 1) * (s + 2 * j + 2) / (w * w)
    return np.where(pole, np.where(np.fmod(s, 2) == 0, np.inf, np.nan), total)


def polygamma(a, x):
    """Element-wise polygamma psi^(a)(x), the a-th derivative of digamma, in x's dtype.

    `a` must hold non-negative integers (NaN elsewhere, as in TensorFlow); a = 0
    is digamma.
    """
    dt = x.dtype
    a64, x64 = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    order = np.where(a64 >= 1, a64, 2.0)
    # psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1.
    sign = np.where(np.fmod(order, 2) == 0, -1.0, 1.0)
    factorial = np.exp(np.vectorize(math.lgamma, otypes=[np.float64])(order + 1))
    with np.errstate(over="ignore", invalid="ignore"):
        out = sign * factorial * _hurwitz_zeta(order + 1, x64)
    out = np.where(a64 == 0, digamma(x64), out)
    out = np.where((a64 < 0) | (a64 != np.floor(a64)), np.nan, out)
    return np.asarray(out).astype(dt)
