"""The operators built from tensors of unknown static shape (TF's use_placeholder
cases of linear_operator_test_util), and the self-adjoint positive definite paths
(cholesky, eigvals, cond), against dense NumPy math."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from linop_checks import check_operator, dynamic

LA = tf.linalg


def _rand(shape, dtype=np.float64, seed=1):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _cond(shape, seed=1):
    return _rand(shape, seed=seed) + 3 * shape[-1] * np.eye(shape[-1])


def _diag_dense(d):
    out = np.zeros(d.shape + d.shape[-1:])
    idx = np.arange(d.shape[-1])
    out[..., idx, idx] = d
    return out


A, B, D = _cond((2, 3, 3)), _cond((3, 3), 2), _rand((2, 3), seed=3) + 4
CASES = {
    "full_matrix": lambda k: (LA.LinearOperatorFullMatrix(dynamic(A, k)), A),
    "diag": lambda k: (LA.LinearOperatorDiag(dynamic(D, k)), _diag_dense(D)),
    "lower_triangular": lambda k: (LA.LinearOperatorLowerTriangular(dynamic(A, k)),
                                   np.tril(A)),
    "scaled_identity": lambda k: (LA.LinearOperatorScaledIdentity(
        dynamic(3, k) if k else 3, dynamic(D[:, 0], k)), D[:, 0, None, None] * np.eye(3)),
    "composition": lambda k: (LA.LinearOperatorComposition(
        [LA.LinearOperatorFullMatrix(dynamic(A, k)), LA.LinearOperatorFullMatrix(
            dynamic(B, k))]), A @ B),
    "block_diag": lambda k: (LA.LinearOperatorBlockDiag(
        [LA.LinearOperatorFullMatrix(dynamic(A, k)), LA.LinearOperatorDiag(dynamic(D, k))]),
        np.block([[A, np.zeros((2, 3, 3))], [np.zeros((2, 3, 3)), _diag_dense(D)]])),
    "householder": lambda k: (LA.LinearOperatorHouseholder(dynamic(D, k)), np.eye(3) - 2 * (
        D / np.linalg.norm(D, axis=-1, keepdims=True))[..., :, None] * (
        D / np.linalg.norm(D, axis=-1, keepdims=True))[..., None, :]),
    "kronecker": lambda k: (LA.LinearOperatorKronecker(
        [LA.LinearOperatorFullMatrix(dynamic(B[:2, :2], k)),
         LA.LinearOperatorFullMatrix(dynamic(B, k))]), np.kron(B[:2, :2], B)),
    "toeplitz": lambda k: (LA.LinearOperatorToeplitz(dynamic(D[0], k), dynamic(D[0], k)),
                           np.array([[D[0, abs(i - j)] for j in range(3)] for i in range(3)])),
    "tridiag": lambda k: (LA.LinearOperatorTridiag(dynamic(np.stack([D[0], D[1], D[0]]), k)),
                          np.diag(D[1]) + np.diag(D[0, :2], 1) + np.diag(D[0, 1:], -1)),
    "low_rank_update": lambda k: (LA.LinearOperatorLowRankUpdate(
        LA.LinearOperatorFullMatrix(dynamic(A, k)), dynamic(A[..., :2] / 4, k)),
        A + (A[..., :2] / 4) @ np.swapaxes(A[..., :2] / 4, -1, -2)),
    "permutation": lambda k: (LA.LinearOperatorPermutation(dynamic([[1, 2, 0], [0, 2, 1]], k),
                                                           dtype=tf.float64),
                              np.eye(3)[[[1, 2, 0], [0, 2, 1]]]),
    "circulant": lambda k: (LA.LinearOperatorCirculant(dynamic(np.fft.fft(D[0]), k),
                                                       input_output_dtype=tf.float64),
                            np.real(np.fft.ifft(np.fft.fft(D[0])[:, None] * np.fft.fft(
                                np.eye(3), axis=0), axis=0))),
    "block_lower_triangular": lambda k: (LA.LinearOperatorBlockLowerTriangular(
        [[LA.LinearOperatorFullMatrix(dynamic(B, k))],
         [LA.LinearOperatorFullMatrix(dynamic(B, k)),
          LA.LinearOperatorFullMatrix(dynamic(B, k))]]),
        np.block([[B, np.zeros((3, 3))], [B, B]])),
}


@pytest.mark.parametrize("rank_known", [True, False])
@pytest.mark.parametrize("case", sorted(CASES))
def test_unknown_static_shapes(case, rank_known):
    check_operator(lambda: CASES[case](rank_known), np.float64, static=False)


def test_identity_with_tensor_sizes():
    check_operator(lambda: (LA.LinearOperatorIdentity(
        tf.placeholder_with_default(3, shape=[]), batch_shape=[2], dtype=tf.float64),
        np.broadcast_to(np.eye(3), (2, 3, 3))), np.float64, static=False)


@pytest.mark.parametrize("batch", [(), (2,)])
def test_positive_definite_paths(batch):
    a = _rand(batch + (4, 4))
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    with tf.Graph().as_default():
        op = LA.LinearOperatorFullMatrix(spd, is_self_adjoint=True, is_positive_definite=True)
        chol = op.cholesky()
        with tf.Session() as sess:
            l_, eig, cond, det, logdet, sol = sess.run([
                chol.to_dense(), op.eigvals(), op.cond(), op.determinant(),
                op.log_abs_determinant(), op.solve(np.ones(batch + (4, 1)))])
    np.testing.assert_allclose(l_, np.linalg.cholesky(spd), rtol=1e-10)
    np.testing.assert_allclose(eig, np.linalg.eigvalsh(spd), rtol=1e-10)
    np.testing.assert_allclose(cond, np.linalg.cond(spd), rtol=1e-10)
    np.testing.assert_allclose(det, np.linalg.det(spd), rtol=1e-10)
    np.testing.assert_allclose(logdet, np.linalg.slogdet(spd)[1], rtol=1e-10)
    np.testing.assert_allclose(sol, np.linalg.solve(spd, np.ones(batch + (4, 1))),
                               rtol=1e-10)
