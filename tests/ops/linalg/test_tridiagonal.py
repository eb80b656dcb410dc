"""tf.linalg.tridiagonal_solve and tridiagonal_matmul: the cases of TensorFlow's
tridiagonal_solve_op_test (solutions, formats, batching, transposed and conjugated
right-hand sides, non-invertible systems giving NaN, gradients, shape errors), with
and without partial pivoting."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

DIAGS = np.array([[2, 1, 4, 0], [1, 3, 2, 2], [0, 1, -1, 1]])
RHS = np.array([1, 2, 3, 4])
RESULT = np.array([-9, 5, -4, 4])

# (name, diags, rhs, expected (None: not invertible, all NaN), keyword arguments)
CASES = [
    ("3x3", [[2, -1, 0], [1, 3, 1], [0, -1, -2]], [1, 2, 3], [-3, 2, 7], {}),
    ("2x2", [[2, 0], [1, 3], [0, 1]], [1, 4], [-5, 3], {}),
    ("1x1", [[0], [3], [0]], [6], [2], {}),
    ("2x2 several rhs", [[2, 0], [1, 3], [0, 1]], [[1, 2, 3], [4, 8, 12]],
     [[-5, -10, -15], [3, 6, 9]], {}),
    ("1x1 several rhs", [[0], [3], [0]], [[6, 9, 12]], [[2, 3, 4]], {}),
    ("1x1 not invertible", [[0], [0], [0]], [[6, 9, 12]], None, {}),
    ("2x2 not invertible", [[3, 0], [1, 3], [0, 1]], [1, 4], None, {}),
    ("not invertible", [[2, -1, 1, 0], [1, 4, 1, -1], [0, 2, 0, 3]], [1, 2, 3, 4], None, {}),
    ("diagonal", [[0, 0, 0, 0], [1, 2, -1, -2], [0, 0, 0, 0]], [1, 2, 3, 4],
     [1, 1, -3, -2], {}),
    ("upper triangular", [[2, 4, -1, 0], [1, 3, 1, 2], [0, 0, 0, 0]], [1, 6, 4, 4],
     [13, -6, 6, 2], {}),
    ("lower triangular", [[0, 0, 0, 0], [2, -1, 3, 1], [0, 1, 4, 2]], [4, 5, 6, 1],
     [2, -3, 6, -11], {}),
    ("two rhs", DIAGS, np.transpose([RHS, 2 * RHS]), np.transpose([RESULT, 2 * RESULT]), {}),
    ("batching", [DIAGS, -DIAGS], [RHS, 2 * RHS], [RESULT, -2 * RESULT], {}),
    ("two batch dims", [[DIAGS, -DIAGS, DIAGS], [-DIAGS, DIAGS, -DIAGS]],
     [[RHS, 2 * RHS, 3 * RHS], [4 * RHS, 5 * RHS, 6 * RHS]],
     [[RESULT, -2 * RESULT, 3 * RESULT], [-4 * RESULT, 5 * RESULT, -6 * RESULT]], {}),
    ("batching, two rhs", [DIAGS, -DIAGS],
     [np.transpose([RHS, 2 * RHS]), 2 * np.transpose([RHS, 2 * RHS])],
     [np.transpose([RESULT, 2 * RESULT]), -2 * np.transpose([RESULT, 2 * RESULT])], {}),
    ("matrix format", [[1, 2, 0, 0], [1, 3, 1, 0], [0, -1, 2, 4], [0, 0, 1, 2]], RHS,
     RESULT, {"diagonals_format": "matrix"}),
    ("matrix format, several rhs", [[1, 2, 0, 0], [1, 3, 1, 0], [0, -1, 2, 4], [0, 0, 1, 2]],
     [[1, -1], [2, -2], [3, -3], [4, -4]], [[-9, 9], [5, -5], [-4, 4], [4, -4]],
     {"diagonals_format": "matrix"}),
    ("rhs as column", DIAGS, np.transpose([RHS]), np.transpose([RESULT]), {}),
    ("transposed rhs", DIAGS, [RHS, 2 * RHS], np.array([RESULT, 2 * RESULT]).T,
     {"transpose_rhs": True}),
    ("conjugated rhs", DIAGS, np.transpose([RHS * (1 + 1j), RHS * (1 - 2j)]),
     np.transpose([RESULT * (1 - 1j), RESULT * (1 + 2j)]), {"conjugate_rhs": True}),
    ("adjoint rhs", DIAGS, [RHS * (1 + 1j), RHS * (1 - 2j)],
     np.array([RESULT * (1 - 1j), RESULT * (1 + 2j)]).T,
     {"transpose_rhs": True, "conjugate_rhs": True}),
    ("transposed rhs, batching", [DIAGS, -DIAGS], [[RHS, 2 * RHS], [3 * RHS, 4 * RHS]],
     np.array([[RESULT, 2 * RESULT], [-3 * RESULT, -4 * RESULT]]).transpose(0, 2, 1),
     {"transpose_rhs": True}),
    ("transposed vector rhs", DIAGS, RHS, RESULT, {"transpose_rhs": True}),
    ("conjugated vector rhs", DIAGS, RHS * (1 + 1j), RESULT * (1 - 1j),
     {"conjugate_rhs": True}),
]
PIVOTING_ONLY = [
    ("requires pivoting", [[2, -1, 1, 0], [1, 4, 1, -1], [0, 2, -2, 3]], [1, 2, 3, 4],
     [8, -3.5, 0, -4], {}),
    ("requires pivoting, last rows", [[2, 1, -1, 0], [1, -1, 2, 1], [0, 1, -6, 1]],
     [1, 2, -1, -2], [5, -2, -5, 3], {}),
]


def _dtype(*values):
    return tf.complex128 if any(np.iscomplexobj(np.asarray(v)) for v in values) \
        else tf.float64


def _solve(diags, rhs, pivoting, **kwargs):
    dtype = _dtype(diags, rhs)
    with tf.Graph().as_default(), tf.Session() as sess:
        out = tf.linalg.tridiagonal_solve(tf.constant(np.asarray(diags), dtype),
                                          tf.constant(np.asarray(rhs), dtype),
                                          partial_pivoting=pivoting, **kwargs)
        return sess.run(out)


@pytest.mark.parametrize("pivoting", [True, False])
@pytest.mark.parametrize("name, diags, rhs, expected, kwargs", CASES, ids=[c[0] for c in CASES])
def test_solve(name, diags, rhs, expected, kwargs, pivoting):
    result = _solve(diags, rhs, pivoting, **kwargs)
    if expected is None:
        assert not np.isfinite(result).any()
    else:
        np.testing.assert_allclose(result, expected, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name, diags, rhs, expected, kwargs", PIVOTING_ONLY,
                         ids=[c[0] for c in PIVOTING_ONLY])
def test_solve_that_needs_pivoting(name, diags, rhs, expected, kwargs):
    np.testing.assert_allclose(_solve(diags, rhs, True), expected, rtol=1e-10, atol=1e-10)
    assert not np.allclose(_solve(diags, rhs, False), expected)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.complex64, tf.complex128])
def test_solve_dtypes(dtype):
    scale = (1 + 1j) if dtype.is_complex else 1
    with tf.Graph().as_default(), tf.Session() as sess:
        out = tf.linalg.tridiagonal_solve(tf.constant(DIAGS, dtype) * scale,
                                          tf.constant(RHS, dtype) * np.conj(scale))
        assert out.dtype == dtype
        np.testing.assert_allclose(sess.run(out), RESULT * np.conj(scale) / scale, rtol=1e-5)


def test_sequence_format_with_and_without_dummy_elements():
    with tf.Graph().as_default(), tf.Session() as sess:
        c = lambda v: tf.constant(v, tf.float64)  # noqa: E731
        short = tf.linalg.tridiagonal_solve((c([2, 1, 4]), c([1, 3, 2, 2]), c([1, -1, 1])),
                                            c(RHS), diagonals_format="sequence")
        dummy = tf.linalg.tridiagonal_solve(
            (c([2, 1, 4, 20]), c([1, 3, 2, 2]), c([20, 1, -1, 1])), c(RHS),
            diagonals_format="sequence")
        batched = tf.linalg.tridiagonal_solve(
            (c([[2, 1, 4], [-2, -1, -4]]), c([[1, 3, 2, 2], [-1, -3, -2, -2]]),
             c([[1, -1, 1], [-1, 1, -1]])), c([RHS, RHS]), diagonals_format="sequence")
        a, b, d = sess.run([short, dummy, batched])
    np.testing.assert_allclose(a, RESULT)
    np.testing.assert_allclose(b, RESULT)
    np.testing.assert_allclose(d, [RESULT, -RESULT])


def test_empty_systems():
    with tf.Graph().as_default(), tf.Session() as sess:
        empty = tf.linalg.tridiagonal_solve(tf.zeros([3, 0]), tf.zeros([0, 1]))
        batch = tf.linalg.tridiagonal_solve(tf.zeros([0, 3, 4]), tf.zeros([0, 4, 1]))
        a, b = sess.run([empty, batch])
    assert a.shape == (0, 1) and b.shape == (0, 4, 1)


GRADIENT_CASES = [
    ("simple", DIAGS, RHS, [1, 3, 2, 4], [[-5, 0, 4, 0], [9, 0, -4, -16], [0, 0, 5, 16]],
     [1, 0, -1, 4]),
    ("several rhs", DIAGS, [[1, 2], [2, 4], [3, 6], [4, 8]], [[1, 5], [2, 6], [3, 7], [4, 8]],
     [[-20, 28, -60, 0], [36, -35, 60, 80], [0, 63, -75, -80]],
     [[0, 2], [1, 3], [1, 7], [0, -10]]),
]


@pytest.mark.parametrize("unknown_shapes", [False, True])
@pytest.mark.parametrize("name, diags, rhs, y, grad_diags, grad_rhs", GRADIENT_CASES,
                         ids=[c[0] for c in GRADIENT_CASES])
def test_gradients(name, diags, rhs, y, grad_diags, grad_rhs, unknown_shapes):
    with tf.Graph().as_default(), tf.Session() as sess:
        values = [np.asarray(v, np.float64) for v in (diags, rhs, y)]
        if unknown_shapes:
            tensors = [tf.placeholder(tf.float64, [None] * v.ndim) for v in values]
        else:
            tensors = [tf.constant(v) for v in values]
        d, r, w = tensors
        res = tf.reduce_sum(tf.linalg.tridiagonal_solve(d, r) * w)
        got = sess.run(tf.gradients(res, [d, r]), dict(zip(tensors, values)))
    np.testing.assert_allclose(got[0], grad_diags, atol=1e-10)
    np.testing.assert_allclose(got[1], grad_rhs, atol=1e-10)


@pytest.mark.parametrize("diags_shape, rhs_shape", [
    ((5, 4, 4), (5, 4)), ((5, 3, 4), (4, 5)), ((5, 3, 4), (5,)), ((5,), (5,)),
    ((5, 3, 4), (5, 3, 4, 1))])
def test_invalid_compact_shapes(diags_shape, rhs_shape):
    with tf.Graph().as_default(), pytest.raises(ValueError):
        tf.linalg.tridiagonal_solve(tf.ones(diags_shape, tf.float64),
                                    tf.ones(rhs_shape, tf.float64))


def test_perturb_singular_needs_pivoting():
    with tf.Graph().as_default(), pytest.raises(ValueError):
        tf.linalg.tridiagonal_solve(tf.ones([3, 2]), tf.ones([2, 1]), partial_pivoting=False,
                                    perturb_singular=True)


def test_matmul_matches_the_dense_product():
    rng = np.random.RandomState(0)
    diags = rng.randn(2, 3, 5)
    rhs = rng.randn(2, 5, 3)
    dense = np.stack([np.diag(d[1]) + np.diag(d[0, :-1], 1) + np.diag(d[2, 1:], -1)
                      for d in diags])
    with tf.Graph().as_default(), tf.Session() as sess:
        compact = tf.linalg.tridiagonal_matmul(tf.constant(diags), tf.constant(rhs))
        full = tf.linalg.tridiagonal_matmul(tf.constant(dense), tf.constant(rhs),
                                            diagonals_format="matrix")
        a, b = sess.run([compact, full])
    np.testing.assert_allclose(a, dense @ rhs, rtol=1e-12)
    np.testing.assert_allclose(b, dense @ rhs, rtol=1e-12)
