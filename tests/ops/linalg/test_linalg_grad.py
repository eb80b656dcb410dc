"""Gradients of the linear algebra ops against finite differences (float64).

`CASES` is data: (id, graph function, sample inputs). Losses of decompositions
are chosen invariant to the decompositions' sign freedom (products such as
u diag(s) v^T, or squares of entries), so finite differences are well defined.
"""
import collections

import numpy as np
import pytest

import trainflow.compat.v1 as tf

Case = collections.namedtuple("Case", "id fn inputs")
R = np.random.RandomState(3)
SQ = R.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)
SQB = R.uniform(-1, 1, (2, 3, 3)) + 3 * np.eye(3)
SPD = SQ @ SQ.T + np.eye(3)
TALL = R.uniform(-1, 1, (4, 3))
WIDE = R.uniform(-1, 1, (2, 4))
RHS = R.uniform(-1, 1, (3, 2))
TRI = np.tril(SQ) + 2 * np.eye(3)
V3 = R.uniform(-1, 1, (2, 3))
W3 = R.uniform(-1, 1, (2, 3))
WEIGHT4 = R.uniform(-1, 1, (4, 4))


def _sym(x):
    return 0.5 * (x + tf.linalg.adjoint(x))


def _weight(n):
    return WEIGHT4[:n, :n]


def _qr_loss(full):
    def fn(a):
        q, r = tf.qr(a, full_matrices=full)
        # q r and q q^T are sign-free; r^T r too.
        return (tf.reduce_sum(tf.matmul(q, r) * tf.sin(a)) +
                tf.reduce_sum(tf.matmul(r, r, transpose_a=True)) +
                tf.reduce_sum(tf.matmul(q, q, transpose_b=True) * _weight(a.shape[0])))
    return fn


def _svd_loss(a):
    s, u, v = tf.linalg.svd(a)
    usv = tf.matmul(u * s[..., None, :], v, transpose_b=True)
    uu = tf.matmul(u, u, transpose_b=True)
    vv = tf.matmul(v * s[..., None, :], v, transpose_b=True)
    k = a.shape[-2]
    return (tf.reduce_sum(usv * usv) + tf.reduce_sum(s ** 3) +
            tf.reduce_sum(uu * _weight(k)) + tf.reduce_sum(vv * _weight(vv.shape[0]).T))


CASES = [
    Case("MatrixInverse", tf.matrix_inverse, [SQ]),
    Case("MatrixInverse_batch", tf.linalg.inv, [SQB]),
    Case("MatrixInverse_adjoint", lambda a: tf.linalg.inv(a, adjoint=True), [SQ]),
    Case("MatrixDeterminant", tf.matrix_determinant, [SQB]),
    Case("LogMatrixDeterminant", lambda a: tf.linalg.slogdet(a)[1], [SQB]),
    Case("logdet", lambda a: tf.linalg.logdet(_sym(a)), [SPD]),
    Case("Cholesky", lambda a: tf.cholesky(_sym(a)), [SPD]),
    Case("cholesky_solve", lambda a, b: tf.linalg.cholesky_solve(tf.cholesky(_sym(a)), b),
         [SPD, RHS]),
    Case("MatrixSolve", tf.matrix_solve, [SQ, RHS]),
    Case("MatrixSolve_adjoint", lambda a, b: tf.linalg.solve(a, b, adjoint=True), [SQ, RHS]),
    Case("MatrixTriangularSolve", tf.matrix_triangular_solve, [TRI, RHS]),
    Case("MatrixTriangularSolve_upper_adjoint",
         lambda a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True),
         [TRI.T.copy(), RHS]),
    Case("Qr_tall", _qr_loss(False), [TALL]),
    Case("Qr_square", _qr_loss(False), [SQ]),
    Case("Qr_wide", _qr_loss(False), [WIDE]),
    Case("Svd_tall", _svd_loss, [TALL]),
    Case("Svd_wide", _svd_loss, [WIDE]),
    Case("Svd_values_only", lambda a: tf.linalg.svd(a, compute_uv=False), [TALL]),
    Case("MatrixBandPart", lambda a: tf.matrix_band_part(a, 1, 0) * a, [SQB]),
    Case("Cross", tf.cross, [V3, W3]),
    # eigenvectors enter through sign-free products (v diag(w) v^T)
    Case("SelfAdjointEigV2", lambda a: tf.matmul(
        tf.linalg.eigh(a)[1] * tf.sin(tf.linalg.eigh(a)[0]), tf.linalg.eigh(a)[1],
        transpose_b=True), [SPD]),
    Case("SelfAdjointEigV2_values", tf.linalg.eigvalsh, [SPD]),
    Case("MatrixSolveLs_tall", tf.matrix_solve_ls, [TALL, R.uniform(-1, 1, (4, 2))]),
    Case("MatrixSolveLs_tall_l2", lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.3),
         [TALL, R.uniform(-1, 1, (4, 2))]),
    Case("MatrixSolveLs_wide_l2", lambda a, b: tf.matrix_solve_ls(a, b, 0.2),
         [WIDE, R.uniform(-1, 1, (2, 3))]),
    Case("trace", tf.trace, [SQB]),
    Case("norm_2_matrix", lambda a: tf.norm(a, ord=2, axis=[-2, -1]), [TALL]),
    Case("norm_fro", lambda a: tf.norm(a, ord="fro", axis=[0, 1]), [TALL]),
    Case("norm_1_matrix", lambda a: tf.norm(a, ord=1, axis=[0, 1]), [TALL]),
    Case("norm_inf_matrix", lambda a: tf.norm(a, ord=np.inf, axis=[0, 1]), [TALL]),
    Case("norm_3_vector", lambda a: tf.norm(a, ord=3, axis=1), [TALL]),
]


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_gradient_matches_finite_differences(c):
    with tf.Graph().as_default():
        phs = [tf.placeholder(tf.float64, v.shape) for v in c.inputs]
        y = c.fn(*phs)
        with tf.Session() as sess:
            y_shape = list(np.shape(sess.run(y, dict(zip(phs, c.inputs)))))
            for i, v in enumerate(c.inputs):
                others = {p: w for j, (p, w) in enumerate(zip(phs, c.inputs)) if j != i}
                theoretical, numerical = tf.test.compute_gradient(
                    phs[i], list(v.shape), y, y_shape, x_init_value=v, delta=1e-6,
                    extra_feed_dict=others)
                np.testing.assert_allclose(theoretical, numerical, rtol=1e-5, atol=1e-6,
                                           err_msg=f"{c.id}: input {i}")


def test_qr_gradient_needs_static_dims():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float64, [None, 3])
        q, r = tf.qr(a)
        with pytest.raises(NotImplementedError, match="static matrix dimensions"):
            tf.gradients(tf.reduce_sum(q), a)
