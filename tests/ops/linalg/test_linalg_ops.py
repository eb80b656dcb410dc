"""The linear algebra ops against NumPy: values, dtypes, static shapes and errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

R = np.random.RandomState(11)
SQ = (R.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)).astype(np.float32)
SQB = (R.uniform(-1, 1, (2, 3, 3)) + 3 * np.eye(3)).astype(np.float32)
SPD = (SQ @ SQ.T + np.eye(3)).astype(np.float32)
RHS = R.uniform(-1, 1, (3, 2)).astype(np.float32)
TALL = R.uniform(-1, 1, (4, 3)).astype(np.float32)

CASES = [
    ("inv", lambda: tf.matrix_inverse(SQB), np.linalg.inv(SQB), (2, 3, 3)),
    ("inv_adjoint", lambda: tf.linalg.inv(SQ, adjoint=True), np.linalg.inv(SQ.T), (3, 3)),
    ("det", lambda: tf.matrix_determinant(SQB), np.linalg.det(SQB), (2,)),
    ("slogdet", lambda: tf.linalg.slogdet(SQB)[1], np.linalg.slogdet(SQB)[1], (2,)),
    ("cholesky", lambda: tf.cholesky(SPD), np.linalg.cholesky(SPD), (3, 3)),
    ("solve", lambda: tf.matrix_solve(SQ, RHS), np.linalg.solve(SQ, RHS), (3, 2)),
    ("solve_adjoint", lambda: tf.linalg.solve(SQ, RHS, adjoint=True),
     np.linalg.solve(SQ.T, RHS), (3, 2)),
    ("triangular_solve", lambda: tf.matrix_triangular_solve(SQ, RHS),
     np.linalg.solve(np.tril(SQ), RHS), (3, 2)),
    ("triangular_solve_upper_adjoint",
     lambda: tf.linalg.triangular_solve(SQ, RHS, lower=False, adjoint=True),
     np.linalg.solve(np.triu(SQ).T, RHS), (3, 2)),
    ("cholesky_solve", lambda: tf.linalg.cholesky_solve(tf.cholesky(SPD), RHS),
     np.linalg.solve(SPD, RHS), (3, 2)),
    ("svd_values", lambda: tf.svd(TALL, compute_uv=False),
     np.linalg.svd(TALL, compute_uv=False), (3,)),
    ("band_part", lambda: tf.matrix_band_part(SQB, 1, 0), np.tril(SQB) - np.tril(SQB, -2),
     (2, 3, 3)),
    ("band_part_upper", lambda: tf.linalg.band_part(SQ, 0, -1), np.triu(SQ), (3, 3)),
    ("trace", lambda: tf.trace(SQB), np.trace(SQB, axis1=1, axis2=2), (2,)),
    ("eye", lambda: tf.eye(3), np.eye(3), (3, 3)),
    ("eye_rect_batch", lambda: tf.eye(2, 3, batch_shape=[2]),
     np.broadcast_to(np.eye(2, 3), (2, 2, 3)), (2, 2, 3)),
    ("transpose", lambda: tf.matrix_transpose(SQB), np.swapaxes(SQB, 1, 2), (2, 3, 3)),
    ("adjoint", lambda: tf.linalg.adjoint(TALL), TALL.T, (3, 4)),
    ("cross", lambda: tf.cross(TALL[:2], SQ[:2]), np.cross(TALL[:2], SQ[:2]), (2, 3)),
    ("logdet", lambda: tf.linalg.logdet(SPD), np.linalg.slogdet(SPD)[1], ()),
    ("lstsq", lambda: tf.matrix_solve_ls(TALL, RHS[:, :1].repeat(4, 0)[:4]),
     np.linalg.lstsq(TALL, RHS[:, :1].repeat(4, 0)[:4], rcond=None)[0], (3, 1)),
    ("lstsq_svd_l2", lambda: tf.linalg.lstsq(TALL, TALL[:, :2], 0.5, fast=False),
     np.linalg.solve(TALL.T @ TALL + 0.5 * np.eye(3), TALL.T @ TALL[:, :2]), (3, 2)),
    ("eigvalsh", lambda: tf.self_adjoint_eigvals(SPD), np.linalg.eigvalsh(SPD), (3,)),
    ("eigh_lower_only", lambda: tf.self_adjoint_eig(np.tril(SPD))[0],
     np.linalg.eigvalsh(SPD), (3,)),
    ("diag", lambda: tf.linalg.diag(RHS.T), np.stack([np.diag(r) for r in RHS.T]),
     (2, 3, 3)),
    ("diag_part", lambda: tf.linalg.diag_part(SQB), np.diagonal(SQB, axis1=1, axis2=2),
     (2, 3)),
]


@pytest.mark.parametrize("name,fn,want,shape", CASES, ids=[c[0] for c in CASES])
def test_matches_numpy(name, fn, want, shape):
    with tf.Graph().as_default():
        out = fn()
        assert out.shape.as_list() == list(shape)
        with tf.Session() as sess:
            got = sess.run(out)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)


def test_svd_and_qr_reconstruct():
    with tf.Graph().as_default(), tf.Session() as sess:
        s, u, v = sess.run(tf.svd(TALL))
        np.testing.assert_allclose((u * s) @ v.T, TALL, atol=1e-5)
        s, u, v = sess.run(tf.svd(TALL, full_matrices=True))
        assert u.shape == (4, 4) and v.shape == (3, 3)
        q, r = sess.run(tf.qr(TALL))
        np.testing.assert_allclose(q @ r, TALL, atol=1e-5)


@pytest.mark.parametrize("fn,message", [
    (lambda: tf.matrix_inverse(np.zeros((2, 2), np.float32)), "not invertible"),
    (lambda: tf.matrix_solve(np.zeros((2, 2), np.float32), np.ones((2, 1), np.float32)),
     "not invertible"),
    (lambda: tf.cholesky(-np.eye(2, dtype=np.float32)), "Cholesky decomposition was not"),
])
def test_singular_inputs_are_invalid_argument(fn, message):
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            sess.run(fn())


def test_shape_errors_at_graph_construction():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="must be equal"):
            tf.matrix_inverse(tf.zeros([2, 3]))
        with pytest.raises(ValueError, match="rank"):
            tf.matrix_determinant(tf.zeros([3]))
        with pytest.raises(ValueError):
            tf.cross(tf.zeros([2, 4]), tf.zeros([2, 4]))
        with pytest.raises(TypeError, match="positive integer"):
            tf.eye(2.5)
        unknown = tf.matrix_inverse(tf.placeholder(tf.float32))
        assert unknown.shape.rank is None


@pytest.mark.parametrize("ord_,axis,ref", [
    ("euclidean", None, lambda x: np.sqrt((x ** 2).sum())),
    (1, None, lambda x: np.abs(x).sum()),
    (np.inf, 1, lambda x: np.abs(x).max(axis=1)),
    (3, 0, lambda x: (np.abs(x) ** 3).sum(axis=0) ** (1 / 3)),
    (0.5, 1, lambda x: (np.abs(x) ** 0.5).sum(axis=1) ** 2),
    ("fro", (0, 1), lambda x: np.linalg.norm(x, "fro")),
    (1, (0, 1), lambda x: np.linalg.norm(x, 1)),
    (np.inf, (0, 1), lambda x: np.linalg.norm(x, np.inf)),
    (2, (0, 1), lambda x: np.linalg.norm(x, 2)),
    (2, (1, 0), lambda x: np.linalg.norm(x, 2)),
    (2, [-2, -1], lambda x: np.linalg.norm(x, 2)),
])
def test_norm_matches_numpy(ord_, axis, ref):
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.norm(TALL, ord=ord_, axis=axis))
        kept = tf.norm(TALL, ord=ord_, axis=axis, keepdims=True)
        assert kept.shape.rank in (2, None)
    np.testing.assert_allclose(got, ref(TALL.astype(np.float64)), rtol=1e-5)


def test_norm_of_batched_matrices_and_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.norm(SQB, ord=2, axis=[1, 2]))
        np.testing.assert_allclose(got, [np.linalg.norm(m, 2) for m in SQB], rtol=1e-5)
        with pytest.raises(ValueError, match="'ord' must be a supported matrix norm"):
            tf.norm(SQB, ord=3, axis=[1, 2])
        with pytest.raises(ValueError, match="'ord' must be a supported vector norm"):
            tf.norm(SQB, ord=-1)
        with pytest.raises(ValueError, match="'axis' must be None"):
            tf.norm(SQB, axis=[1, 1])
        with pytest.raises(ValueError, match="'axis' must be None"):
            tf.norm(SQB, axis=1.5)
