"""Every math op against NumPy: values, output dtypes, static shapes, broadcasting.

`CASES` is data: (id, graph function, sample inputs, NumPy reference, dtypes to
run, output dtype rule, op types it needs). A later issue runs the same table
through gradient checks, so keep new entries in this form.
"""
import collections
import math

import ml_dtypes
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.math import math_ops

Case = collections.namedtuple("Case", "id fn inputs ref dtypes out_dtype needs")


def case(id_, fn, inputs, ref, dtypes, out_dtype=None, needs=()):
    return Case(id_, fn, inputs, ref, dtypes, out_dtype, needs)


F16, BF16, F32, F64 = np.float16, ml_dtypes.bfloat16, np.float32, np.float64
FLOATS = (F16, BF16, F32, F64)
SIGNED_INTS = (np.int8, np.int16, np.int32, np.int64)
INTS = (np.int32, np.int64)
COMPLEX = (np.complex64, np.complex128)

GEN = [[-2.5, -1.0, -0.5], [0.0, 0.5, 3.0]]
POS = [[0.25, 1.0, 2.0], [3.5, 10.0, 0.5]]
UNIT = [[-0.9, -0.5, 0.0], [0.25, 0.5, 0.75]]
GE1 = [[1.0, 1.5, 2.0], [3.0, 10.0, 1.25]]
HALVES = [[-2.5, -1.5, -0.5], [0.5, 1.5, 2.4]]
SPECIAL = [[np.nan, np.inf, -np.inf], [0.0, -1.5, 2.0]]
INT_X = [[7, -7, 5], [-5, 0, 9]]
INT_Y = [[2, 2, -3], [-3, 4, 4]]
NONZERO_Y = [[0.5, -2.0, 4.0], [-1.5, 3.0, 0.25]]
ROW = [1.5, -2.0, 0.5]
BOOL_X = [[True, True, False], [False, True, False]]
BOOL_Y = [[True, False, True], [False, False, True]]
MAT_A = [[1.0, 2.0, -1.0], [0.5, -3.0, 2.0]]
MAT_B = [[1.0, 0.0, 2.0, -1.0], [0.5, 1.0, -2.0, 3.0], [2.0, -1.0, 0.0, 1.0]]


def _vec(fn):
    v = np.vectorize(fn, otypes=[np.float64])
    return lambda x: v(x)


def _trunc_div(x, y):
    return (np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))).astype(x.dtype)


def _int_mean(x, axis=None, keepdims=False):
    total = np.sum(x.astype(np.int64), axis=axis, keepdims=keepdims)
    n = x.size // max(np.size(total), 1)
    return np.trunc(total / n).astype(x.dtype)


def _mean_ref(axis=None, keepdims=False):
    def ref(x):
        if x.dtype.kind in "iu":
            return _int_mean(x, axis, keepdims)
        return np.mean(x, axis=axis, keepdims=keepdims)
    return ref


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _truediv_type(dt):
    return {np.int8: F32, np.int16: F32, np.uint8: F32, np.int32: F64, np.int64: F64}.get(dt, dt)


_EULER = 0.5772156649015329
_DIGAMMA = {1.0: -_EULER, 0.5: -_EULER - 2 * math.log(2), 3.0: 1.5 - _EULER,
            1.5: 2 - _EULER - 2 * math.log(2), -0.5: 2 - _EULER - 2 * math.log(2)}
_DIGAMMA_X = [[1.0, 0.5, 3.0], [1.5, -0.5, 1.0]]


def _logsumexp(axis=None, keepdims=False):
    def ref(x):
        m = np.max(x, axis=axis, keepdims=True)
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
        return out if keepdims else np.squeeze(out, axis=axis)
    return ref


def _scan(fn, axis, exclusive=False, reverse=False, identity=0):
    def ref(x):
        src = np.flip(x, axis) if reverse else x
        out = fn(src, axis=axis)
        if exclusive:
            out = np.concatenate([np.full_like(np.take(out, [0], axis=axis), identity),
                                  np.delete(out, -1, axis=axis)], axis=axis)
        return np.flip(out, axis) if reverse else out
    return ref


CASES = [
    # unary element-wise
    case("negative", tf.negative, [GEN], np.negative, FLOATS + SIGNED_INTS + COMPLEX),
    case("abs", tf.abs, [GEN], np.abs, FLOATS + SIGNED_INTS),
    case("abs_complex", tf.abs, [GEN], np.abs, COMPLEX,
         out_dtype=lambda dt: np.float32 if dt == np.complex64 else np.float64),
    case("sign", tf.sign, [GEN], np.sign, FLOATS + SIGNED_INTS),
    case("square", tf.square, [GEN], np.square, FLOATS + INTS + (np.uint8,) + COMPLEX),
    case("sqrt", tf.sqrt, [POS], np.sqrt, FLOATS + COMPLEX),
    case("rsqrt", tf.rsqrt, [POS], lambda x: 1 / np.sqrt(x), FLOATS),
    case("exp", tf.exp, [GEN], np.exp, FLOATS + COMPLEX),
    case("expm1", tf.math.expm1, [GEN], np.expm1, FLOATS),
    case("log", tf.log, [POS], np.log, FLOATS + COMPLEX),
    case("log1p", tf.log1p, [POS], np.log1p, FLOATS),
    case("sin", tf.sin, [GEN], np.sin, FLOATS),
    case("cos", tf.cos, [GEN], np.cos, FLOATS),
    case("tan", tf.tan, [UNIT], np.tan, FLOATS),
    case("asin", tf.asin, [UNIT], np.arcsin, FLOATS),
    case("acos", tf.acos, [UNIT], np.arccos, FLOATS),
    case("atan", tf.atan, [GEN], np.arctan, FLOATS),
    case("sinh", tf.sinh, [GEN], np.sinh, FLOATS),
    case("cosh", tf.cosh, [GEN], np.cosh, FLOATS),
    case("asinh", tf.asinh, [GEN], np.arcsinh, FLOATS),
    case("acosh", tf.acosh, [GE1], np.arccosh, FLOATS),
    case("atanh", tf.atanh, [UNIT], np.arctanh, FLOATS),
    case("tanh", tf.tanh, [GEN], np.tanh, FLOATS + COMPLEX),
    case("sigmoid", tf.sigmoid, [[[-30.0, -2.0, 0.0], [1.0, 5.0, 30.0]]], _sigmoid, FLOATS),
    case("log_sigmoid", tf.log_sigmoid, [GEN], lambda x: -np.log1p(np.exp(-x)), (F32, F64),
         needs=("Softplus",)),
    case("erf", tf.erf, [GEN], _vec(math.erf), FLOATS),
    case("erfc", tf.math.erfc, [GEN], _vec(math.erfc), FLOATS),
    case("lgamma", tf.lgamma, [[[0.5, -0.5, 3.0], [10.0, 1.0, 2.5]]], _vec(math.lgamma),
         FLOATS),
    case("digamma", tf.digamma, [_DIGAMMA_X], np.vectorize(lambda v: _DIGAMMA[v]), FLOATS),
    case("floor", tf.floor, [HALVES], np.floor, FLOATS),
    case("ceil", tf.ceil, [HALVES], np.ceil, FLOATS),
    case("rint", tf.rint, [HALVES], np.rint, FLOATS),
    case("round", tf.round, [HALVES], np.round, FLOATS),
    case("round_int", tf.round, [INT_X], lambda x: x, INTS),
    case("reciprocal", tf.reciprocal, [POS], np.reciprocal, FLOATS + COMPLEX),
    case("reciprocal_int", tf.reciprocal, [[[1, -1, 2], [-2, 5, 1]]],
         lambda x: _trunc_div(np.ones_like(x), x), INTS),
    case("is_nan", tf.is_nan, [SPECIAL], np.isnan, FLOATS, out_dtype=np.bool_),
    case("is_inf", tf.is_inf, [SPECIAL], np.isinf, FLOATS, out_dtype=np.bool_),
    case("is_finite", tf.is_finite, [SPECIAL], np.isfinite, FLOATS, out_dtype=np.bool_),
    case("logical_not", tf.logical_not, [BOOL_X], np.logical_not, (np.bool_,)),
    case("invert", math_ops.invert, [INT_X], np.invert, SIGNED_INTS + (np.uint8,)),
    case("conj", tf.conj, [GEN], np.conj, COMPLEX + (F32,)),
    case("real", tf.real, [GEN], np.real, COMPLEX,
         out_dtype=lambda dt: np.float32 if dt == np.complex64 else np.float64),
    case("imag", tf.imag, [GEN], np.imag, COMPLEX,
         out_dtype=lambda dt: np.float32 if dt == np.complex64 else np.float64),
    # binary arithmetic, with broadcasting against a row and a scalar
    case("add", tf.add, [GEN, NONZERO_Y], np.add, FLOATS + SIGNED_INTS + (np.uint8,) + COMPLEX),
    case("add_row", tf.add, [GEN, ROW], np.add, FLOATS),
    case("add_scalar", tf.add, [GEN, 2.0], np.add, FLOATS),
    case("add_outer", tf.add, [[[1.0], [2.0]], [[10.0, 20.0, 30.0]]], np.add, (F32,)),
    case("subtract", tf.subtract, [GEN, ROW], np.subtract, FLOATS + COMPLEX),
    case("subtract_int", tf.subtract, [INT_X, INT_Y], np.subtract, SIGNED_INTS),
    case("multiply", tf.multiply, [GEN, ROW], np.multiply, FLOATS + COMPLEX),
    case("multiply_int", tf.multiply, [INT_X, INT_Y], np.multiply, SIGNED_INTS + (np.uint8,)),
    case("truediv", tf.truediv, [GEN, NONZERO_Y], np.true_divide, FLOATS + COMPLEX),
    case("truediv_int", tf.truediv, [INT_X, INT_Y], np.true_divide,
         SIGNED_INTS, out_dtype=_truediv_type, needs=("Cast",)),
    case("divide", tf.divide, [GEN, NONZERO_Y], np.true_divide, (F32, F64)),
    case("div", tf.div, [GEN, NONZERO_Y], np.true_divide, FLOATS),
    case("div_int", tf.div, [INT_X, INT_Y], np.floor_divide, SIGNED_INTS),
    case("realdiv", tf.realdiv, [GEN, NONZERO_Y], np.true_divide, FLOATS),
    case("floordiv", tf.floordiv, [GEN, NONZERO_Y], lambda x, y: np.floor(x / y), FLOATS),
    case("floordiv_int", tf.floordiv, [INT_X, INT_Y], np.floor_divide, SIGNED_INTS),
    case("floormod", tf.floormod, [GEN, NONZERO_Y], np.remainder, (F32, F64)),
    case("floormod_int", tf.floormod, [INT_X, INT_Y], np.remainder, SIGNED_INTS),
    case("mod", tf.mod, [INT_X, INT_Y], np.remainder, INTS),
    case("truncatediv", tf.truncatediv, [INT_X, INT_Y], _trunc_div, INTS),
    case("truncatemod", tf.truncatemod, [INT_X, INT_Y], np.fmod, INTS + (F32,)),
    case("pow", tf.pow, [POS, GEN], np.power, FLOATS + (np.complex128,)),
    case("pow_int", tf.pow, [INT_X, [[2, 3, 0], [1, 2, 1]]], np.power, INTS),
    case("maximum", tf.maximum, [GEN, ROW], np.maximum, FLOATS + INTS + (np.uint8,)),
    case("minimum", tf.minimum, [GEN, ROW], np.minimum, FLOATS + INTS + (np.uint8,)),
    case("maximum_nan", tf.maximum, [SPECIAL, ROW], np.maximum, (F32,)),
    case("squared_difference", tf.squared_difference, [GEN, ROW],
         lambda x, y: (x - y) ** 2, FLOATS + INTS),
    case("atan2", tf.atan2, [GEN, NONZERO_Y], np.arctan2, FLOATS),
    case("xlogy", tf.math.xlogy, [[[0.0, 1.0, 2.0], [0.0, 3.0, 0.5]], POS],
         lambda x, y: np.where(x == 0, 0, x * np.log(y)), (F32, F64)),
    case("xlog1py", tf.math.xlog1py, [[[0.0, 1.0, 2.0], [0.0, 3.0, 0.5]], POS],
         lambda x, y: np.where(x == 0, 0, x * np.log1p(y)), (F32, F64)),
    case("xdivy", tf.math.xdivy, [[[0.0, 1.0, 2.0], [0.0, 3.0, 0.5]], [[0.0, 2.0, 4.0]]],
         lambda x, y: np.where(x == 0, 0, x / np.where(y == 0, 1, y)), (F32, F64)),
    case("div_no_nan", tf.div_no_nan, [GEN, [[0.0, 2.0, 4.0]]],
         lambda x, y: np.where(y == 0, 0, x / np.where(y == 0, 1, y)), (F32, F64)),
    case("multiply_no_nan", tf.math.multiply_no_nan, [SPECIAL, [[0.0, 2.0, 4.0]]],
         lambda x, y: np.where(y == 0, 0, x * y), (F32, F64)),
    case("scalar_mul", lambda x: tf.scalar_mul(3.0, x), [GEN], lambda x: 3.0 * x, (F32, F64)),
    # comparisons and logic
    case("equal", tf.equal, [INT_X, INT_Y], np.equal, FLOATS + INTS, out_dtype=np.bool_),
    case("equal_row", tf.equal, [[[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], ROW], np.equal, (F32,),
         out_dtype=np.bool_),
    case("not_equal", tf.not_equal, [INT_X, INT_Y], np.not_equal, FLOATS + INTS,
         out_dtype=np.bool_),
    case("less", tf.less, [GEN, ROW], np.less, FLOATS + (np.int32, np.uint8),
         out_dtype=np.bool_),
    case("less_equal", tf.less_equal, [INT_X, INT_Y], np.less_equal, FLOATS + INTS,
         out_dtype=np.bool_),
    case("greater", tf.greater, [GEN, ROW], np.greater, FLOATS + INTS, out_dtype=np.bool_),
    case("greater_equal", tf.greater_equal, [INT_X, INT_Y], np.greater_equal, FLOATS + INTS,
         out_dtype=np.bool_),
    case("logical_and", tf.logical_and, [BOOL_X, BOOL_Y], np.logical_and, (np.bool_,)),
    case("logical_or", tf.logical_or, [BOOL_X, BOOL_Y], np.logical_or, (np.bool_,)),
    case("logical_xor", tf.logical_xor, [BOOL_X, BOOL_Y], np.logical_xor, (np.bool_,)),
    case("bitwise_and", math_ops.bitwise_and, [INT_X, INT_Y], np.bitwise_and,
         SIGNED_INTS),
    case("bitwise_or", math_ops.bitwise_or, [INT_X, INT_Y], np.bitwise_or, SIGNED_INTS),
    case("bitwise_xor", math_ops.bitwise_xor, [INT_X, INT_Y], np.bitwise_xor, SIGNED_INTS),
    # reductions
    case("reduce_sum", tf.reduce_sum, [GEN], np.sum, FLOATS + INTS + COMPLEX),
    case("reduce_sum_0", lambda x: tf.reduce_sum(x, 0), [GEN], lambda x: np.sum(x, 0),
         FLOATS + INTS),
    case("reduce_sum_neg1_keep", lambda x: tf.reduce_sum(x, -1, keepdims=True), [GEN],
         lambda x: np.sum(x, -1, keepdims=True), FLOATS),
    case("reduce_sum_empty_axes", lambda x: tf.reduce_sum(x, []), [GEN], lambda x: x, (F32,)),
    case("reduce_mean", tf.reduce_mean, [GEN], _mean_ref(), FLOATS + COMPLEX),
    case("reduce_mean_int", lambda x: tf.reduce_mean(x, 1), [INT_X], _mean_ref(1),
         SIGNED_INTS + (np.uint8,)),
    case("reduce_prod", lambda x: tf.reduce_prod(x, 1), [GEN], lambda x: np.prod(x, 1),
         FLOATS + INTS),
    case("reduce_max", lambda x: tf.reduce_max(x, [0, 1], keepdims=True), [GEN],
         lambda x: np.max(x, (0, 1), keepdims=True), FLOATS + INTS + (np.uint8,)),
    case("reduce_min", lambda x: tf.reduce_min(x, 0), [GEN], lambda x: np.min(x, 0),
         FLOATS + INTS),
    case("reduce_all", lambda x: tf.reduce_all(x, 1), [BOOL_X], lambda x: np.all(x, 1),
         (np.bool_,)),
    case("reduce_any", lambda x: tf.reduce_any(x, 0), [BOOL_X], lambda x: np.any(x, 0),
         (np.bool_,)),
    case("reduce_logsumexp", tf.reduce_logsumexp, [GEN], _logsumexp(), (F32, F64),
         needs=("SelectV2", "StopGradient", "Reshape", "Shape")),
    case("reduce_logsumexp_1", lambda x: tf.reduce_logsumexp(x, 1, keepdims=True), [GEN],
         _logsumexp(1, True), (F32, F64), needs=("SelectV2", "StopGradient")),
    case("reduce_euclidean_norm", lambda x: tf.math.reduce_euclidean_norm(x, 1), [GEN],
         lambda x: np.sqrt(np.sum(x * x, 1)), FLOATS),
    case("reduce_variance", lambda x: tf.math.reduce_variance(x, 0), [GEN],
         lambda x: np.var(x, 0), (F32, F64)),
    case("reduce_std", tf.math.reduce_std, [GEN], np.std, (F32, F64)),
    case("argmax", lambda x: tf.argmax(x, 1), [GEN], lambda x: np.argmax(x, 1),
         FLOATS + INTS, out_dtype=np.int64),
    case("argmin", tf.argmin, [GEN], lambda x: np.argmin(x, 0), FLOATS + INTS,
         out_dtype=np.int64),
    case("argmax_int32", lambda x: tf.argmax(x, -1, output_type=tf.int32), [GEN],
         lambda x: np.argmax(x, -1), (F32,), out_dtype=np.int32),
    case("cumsum", lambda x: tf.cumsum(x, 1), [GEN], _scan(np.cumsum, 1), FLOATS + INTS),
    case("cumsum_excl_rev", lambda x: tf.cumsum(x, 1, exclusive=True, reverse=True), [INT_X],
         _scan(np.cumsum, 1, True, True), INTS + (F32,)),
    case("cumprod_excl", lambda x: tf.cumprod(x, 0, exclusive=True), [GEN],
         _scan(np.cumprod, 0, True, identity=1), (F32, F64, np.int32)),
    case("cumprod_rev", lambda x: tf.cumprod(x, -1, reverse=True), [GEN],
         _scan(np.cumprod, 1, reverse=True), (F32,)),
    case("count_nonzero", lambda x: tf.count_nonzero(x, 1), [GEN],
         lambda x: np.count_nonzero(x, 1), (F32, np.int32), out_dtype=np.int64,
         needs=("Cast",)),
    # products and sums of many
    case("matmul", tf.matmul, [MAT_A, MAT_B], np.matmul, FLOATS + INTS + COMPLEX),
    case("matmul_transpose_b", lambda a, b: tf.matmul(a, b, transpose_b=True),
         [MAT_A, MAT_A], lambda a, b: a @ b.T, (F32, F64)),
    case("matmul_transpose_a", lambda a, b: tf.matmul(a, b, transpose_a=True),
         [MAT_A, MAT_A], lambda a, b: a.T @ b, (F32,)),
    case("matmul_adjoint", lambda a, b: tf.matmul(a, b, adjoint_b=True),
         [MAT_A, MAT_A], lambda a, b: a @ np.conj(b).T, COMPLEX + (F32,)),
    case("matmul_batched", tf.matmul, [[MAT_A, MAT_A], MAT_B], np.matmul, (F32, F64, BF16)),
    case("matmul_batched_adj", lambda a, b: tf.matmul(a, b, adjoint_a=True),
         [[MAT_A, MAT_A], MAT_A], lambda a, b: np.conj(np.swapaxes(a, -1, -2)) @ b,
         COMPLEX + (F32,)),
    case("add_n", lambda a, b: tf.add_n([a, b, a]), [GEN, NONZERO_Y],
         lambda a, b: a + b + a, FLOATS + INTS),
    case("accumulate_n", lambda a, b: tf.accumulate_n([a, b]), [GEN, NONZERO_Y], np.add,
         (F32,)),
    case("unsorted_segment_sum",
         lambda d: tf.unsorted_segment_sum(d, [1, -1, 1, 0], 3),
         [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]],
         lambda d: np.array([d[3], d[0] + d[2], 0 * d[0]]), FLOATS + INTS),
    case("segment_max", lambda d: tf.segment_max(d, [0, 0, 2, 2]),
         [[[1.0, 9.0], [3.0, 4.0], [5.0, 6.0], [7.0, -8.0]]],
         lambda d: np.array([[3.0, 9.0], [0.0, 0.0], [7.0, 6.0]]), (F32, np.int32)),
]


def _tolerance(dt):
    dt = np.dtype(dt)
    if dt == np.float16:
        return dict(rtol=3e-3, atol=3e-3)
    if dt == np.dtype(BF16):
        return dict(rtol=2e-2, atol=2e-2)
    if dt in (np.float32, np.complex64):
        return dict(rtol=2e-6, atol=1e-6)
    return dict(rtol=1e-12, atol=1e-12)


def _as_input(value, dt):
    arr = np.asarray(value)
    if np.dtype(dt) == np.bool_:
        return arr.astype(np.bool_)
    if np.dtype(dt).kind in "iu":
        return arr.astype(np.int64).astype(dt)
    if np.dtype(dt).kind == "c":
        return (arr + 0.5j * arr[..., ::-1]).astype(dt)
    return arr.astype(dt)


def _expand():
    for c in CASES:
        for dt in c.dtypes:
            yield pytest.param(c, dt, id=f"{c.id}-{np.dtype(dt).name}")


def _wide(arr):
    arr = np.asarray(arr)
    if arr.dtype.kind in "fc" or arr.dtype == np.dtype(BF16):
        return arr.astype(np.complex128 if arr.dtype.kind == "c" else np.float64)
    return arr


@pytest.mark.parametrize("c,dt", list(_expand()))
def test_op_matches_numpy(c, dt):
    inputs = [_as_input(v, dt) for v in c.inputs]
    expected_dt = np.dtype(c.out_dtype(dt) if callable(c.out_dtype) and
                           not isinstance(c.out_dtype, type) else (c.out_dtype or dt))
    with np.errstate(all="ignore"):
        want = np.asarray(c.ref(*[_wide(x) for x in inputs]))
    with tf.Graph().as_default():
        fed = [tf.placeholder(tf.as_dtype(x.dtype), x.shape) for x in inputs]
        out = c.fn(*fed)
        consts = [tf.constant(x) for x in inputs]
        out_const = c.fn(*consts)
        assert out.dtype.as_numpy_dtype == expected_dt, (out.dtype, expected_dt)
        # Static shapes are exact except where TF's are partial too (sorted segments).
        assert out.shape.is_compatible_with(want.shape), (out.shape, want.shape)
        assert out.shape.is_fully_defined() or c.id.startswith("segment_")
        with tf.Session() as sess, np.errstate(all="ignore"):
            got, got_const = sess.run([out, out_const], dict(zip(fed, inputs)))
    for value in (got, got_const):
        assert np.asarray(value).dtype == expected_dt
        assert np.shape(value) == want.shape
        if expected_dt.kind in "biu":
            np.testing.assert_array_equal(value, want.astype(expected_dt))
        else:
            np.testing.assert_allclose(_wide(value), want, equal_nan=True,
                                       **_tolerance(expected_dt))


@pytest.mark.parametrize("shape_x,shape_y", [((2, 3), (3,)), ((4, 1, 3), (2, 1)), ((), (2, 2)),
                                             ((2, 1, 1), (1, 3, 1))])
def test_binary_broadcasting_shapes(shape_x, shape_y):
    x = np.arange(int(np.prod(shape_x)), dtype=np.float32).reshape(shape_x)
    y = np.arange(int(np.prod(shape_y)), dtype=np.float32).reshape(shape_y) + 1
    with tf.Graph().as_default():
        outs = [f(tf.constant(x), tf.constant(y))
                for f in (tf.add, tf.multiply, tf.maximum, tf.less, tf.squared_difference)]
        for o in outs:
            assert o.shape.as_list() == list(np.broadcast_shapes(shape_x, shape_y))
        with tf.Session() as sess:
            got = sess.run(outs)
    np.testing.assert_array_equal(got[0], x + y)
    np.testing.assert_array_equal(got[1], x * y)
    np.testing.assert_array_equal(got[2], np.maximum(x, y))
    np.testing.assert_array_equal(got[3], x < y)
    np.testing.assert_array_equal(got[4], (x - y) ** 2)
