"""Second derivatives: the gradient graphs of the math ops are themselves
differentiable (each *Grad op type has its own gradient), checked by finite
differences of the first gradient, in float64.

Each case is (id, function, inputs). For every pair of inputs (i, j) the Jacobian
of d y / d x_i with respect to x_j is compared with central differences of the
symbolic first gradient. Also: the *Grad kernels, including their
"zero incoming gradient gives zero" rule.
"""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op

from op_checks import jacobians

R = np.random.RandomState(3)
POS = R.uniform(0.5, 2.0, (2, 3))
POS2 = R.uniform(0.5, 2.0, (2, 3))
GEN = np.array([[-1.3, -0.6, 0.4], [0.7, 1.1, -1.7]])
UNIT = np.array([[-0.7, -0.3, 0.1], [0.2, 0.5, 0.6]])
GE1 = np.array([[1.3, 1.7, 2.2], [3.1, 1.5, 2.6]])

CASES = [
    ("Tanh", tf.tanh, [GEN]), ("Sigmoid", tf.sigmoid, [GEN]), ("Sqrt", tf.sqrt, [POS]),
    ("Rsqrt", tf.rsqrt, [POS]), ("Reciprocal", tf.reciprocal, [POS]),
    ("Inv", lambda x: apply_op("Inv", x=x).outputs[0], [POS]),
    ("Square", tf.square, [GEN]), ("Exp", tf.exp, [GEN]), ("Expm1", tf.math.expm1, [GEN]),
    ("Log", tf.log, [POS]), ("Log1p", tf.log1p, [POS]), ("Sin", tf.sin, [GEN]),
    ("Cos", tf.cos, [GEN]), ("Tan", tf.tan, [UNIT]), ("Asin", tf.asin, [UNIT]),
    ("Acos", tf.acos, [UNIT]), ("Atan", tf.atan, [GEN]), ("Sinh", tf.sinh, [GEN]),
    ("Cosh", tf.cosh, [GEN]), ("Asinh", tf.asinh, [GEN]), ("Acosh", tf.acosh, [GE1]),
    ("Atanh", tf.atanh, [UNIT]), ("Erf", tf.erf, [GEN]), ("Erfc", tf.math.erfc, [GEN]),
    ("Abs", tf.abs, [GEN]), ("Neg", tf.negative, [GEN]),
    ("Mul", tf.multiply, [GEN, POS]), ("RealDiv", tf.truediv, [GEN, POS]),
    ("Sub", tf.subtract, [GEN, POS]), ("AddV2", tf.add, [GEN, POS]),
    ("SquaredDifference", tf.squared_difference, [GEN, POS]),
    ("Atan2", tf.atan2, [GEN, POS]), ("Pow", tf.pow, [POS, GEN]),
    ("DivNoNan", tf.div_no_nan, [GEN, POS]),
    ("Maximum_row", tf.maximum, [GEN, np.array([0.9, -1.2, 1.4])]),
    ("MatMul", lambda a, b: tf.matmul(tf.tanh(a), b, transpose_b=True), [GEN, POS]),
    ("Sum_Mean", lambda x: tf.reduce_mean(tf.reduce_sum(x * x * x, 1)), [GEN]),
    ("Prod", lambda x: tf.reduce_prod(x, 0), [POS]),
    ("Cumprod", lambda x: tf.cumprod(x, 1), [POS]),
    ("EuclideanNorm", lambda x: tf.math.reduce_euclidean_norm(x, 1), [GEN]),
    ("SegmentMean", lambda x: tf.segment_mean(x * x, [0, 1, 1]), [GEN.T]),
]


def _check_second_order(fn, inputs):
    with tf.Graph().as_default():
        phs = [tf.placeholder(tf.float64, v.shape) for v in inputs]
        y = fn(*phs)
        firsts = tf.gradients(y, phs)
        with tf.Session():
            for i, g in enumerate(firsts):
                for j in range(len(inputs)):
                    theoretical, numerical = jacobians(phs, inputs, j, g, g.shape.as_list(),
                                                       1e-5)
                    np.testing.assert_allclose(theoretical, numerical, rtol=1e-6, atol=1e-6,
                                               err_msg=f"d(dy/dx{i})/dx{j}")


@pytest.mark.parametrize("fn,inputs", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_second_derivative_matches_finite_differences(fn, inputs):
    _check_second_order(fn, [np.asarray(v, np.float64) for v in inputs])


def _grad_op(op_type, y, dy):
    with tf.Graph().as_default():
        out = apply_op(op_type, y=tf.constant(y), dy=tf.constant(dy)).outputs[0]
        with tf.Session() as sess:
            return sess.run(out)


@pytest.mark.parametrize("op_type,ref", [
    ("TanhGrad", lambda y, dy: dy * (1 - y * y)),
    ("SigmoidGrad", lambda y, dy: dy * y * (1 - y)),
    ("SqrtGrad", lambda y, dy: 0.5 * dy / np.conj(y)),
    ("RsqrtGrad", lambda y, dy: -0.5 * dy * np.conj(y) ** 3),
    ("ReciprocalGrad", lambda y, dy: -dy * np.conj(y) ** 2),
    ("InvGrad", lambda y, dy: -dy * np.conj(y) ** 2),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_grad_op_kernels(op_type, ref, dtype):
    y = (POS + (0.5j * GEN if dtype == np.complex128 else 0)).astype(dtype)
    dy = (GEN + (0.25j * POS if dtype == np.complex128 else 0)).astype(dtype)
    got = _grad_op(op_type, y, dy)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, ref(y, dy), rtol=1e-6)


@pytest.mark.parametrize("op_type", ["SqrtGrad", "RsqrtGrad", "ReciprocalGrad"])
def test_zero_incoming_gradient_gives_zero_even_at_a_pole(op_type):
    y = np.array([0.0, np.inf, 2.0])
    got = _grad_op(op_type, y, np.array([0.0, 0.0, 1.0]))
    assert got[0] == 0 and got[1] == 0 and np.isfinite(got[2])
