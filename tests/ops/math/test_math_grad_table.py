"""Every differentiable math op against finite differences.

`CASES` is data: (id, graph function, float64 sample inputs, indices of the inputs
to check, static shapes to build the placeholders with (None: the inputs' shapes)).
Inputs keep away from kinks, poles and ties, so central differences are exact to
about 1e-9. Each case runs `tf.test.compute_gradient_error` in float64.

`test_every_math_op_type_is_classified` keeps the table complete: every math op
type either has a gradient exercised here, is marked not differentiable, or is
listed in `WITHOUT_GRADIENT` (no gradient in TensorFlow either, or not yet).
"""
import collections

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry
from trainflow._src.framework.op_builder import apply_op

from op_checks import jacobians

Case = collections.namedtuple("Case", "id fn inputs grad static")


def case(id_, fn, inputs, grad=None, static=None):
    inputs = [np.asarray(v, dtype=np.float64) if not isinstance(v, np.ndarray) or
              v.dtype.kind == "f" else v for v in inputs]
    if grad is None:
        grad = tuple(i for i, v in enumerate(inputs) if v.dtype.kind in "fc")
    return Case(id_, fn, inputs, grad, static)


def raw(op_type, **attrs):
    """The bare op, for op types no public function builds for float inputs."""
    names = registry.get(op_type).op_def.inputs

    def fn(*args):
        kwargs = {a.name: v for a, v in zip(names, args)}
        return apply_op(op_type, **kwargs, **attrs).outputs[0]
    return fn


def from_parts(fn):
    """fn on complex numbers built from real inputs (re, im)."""
    return lambda re, im: fn(tf.complex(re, im))


R = np.random.RandomState(7)
POS = R.uniform(0.5, 2.0, (2, 3))
POS2 = R.uniform(0.5, 2.0, (2, 3))
GEN = np.array([[-1.3, -0.6, 0.4], [0.7, 1.1, -1.7]])
ROW = np.array([0.9, -1.2, 1.4])
COL = np.array([[1.5], [-0.8]])
UNIT = np.array([[-0.7, -0.3, 0.1], [0.2, 0.5, 0.6]])
GE1 = np.array([[1.3, 1.7, 2.2], [3.1, 1.5, 2.6]])
NOT_INT = np.array([[-1.3, -0.6, 0.4], [0.7, 1.2, -1.7]])  # away from integer kinks
TRIPLE = R.uniform(0.5, 1.5, (2, 3, 4))
WITH_ZERO = np.array([[0.0, 1.5, -2.0], [0.5, 0.0, 0.0]])
MAT_A = R.uniform(-1, 1, (2, 3))
MAT_B = R.uniform(-1, 1, (3, 4))
ROWS = np.array([[1.0, 2.0], [3.0, -4.0], [-0.5, 6.0], [7.0, 0.25]])
ROWS_ZERO = np.array([[1.0, 0.0], [3.0, 0.0], [0.0, 6.0], [7.0, 0.5]])
IDS = np.array([0, 0, 2, 2], np.int32)
UIDS = np.array([1, -1, 1, 0], np.int32)


def _seg(fn, ids, *extra):
    return lambda d: fn(d, ids, *extra)


CASES = [
    # unary element-wise
    case("Neg", tf.negative, [GEN]),
    case("Abs", tf.abs, [GEN]),
    case("Sign", tf.sign, [GEN]),
    case("Square", tf.square, [GEN]),
    case("Sqrt", tf.sqrt, [POS]),
    case("Rsqrt", tf.rsqrt, [POS]),
    case("Exp", tf.exp, [GEN]),
    case("Expm1", tf.math.expm1, [GEN]),
    case("Log", tf.log, [POS]),
    case("Log1p", tf.log1p, [POS]),
    case("Sin", tf.sin, [GEN]),
    case("Cos", tf.cos, [GEN]),
    case("Tan", tf.tan, [UNIT]),
    case("Asin", tf.asin, [UNIT]),
    case("Acos", tf.acos, [UNIT]),
    case("Atan", tf.atan, [GEN]),
    case("Sinh", tf.sinh, [GEN]),
    case("Cosh", tf.cosh, [GEN]),
    case("Tanh", tf.tanh, [GEN]),
    case("Asinh", tf.asinh, [GEN]),
    case("Acosh", tf.acosh, [GE1]),
    case("Atanh", tf.atanh, [UNIT]),
    case("Sigmoid", tf.sigmoid, [GEN]),
    case("Erf", tf.erf, [GEN]),
    case("Erfc", tf.math.erfc, [GEN]),
    case("Lgamma", tf.lgamma, [POS]),
    case("Digamma", tf.digamma, [POS]),
    case("Polygamma", lambda x: tf.polygamma(tf.constant([[1.0], [2.0]], x.dtype), x), [POS]),
    case("Reciprocal", tf.reciprocal, [POS]),
    case("Inv", raw("Inv"), [POS]),
    case("Floor", tf.floor, [NOT_INT]),
    case("Ceil", tf.ceil, [NOT_INT]),
    case("Round", tf.round, [NOT_INT]),
    case("Rint", tf.rint, [NOT_INT]),
    # the gradient op types, whose own gradients give second derivatives
    case("TanhGrad", raw("TanhGrad"), [UNIT, GEN]),
    case("SigmoidGrad", raw("SigmoidGrad"), [UNIT, GEN]),
    case("SqrtGrad", raw("SqrtGrad"), [POS, GEN]),
    case("RsqrtGrad", raw("RsqrtGrad"), [POS, GEN]),
    case("ReciprocalGrad", raw("ReciprocalGrad"), [POS, GEN]),
    case("InvGrad", raw("InvGrad"), [POS, GEN]),
    # binary, with the broadcasting reductions (row, column, scalar, unknown sizes)
    case("AddV2", tf.add, [GEN, ROW]),
    case("AddV2_outer", tf.add, [COL, ROW]),
    case("AddV2_rank", tf.add, [ROW, ROW[None]]),
    case("AddV2_dynamic", tf.add, [GEN, COL], static=[[None, 3], [None, 1]]),
    case("Add", raw("Add"), [GEN, 0.5]),
    case("Sub", tf.subtract, [GEN, ROW]),
    case("Sub_same", tf.subtract, [GEN, POS]),
    case("Mul", tf.multiply, [GEN, ROW]),
    case("Mul_same", tf.multiply, [GEN, POS]),
    case("Mul_dynamic", tf.multiply, [GEN, COL], static=[[None, None], [None, 1]]),
    case("RealDiv", tf.truediv, [GEN, POS2[0]]),
    case("Div", raw("Div"), [GEN, COL]),
    case("DivNoNan", tf.div_no_nan, [GEN, POS]),
    case("MulNoNan", tf.math.multiply_no_nan, [GEN, ROW]),
    case("FloorDiv", tf.floordiv, [GEN, POS]),
    case("TruncateDiv", raw("TruncateDiv"), [GEN, POS]),
    case("FloorMod", tf.floormod, [GEN, np.array([[0.7, 0.9, 1.1], [1.3, 0.45, 0.8]])]),
    case("Pow", tf.pow, [POS, GEN]),
    case("Pow_scalar_exponent", tf.pow, [POS, 2.5]),
    case("Maximum", tf.maximum, [GEN, ROW]),
    case("Minimum", tf.minimum, [GEN, COL]),
    case("SquaredDifference", tf.squared_difference, [GEN, ROW]),
    case("SquaredDifference_same", tf.squared_difference, [GEN, POS]),
    case("Atan2", tf.atan2, [GEN, POS]),
    case("Xlogy", tf.math.xlogy, [GEN, ROW + 2.0]),
    case("Xlog1py", tf.math.xlog1py, [GEN, POS]),
    case("Xdivy", tf.math.xdivy, [GEN, COL]),
    # reductions and scans
    case("Sum", tf.reduce_sum, [GEN]),
    case("Sum_axis", lambda x: tf.reduce_sum(x, [0, 2]), [TRIPLE]),
    case("Sum_keepdims", lambda x: tf.reduce_sum(x, -1, keepdims=True), [GEN]),
    case("Sum_dynamic", lambda x: tf.reduce_sum(x, 1), [GEN], static=[[None, 3]]),
    case("Sum_dynamic_all", tf.reduce_sum, [GEN], static=[[None, None]]),
    case("Mean", tf.reduce_mean, [GEN]),
    case("Mean_axis", lambda x: tf.reduce_mean(x, 1), [TRIPLE]),
    case("Mean_dynamic", lambda x: tf.reduce_mean(x, 0), [GEN], static=[[None, 3]]),
    case("Prod", lambda x: tf.reduce_prod(x, 1), [GEN]),
    case("Prod_zeros", lambda x: tf.reduce_prod(x, 1), [WITH_ZERO]),
    case("Prod_all_keepdims", lambda x: tf.reduce_prod(x, keepdims=True), [POS]),
    case("Prod_dynamic", lambda x: tf.reduce_prod(x, [0, 2]), [TRIPLE],
         static=[[None, 3, None]]),
    case("Max", lambda x: tf.reduce_max(x, 1), [GEN]),
    case("Min", lambda x: tf.reduce_min(x, 0, keepdims=True), [GEN]),
    case("EuclideanNorm", lambda x: tf.math.reduce_euclidean_norm(x, 1), [GEN]),
    case("EuclideanNorm_keepdims",
         lambda x: tf.math.reduce_euclidean_norm(x, 0, keepdims=True), [GEN]),
    # (an index output carries no gradient: these check the paths beside it)
    case("ArgMax", lambda x: tf.cast(tf.argmax(x, 1), x.dtype) * tf.reduce_sum(x, 1), [GEN]),
    case("ArgMin", lambda x: tf.cast(tf.argmin(x, 0), x.dtype) * tf.reduce_max(x, 0), [GEN]),
    case("Cumsum", lambda x: tf.cumsum(x, 1), [GEN]),
    case("Cumsum_exclusive_reverse", lambda x: tf.cumsum(x, 0, exclusive=True, reverse=True),
         [GEN]),
    case("Cumprod", lambda x: tf.cumprod(x, 1), [POS]),
    case("Cumprod_exclusive_reverse",
         lambda x: tf.cumprod(x, 1, exclusive=True, reverse=True), [POS]),
    # products and sums of many
    case("MatMul", tf.matmul, [MAT_A, MAT_B]),
    case("MatMul_transpose_a", lambda a, b: tf.matmul(a, b, transpose_a=True), [MAT_A.T, MAT_B]),
    case("MatMul_transpose_b", lambda a, b: tf.matmul(a, b, transpose_b=True), [MAT_A, MAT_B.T]),
    case("MatMul_transpose_ab", lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True),
         [MAT_A.T, MAT_B.T]),
    case("BatchMatMulV2", tf.matmul, [TRIPLE[:, :, :3], R.uniform(-1, 1, (2, 3, 2))]),
    case("BatchMatMulV2_broadcast", tf.matmul, [TRIPLE, MAT_B.T]),
    case("BatchMatMulV2_adjoint",
         lambda a, b: tf.matmul(a, b, adjoint_a=True, adjoint_b=True),
         [TRIPLE, R.uniform(-1, 1, (1, 2, 3))]),
    case("BatchMatMul", raw("BatchMatMul", adj_y=True), [TRIPLE, R.uniform(-1, 1, (2, 5, 4))]),
    case("BatchMatMulV3", raw("BatchMatMulV3", Tout=tf.float64, adj_x=True),
         [TRIPLE, R.uniform(-1, 1, (2, 3, 2))]),
    case("AddN", lambda a, b: tf.add_n([a, b, a]), [GEN, POS]),
    # segment reductions
    case("SegmentSum", _seg(tf.segment_sum, IDS), [ROWS]),
    case("SegmentMean", _seg(tf.segment_mean, np.array([0, 0, 1, 3], np.int32)), [ROWS]),
    case("SegmentMax", _seg(tf.segment_max, IDS), [ROWS]),
    case("SegmentMin", _seg(tf.segment_min, IDS), [ROWS]),
    case("SegmentProd", _seg(tf.segment_prod, IDS), [ROWS]),
    case("SegmentProd_zeros", _seg(tf.segment_prod, IDS), [ROWS_ZERO]),
    case("UnsortedSegmentSum", _seg(tf.unsorted_segment_sum, UIDS, 3), [ROWS]),
    case("UnsortedSegmentMax", _seg(tf.unsorted_segment_max, UIDS, 2), [ROWS]),
    case("UnsortedSegmentMin", _seg(tf.unsorted_segment_min, UIDS, 2), [ROWS]),
    case("UnsortedSegmentProd", _seg(tf.unsorted_segment_prod, UIDS, 3), [ROWS]),
    case("UnsortedSegmentProd_zeros", _seg(tf.unsorted_segment_prod, UIDS, 3), [ROWS_ZERO]),
    # composites of the math functions (through array and nn ops too)
    case("tensordot", lambda a, b: tf.tensordot(a, b, [[0, 2], [1, 0]]),
         [TRIPLE, R.uniform(-1, 1, (4, 2, 3))]),
    case("reduce_logsumexp", lambda x: tf.reduce_logsumexp(x, 1), [GEN]),
    case("reduce_variance", lambda x: tf.math.reduce_variance(x, 0), [GEN]),
    case("reduce_std", tf.math.reduce_std, [GEN]),
    case("log_sigmoid", tf.log_sigmoid, [GEN]),
    case("scalar_mul", lambda x: tf.scalar_mul(3.0, x), [GEN]),
    case("accumulate_n", lambda a, b: tf.accumulate_n([a, b, b]), [GEN, POS]),
    # complex numbers (the checker takes complex values as pairs of reals)
    case("Complex", lambda re, im: tf.complex(re, im) * tf.complex(im, re), [GEN, ROW]),
    case("Real", from_parts(lambda z: tf.real(z * z)), [GEN, POS]),
    case("Imag", from_parts(lambda z: tf.imag(z * z)), [GEN, POS]),
    case("Conj", tf.conj, [GEN + 1j * POS]),
    case("ComplexAbs", tf.abs, [GEN + 1j * POS]),
    case("Mul_complex", tf.multiply, [GEN + 1j * POS, ROW - 0.5j]),
    case("RealDiv_complex", tf.truediv, [GEN + 1j * POS, POS2 + 0.5j]),
    case("Square_complex", tf.square, [GEN + 1j * POS]),
    case("Exp_complex", tf.exp, [GEN + 1j * UNIT]),
    case("Tanh_complex", tf.tanh, [0.5 * GEN + 0.3j * UNIT]),
    case("Sum_complex", lambda z: tf.reduce_sum(z, 0), [GEN + 1j * POS]),
    case("MatMul_complex", tf.matmul, [MAT_A + 1j * MAT_A[::-1], MAT_B - 2j * MAT_B]),
    # Qr: q r and r r^T are free of the decomposition's sign choices.
    case("Qr", lambda a: tf.concat([tf.matmul(*tf.qr(a)) * tf.sin(a),
                                    tf.matmul(tf.qr(a)[1], tf.qr(a)[1], transpose_b=True)], 0),
         [MAT_B.T.copy()]),
]

# Op types of the math modules with no gradient here, and why.
WITHOUT_GRADIENT = {
    "Mod": "TensorFlow registers none", "TruncateMod": "TensorFlow registers none",
    "All": "bool", "Any": "bool",
    "IsNan": "bool output", "IsInf": "bool output", "IsFinite": "bool output",
    "ListDiff": "integer",
}

MATH_OP_TYPES = {
    "Neg", "Abs", "Sign", "Square", "Sqrt", "Rsqrt", "Exp", "Expm1", "Log", "Log1p", "Sin",
    "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh",
    "Sigmoid", "Erf", "Erfc", "Lgamma", "Digamma", "Polygamma", "Floor", "Ceil", "Rint",
    "Round", "Reciprocal", "Inv", "IsNan", "IsInf", "IsFinite", "Invert", "Conj", "Real", "Imag",
    "ComplexAbs", "Complex", "AddV2", "Add", "Sub", "Mul", "RealDiv", "Div", "FloorDiv",
    "TruncateDiv", "FloorMod", "Mod", "TruncateMod", "Pow", "Maximum", "Minimum",
    "SquaredDifference", "Atan2", "Xlogy", "Xlog1py", "Xdivy", "DivNoNan", "MulNoNan",
    "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
    "LogicalOr", "LogicalNot", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Sum", "Mean",
    "Prod", "Max", "Min", "EuclideanNorm", "All", "Any", "ArgMax", "ArgMin", "Cumsum",
    "Cumprod", "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Qr", "AddN",
    "SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd",
    "UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd",
    "TanhGrad", "SigmoidGrad", "SqrtGrad", "RsqrtGrad", "ReciprocalGrad", "InvGrad",
    "ListDiff",
}


def _build(c):
    static = c.static or [list(v.shape) for v in c.inputs]
    phs = [tf.placeholder(tf.as_dtype(v.dtype), s) for v, s in zip(c.inputs, static)]
    return phs, c.fn(*phs)


def _jacobians(i, phs, y, values):
    y_shape = list(tf.get_default_session().run(y, dict(zip(phs, values))).shape)
    return jacobians(phs, values, i, y, y_shape, 1e-5)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_gradient_matches_finite_differences(c):
    with tf.Graph().as_default():
        phs, y = _build(c)
        with tf.Session():
            for i in c.grad:
                theoretical, numerical = _jacobians(i, phs, y, c.inputs)
                assert np.isfinite(numerical).all(), (c.id, i, "inputs off the domain")
                np.testing.assert_allclose(theoretical, numerical, rtol=1e-7, atol=1e-7,
                                           err_msg=f"{c.id}: input {i}")


# Cases that cannot run in half precision, as in TensorFlow: Polygamma (the Digamma
# gradient) takes float/double only, and complex numbers need float/double parts.
NOT_HALF = {"Digamma", "Polygamma", "Real", "Imag"}
# Real inputs and outputs (the V3 case fixes its output type to float64).
REAL_CASES = [c for c in CASES if all(v.dtype.kind != "c" for v in c.inputs) and
              c.id not in ("Complex", "BatchMatMulV3")]


def _gradients_at(c, dtype):
    with tf.Graph().as_default():
        static = c.static or [list(v.shape) for v in c.inputs]
        phs = [tf.placeholder(dtype if v.dtype.kind == "f" else tf.as_dtype(v.dtype), s)
               for v, s in zip(c.inputs, static)]
        grads = [g for g in tf.gradients(c.fn(*phs), [phs[i] for i in c.grad])
                 if g is not None]
        np_dtype = dtype.as_numpy_dtype
        feed = {p: v.astype(np_dtype) if v.dtype.kind == "f" else v
                for p, v in zip(phs, c.inputs)}
        with tf.Session() as sess:
            return sess.run(grads, feed)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float16], ids=["float32", "float16"])
def test_gradients_keep_the_input_dtype(dtype):
    for c in REAL_CASES:
        if dtype == tf.float16 and c.id in NOT_HALF:
            continue
        try:
            got = _gradients_at(c, dtype)
        except LookupError:
            continue  # reported by test_gradient_matches_finite_differences
        want = _gradients_at(c, tf.float64)
        tol = 2e-5 if dtype == tf.float32 else 5e-2
        for g, w in zip(got, want):
            assert g.dtype == dtype.as_numpy_dtype, c.id
            np.testing.assert_allclose(g.astype(np.float64), w, rtol=tol, atol=tol,
                                       err_msg=c.id)


def _op_types_of(c):
    g = tf.Graph()
    with g.as_default():
        _build(c)
    return {op.type for op in g.get_operations()}


def test_every_math_op_type_is_classified():
    missing = sorted(t for t in MATH_OP_TYPES if not registry.is_registered(t))
    assert not missing, f"op types gone from the registry: {missing}"
    exercised = set().union(*(_op_types_of(c) for c in CASES))
    for op_type in sorted(MATH_OP_TYPES):
        found, fn = registry.get_gradient(op_type)
        if op_type in WITHOUT_GRADIENT:
            assert not found, f"{op_type} now has a gradient: add it to CASES"
        elif fn is None:
            assert found, f"{op_type} has no gradient and is not in WITHOUT_GRADIENT"
        else:
            assert op_type in exercised, f"the gradient of {op_type} is not in CASES"


@pytest.mark.parametrize("op_type", ["Less", "Equal", "LogicalAnd", "BitwiseAnd", "Invert"])
def test_not_differentiable_ops_give_none(op_type):
    assert registry.get_gradient(op_type) == (True, None)


@pytest.mark.parametrize("fn,op_type", [(tf.argmax, "ArgMax"), (tf.argmin, "ArgMin")])
def test_index_reductions_return_none_gradients(fn, op_type):
    with tf.Graph().as_default():
        out = fn(tf.placeholder(tf.float64, [2, 3]), 1)
        grad_fn = registry.get_gradient(op_type)[1]
        assert grad_fn(out.op, tf.ones_like(out)) == [None, None]


def test_integer_inputs_get_no_gradient():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        n = tf.placeholder(tf.int32, [3])
        y = tf.reduce_sum(x * tf.cast(n, tf.float64)) + tf.cast(tf.reduce_sum(n * n),
                                                                  tf.float64)
        gx, gn = tf.gradients(y, [x, n])
        assert gn is None
        with tf.Session() as sess:
            got = sess.run(gx, {x: [1.0, 2.0, 3.0], n: [4, 5, 6]})
    np.testing.assert_array_equal(got, [4.0, 5.0, 6.0])


def test_op_without_gradient_raises_lookup_error():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        y = tf.truncatemod(x, 2.0)
        with pytest.raises(LookupError, match="TruncateMod"):
            tf.gradients(y, x)
