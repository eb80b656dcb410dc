"""The math family as TensorFlow's `math_ops` module shows it: the functions of `arith`,
the reductions, scans and segments, tensordot and complex, and the names TF's module
takes from the array family (cast, range ...). Importing it installs the Tensor operators
(`overloads`) and registers the gradients of the math ops. The faces import from here;
nothing inside ops does.
"""
from trainflow._src.ops.array.cast import (  # noqa: F401 - TF's math_ops names these too
    cast, to_bfloat16, to_double, to_float, to_int32, to_int64)
from trainflow._src.ops.array.saturate import saturate_cast  # noqa: F401
from trainflow._src.ops.array.create import lin_space, linspace, range  # noqa: F401,A004
from trainflow._src.ops.math.argmax_scan import (  # noqa: F401
    arg_max, arg_min, argmax, argmin, cumprod, cumsum)
from trainflow._src.ops.math.arith import abs, pow, round  # noqa: F401,A004 - TF's names
from trainflow._src.ops.math.arith import (  # noqa: F401
    accumulate_n, acos, acosh, add, add_n, asin, asinh, atan, atan2, atanh, bitwise_and,
    bitwise_or, bitwise_xor, ceil, conj, cos,
    cosh, digamma, div, div_no_nan, divide, equal, erf, erfc, exp, expm1, floor, floor_div,
    floordiv, floormod, greater, greater_equal, imag, invert, is_finite, is_inf, is_nan, less,
    less_equal, lgamma, log, log1p, log_sigmoid, logical_and, logical_not, logical_or,
    logical_xor, matmul, maximum, minimum, mod, mul, multiply, multiply_no_nan, neg, negative,
    not_equal, polygamma, qr, real, realdiv, reciprocal, reciprocal_no_nan, rint, rsqrt,
    scalar_mul, sigmoid, sign, sin, sinh, sqrt, square, squared_difference, sub, subtract, tan,
    tanh, truediv, truncatediv, truncatemod, xdivy, xlog1py, xlogy, _cast, _out)
from trainflow._src.ops.math.complex_ops import complex  # noqa: F401,A004
from trainflow._src.ops.math.reductions import (  # noqa: F401
    count_nonzero, reduce_all, reduce_any, reduce_euclidean_norm, reduce_logsumexp, reduce_max,
    reduce_mean, reduce_min, reduce_prod, reduce_std, reduce_sum, reduce_variance)
from trainflow._src.ops.math.segment import (  # noqa: F401
    segment_max, segment_mean, segment_min, segment_prod, segment_sum, unsorted_segment_max,
    unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sum)
from trainflow._src.ops.math.tensordot import tensordot  # noqa: F401
from trainflow._src.ops.math.sort_ops import argsort, searchsorted, sort  # noqa: F401
from trainflow._src.ops.math.histogram_ops import (  # noqa: F401
    bincount, histogram_fixed_width, histogram_fixed_width_bins)
from trainflow._src.ops.math import overloads  # noqa: F401 - installs Tensor operators
from trainflow._src.ops.math import (  # noqa: F401 - the gradients of the math ops
    binary_grad, matmul_grad, reductions_grad, segment_grad, unary_grad)
from trainflow._src.ops.math.reductions_grad import reduced_shape  # noqa: F401

__all__ = [
    "abs", "accumulate_n", "acos", "acosh", "add", "add_n", "arg_max", "arg_min", "argmax",
    "argmin", "argsort", "bincount", "histogram_fixed_width", "histogram_fixed_width_bins",
    "searchsorted", "sort", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "complex",
    "conj", "cos",
    "cosh", "count_nonzero", "cumprod", "cumsum", "digamma", "div", "div_no_nan", "divide",
    "equal", "erf", "erfc", "exp", "expm1", "floor", "floor_div", "floordiv", "floormod",
    "greater", "greater_equal", "imag", "is_finite", "is_inf", "is_nan", "less", "less_equal",
    "lgamma", "log", "log1p", "log_sigmoid", "logical_and", "logical_not", "logical_or",
    "logical_xor", "matmul", "maximum", "minimum", "mod", "mul", "multiply", "neg", "negative",
    "not_equal", "polygamma", "pow", "qr", "real", "realdiv", "reciprocal", "reduce_all",
    "reduce_any", "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod",
    "reduce_sum", "rint", "round", "rsqrt", "scalar_mul", "segment_max", "segment_mean",
    "segment_min", "segment_prod", "segment_sum", "sigmoid", "sign", "sin", "sinh", "sqrt",
    "square", "squared_difference", "sub", "subtract", "tan", "tanh", "tensordot", "truediv",
    "truncatediv", "truncatemod", "unsorted_segment_max", "unsorted_segment_min",
    "unsorted_segment_prod", "unsorted_segment_sum",
]
