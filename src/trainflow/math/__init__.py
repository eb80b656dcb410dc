"""`tf.math`: element-wise math, reductions, segment reductions and friends, with
TensorFlow's `tf.math.*` names (TF1 and TF2-style aliases such as
`tf.math.add`, `tf.math.floormod`, `tf.math.reduce_std`).

Math functions implemented outside the math area (softmax, top_k, softplus ...) load
on first use, from the modules named in `_ELSEWHERE`.
"""
import importlib as _importlib

from trainflow._src.ops.math.math_ops import (  # noqa: F401
    abs, accumulate_n, acos, acosh, add, add_n, argmax, argmin, asin, asinh, atan, atan2,
    atanh, ceil, conj, cos, cosh, count_nonzero, cumprod, cumsum, digamma, divide, equal,
    erf, erfc, exp, expm1, floor, floordiv, floormod, greater, greater_equal, imag,
    is_finite, is_inf, is_nan, less, less_equal, lgamma, log, log1p, log_sigmoid,
    logical_and, logical_not, logical_or, logical_xor, maximum, minimum, mod, multiply,
    multiply_no_nan, negative, not_equal, pow, real, reciprocal, reciprocal_no_nan,
    reduce_all, reduce_any, reduce_euclidean_norm, reduce_logsumexp, reduce_max,
    reduce_mean, reduce_min, reduce_prod, reduce_std, reduce_sum, reduce_variance, rint,
    round, rsqrt, scalar_mul, segment_max, segment_mean, segment_min, segment_prod,
    segment_sum, sigmoid, sign, sin, sinh, sqrt, square, squared_difference, subtract, tan,
    tanh, truediv, unsorted_segment_max, unsorted_segment_min, unsorted_segment_prod,
    unsorted_segment_sum, xdivy, xlog1py, xlogy)
from trainflow._src.ops.math.math_ops import div_no_nan as divide_no_nan  # noqa: F401
from trainflow._src.ops.math.math_ops import bincount  # noqa: F401
from trainflow._src.ops.math.bessel import (  # noqa: F401
    bessel_i0, bessel_i0e, bessel_i1, bessel_i1e)
from trainflow._src.ops.math.lbeta import lbeta  # noqa: F401
from trainflow._src.ops.math.math_ops import polygamma  # noqa: F401
from trainflow._src.ops.math.cumulative_logsumexp import cumulative_logsumexp  # noqa: F401
from trainflow._src.ops.math.special_gamma import igamma, igammac, zeta  # noqa: F401
from trainflow._src.ops.math.betainc import betainc  # noqa: F401
from trainflow._src.ops.math.sparse_segment import (  # noqa: F401
    unsorted_segment_mean, unsorted_segment_sqrt_n)

# TensorFlow's other tf.math names: name -> the module that defines it.
_ELSEWHERE = {
    "confusion_matrix": "trainflow._src.metrics.metrics_util",
    "in_top_k": "trainflow._src.ops.nn.nn_ops",
    "invert_permutation": "trainflow._src.ops.array.gather",
    "is_non_decreasing": "trainflow._src.ops.control_flow.check_ops",
    "is_strictly_increasing": "trainflow._src.ops.control_flow.check_ops",
    "l2_normalize": "trainflow._src.ops.nn.norm",
    "log_softmax": "trainflow._src.ops.nn.softmax",
    "softmax": "trainflow._src.ops.nn.softmax",
    "softplus": "trainflow._src.ops.nn.activation",
    "softsign": "trainflow._src.ops.nn.activation",
    "top_k": "trainflow._src.ops.nn.nn_ops",
    "zero_fraction": "trainflow._src.ops.nn.nn_ops",
}


def __getattr__(name):
    if name not in _ELSEWHERE:
        raise AttributeError(f"module 'trainflow.math' has no attribute '{name}'")
    value = getattr(_importlib.import_module(_ELSEWHERE[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_ELSEWHERE))
