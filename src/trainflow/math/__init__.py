"""`tf.math`: element-wise math, reductions, segment reductions and friends, with
TensorFlow's `tf.math.*` names (TF1 and TF2-style aliases such as
`tf.math.add`, `tf.math.floormod`, `tf.math.reduce_std`).

Math functions owned by other areas (softmax, top_k, softplus, cast-like helpers
...) are looked up in the top-level namespace on first use.
"""
from trainflow._src.ops.math.math_ops import (  # noqa: F401
    abs, accumulate_n, acos, acosh, add, add_n, argmax, argmin, asin, asinh, atan, atan2,
    atanh, ceil, conj, cos, cosh, count_nonzero, cumprod,
    cumsum, digamma, div_no_nan, divide, equal, erf, erfc, exp, expm1, floor, floordiv,
    floormod, greater, greater_equal, imag, is_finite, is_inf, is_nan, less,
    less_equal, lgamma, log, log1p, log_sigmoid, logical_and, logical_not, logical_or,
    logical_xor, maximum, minimum, mod, multiply, multiply_no_nan, negative, not_equal, pow,
    real, realdiv, reciprocal, reciprocal_no_nan, reduce_all, reduce_any,
    reduce_euclidean_norm, reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod,
    reduce_std, reduce_sum, reduce_variance, rint, round, rsqrt, scalar_mul, segment_max,
    segment_mean, segment_min, segment_prod, segment_sum, sigmoid, sign, sin, sinh, sqrt,
    square, squared_difference, subtract, tan, tanh, truediv, truncatediv, truncatemod,
    unsorted_segment_max, unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sum,
    xdivy, xlog1py, xlogy)
from trainflow._src.ops.math.math_ops import div_no_nan as divide_no_nan  # noqa: F401
from trainflow._src.ops.math.math_ops import complex, polygamma  # noqa: F401,A004
from trainflow._src.ops.math.cumulative_logsumexp import cumulative_logsumexp  # noqa: F401
from trainflow._src.ops.math.special_gamma import igamma, igammac, zeta  # noqa: F401
from trainflow._src.ops.math.sparse_segment import (  # noqa: F401
    unsorted_segment_mean, unsorted_segment_sqrt_n)

# TensorFlow's other tf.math names, implemented outside the math area.
_ELSEWHERE = frozenset([
    "angle", "bincount", "confusion_matrix", "in_top_k",
    "invert_permutation", "is_non_decreasing", "is_strictly_increasing", "l2_normalize",
    "lbeta", "log_softmax", "polyval", "softmax", "softplus", "softsign", "top_k",
    "zero_fraction",
])


def _lookup(holder, name):
    try:
        return getattr(holder, name, None)
    except ImportError:  # a lazily loaded sub-namespace that is not there
        return None


def __getattr__(name):
    if name in _ELSEWHERE:
        import trainflow
        for holder in (trainflow, _lookup(trainflow, "nn"), _lookup(trainflow, "debugging")):
            value = _lookup(holder, name) if holder is not None else None
            if value is not None:
                globals()[name] = value
                return value
    raise AttributeError(f"module 'trainflow.math' has no attribute '{name}'")
