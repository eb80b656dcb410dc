"""The tf.math namespace: TF's names, aliases of the top-level functions, lazy
look-up of names that other areas implement."""
import pytest

import trainflow as tf_root
import trainflow.compat.v1 as tf
from trainflow._src.ops.nn import nn_ops

# tf.compat.v1.math names of TensorFlow 2.21 that the math area implements.
TF_MATH_NAMES = [
    "abs", "accumulate_n", "acos", "acosh", "add", "add_n", "argmax", "argmin", "asin",
    "asinh", "atan", "atan2", "atanh", "ceil", "conj", "cos", "cosh", "count_nonzero",
    "cumprod", "cumsum", "digamma", "divide", "divide_no_nan", "equal", "erf", "erfc", "exp",
    "expm1", "floor", "floordiv", "floormod", "greater", "greater_equal", "imag", "is_finite",
    "is_inf", "is_nan", "less", "less_equal", "lgamma", "log", "log1p", "log_sigmoid",
    "logical_and", "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "mod",
    "multiply", "multiply_no_nan", "negative", "not_equal", "pow", "real", "reciprocal",
    "reciprocal_no_nan", "reduce_all", "reduce_any", "reduce_euclidean_norm",
    "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod", "reduce_std",
    "reduce_sum", "reduce_variance", "rint", "round", "rsqrt", "scalar_mul", "segment_max",
    "segment_mean", "segment_min", "segment_prod", "segment_sum", "sigmoid", "sign", "sin",
    "sinh", "sqrt", "square", "squared_difference", "subtract", "tan", "tanh", "truediv",
    "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
    "unsorted_segment_sum", "xdivy", "xlog1py", "xlogy",
]


@pytest.mark.parametrize("name", TF_MATH_NAMES)
def test_tf_math_name_exists(name):
    assert callable(getattr(tf.math, name))


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "reduce_sum", "argmax",
                                  "cumsum", "sigmoid", "floormod", "equal", "logical_xor"])
def test_same_function_as_top_level(name):
    assert getattr(tf.math, name) is getattr(tf, name)


def test_tf2_style_aliases():
    assert tf.math.divide_no_nan is tf.div_no_nan
    assert tf.math.mod is tf.floormod
    assert tf_root.math is tf.math


def test_unknown_name_raises_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'frobnicate'"):
        tf.math.frobnicate  # noqa: B018


def test_names_of_other_areas_resolve_from_their_modules(monkeypatch):
    sentinel = object()
    monkeypatch.setattr(nn_ops, "zero_fraction", sentinel, raising=False)
    monkeypatch.delitem(vars(tf.math), "zero_fraction", raising=False)
    assert tf.math.zero_fraction is sentinel
    monkeypatch.delitem(vars(tf.math), "zero_fraction", raising=False)
