"""The normal distribution's special functions as graph ops: ndtr, log_ndtr (an
asymptotic series in the far lower tail), ndtri (Cephes' rational approximations), and
the Laplace log cdf."""
import numpy as np

from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops

__all__ = ["ndtr", "ndtri", "log_ndtr", "log_cdf_laplace"]

# Where log_ndtr switches from log(ndtr(x)) to the series (below) and to -ndtr(-x)
# (above), per dtype.
_LOG_NDTR_SEGMENTS = {np.float32: (np.float32(-10), np.float32(5)),
                      np.float64: (np.float64(-20), np.float64(8))}


def _check_float(x, what):
    if x.dtype.as_numpy_dtype not in (np.float32, np.float64):
        raise TypeError("%s.dtype=%s is not handled, see docstring for supported types."
                        % (what, x.dtype))


def ndtr(x, name="ndtr"):
    """The standard normal cdf, from erf near 0 and erfc in the tails."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        _check_float(x, "x")
        return _ndtr(x)


def _ndtr(x):
    half_sqrt_2 = constant(0.5 * np.sqrt(2.0), dtype=x.dtype, name="half_sqrt_2")
    w = x * half_sqrt_2
    z = math_ops.abs(w)
    y = array_ops.where_v2(
        math_ops.less(z, half_sqrt_2), 1.0 + math_ops.erf(w),
        array_ops.where_v2(math_ops.greater(w, 0.0), 2.0 - math_ops.erfc(z),
                           math_ops.erfc(z)))
    return 0.5 * y


def log_ndtr(x, series_order=3, name="log_ndtr"):
    """log(ndtr(x)), accurate far into both tails."""
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        segments = _LOG_NDTR_SEGMENTS.get(x.dtype.as_numpy_dtype)
        if segments is None:
            raise TypeError("x.dtype=%s is not supported." % x.dtype)
        lower, upper = segments
        return array_ops.where_v2(
            math_ops.greater(x, upper), -_ndtr(-x),
            array_ops.where_v2(math_ops.greater(x, lower),
                               math_ops.log(_ndtr(math_ops.maximum(x, lower))),
                               _log_ndtr_lower(math_ops.minimum(x, lower), series_order)))


def _log_ndtr_lower(x, series_order):
    x_2 = math_ops.square(x)
    log_scale = -0.5 * x_2 - math_ops.log(-x) - 0.5 * np.log(2.0 * np.pi)
    return log_scale + math_ops.log(_asymptotic_series(x, series_order))


def _asymptotic_series(x, series_order):
    """1 - 1/x^2 + 3/x^4 - 15/x^6 ..., summed as even and odd terms apart."""
    np_dtype = x.dtype.as_numpy_dtype
    if series_order <= 0:
        return np.array(1, np_dtype)
    x_2 = math_ops.square(x)
    even_sum = array_ops.zeros_like(x)
    odd_sum = array_ops.zeros_like(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = np.array(np.prod(np.arange(2 * n - 1, 1, -2)), np_dtype) / x_2n
        if n % 2:
            odd_sum += y
        else:
            even_sum += y
        x_2n *= x_2
    return 1.0 + even_sum - odd_sum


# Cephes' ndtri coefficients: p0/q0 for |p - 1/2| <= 1/2 - exp(-2), p1/q1 and p2/q2 in the
# tails (z = sqrt(-2 log p) below and above 8); highest power first.
_P0 = [-1.23916583867381258016e0, 1.39312609387279679503e1, -5.66762857469070293439e1,
       9.80010754185999661536e1, -5.99633501014107895267e1]
_Q0 = [-1.18331621121330003142e0, 1.59056225126211695515e1, -8.20372256168333339912e1,
       2.00260212380060660359e2, -2.25462687854119370527e2, 8.63602421390890590575e1,
       4.67627912898881538453e0, 1.95448858338141759834e0, 1.0]
_P1 = [-8.57456785154685413611e-4, -3.50424626827848203418e-2, -1.40256079171354495875e-1,
       2.18663306850790267539e0, 1.46849561928858024014e1, 4.40805073893200834700e1,
       5.71628192246421288162e1, 3.15251094599893866154e1, 4.05544892305962419923e0]
_Q1 = [-9.33259480895457427372e-4, -3.80806407691578277194e-2, -1.42182922854787788574e-1,
       2.50464946208309415979e0, 1.50425385692907503408e1, 4.13172038254672030440e1,
       4.53907635128879210584e1, 1.57799883256466749731e1, 1.0]
_P2 = [6.23974539184983293730e-9, 2.65806974686737550832e-6, 3.01581553508235416007e-4,
       1.23716634817820021358e-2, 2.01485389549179081538e-1, 1.33303460815807542389e0,
       3.93881025292474443415e0, 6.91522889068984211695e0, 3.23774891776946035970e0]
_Q2 = [6.79019408009981274425e-9, 2.89247864745380683936e-6, 3.28014464682127739104e-4,
       1.34204006088543189037e-2, 2.16236993594496635890e-1, 1.37702099489081330271e0,
       3.67983563856160859403e0, 6.02427039364742014255e0, 1.0]


def _polynomial(var, coeffs):
    """coeffs[0] + var * (coeffs[1] + var * (...)), as TF nests it."""
    coeffs = np.array(coeffs, var.dtype.as_numpy_dtype)
    if not coeffs.size:
        return array_ops.zeros_like(var)
    return coeffs[0] + _polynomial(var, coeffs[1:]) * var


def ndtri(p, name="ndtri"):
    """The inverse of ndtr: the standard normal quantile of `p`."""
    with name_scope(name, values=[p]):
        p = convert_to_tensor(p, name="p")
        _check_float(p, "p")
        return _ndtri(p)


def _ndtri(p):
    np_dtype = p.dtype.as_numpy_dtype
    mcp = array_ops.where_v2(p > -np.expm1(-2.0), 1.0 - p, p)
    mcp = array_ops.where_v2(mcp <= 0.0,
                             array_ops.fill(array_ops.shape(p), np.array(0.5, np_dtype)), mcp)
    w = mcp - 0.5
    ww = w ** 2
    x_big = w + w * ww * (_polynomial(ww, _P0) / _polynomial(ww, _Q0))
    x_big *= -np.sqrt(2.0 * np.pi)
    z = math_ops.sqrt(-2.0 * math_ops.log(mcp))
    first = z - math_ops.log(z) / z
    x_small = first - _polynomial(1.0 / z, _P2) / _polynomial(1.0 / z, _Q2) / z
    x_other = first - _polynomial(1.0 / z, _P1) / _polynomial(1.0 / z, _Q1) / z
    x = array_ops.where_v2(mcp > np.exp(-2.0), x_big,
                           array_ops.where_v2(z >= 8.0, x_small, x_other))
    x = array_ops.where_v2(p > 1.0 - np.exp(-2.0), x, -x)
    infinity = array_ops.fill(array_ops.shape(p), constant(np.inf, dtype=p.dtype))
    return array_ops.where_v2(p <= 0.0, -infinity,
                              array_ops.where_v2(p >= 1.0, infinity, x))


def log_cdf_laplace(x, name="log_cdf_laplace"):
    """log of the standard Laplace cdf, stable in both tails."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        lower = -np.log(2.0) + x
        upper = math_ops.log1p(-0.5 * math_ops.exp(-math_ops.abs(x)))
        return array_ops.where_v2(x < 0.0, lower, upper)
