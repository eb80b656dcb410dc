"""The structured operators (Zeros, Householder, Permutation, Toeplitz, Tridiag,
LowRankUpdate, Kronecker, BlockDiag, BlockLowerTriangular, Circulant 1/2/3-D) against
dense NumPy math, over the shapes and dtypes of TF's linear_operator_*_test.py."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from linop_checks import check_operator

LA = tf.linalg
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]


def _rand(shape, dtype, seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _cond(shape, dtype, seed=1):
    return _rand(shape, dtype, seed) + 3 * shape[-1] * np.eye(shape[-1], dtype=dtype)


@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3), (2, 4)])
def test_zeros(shape):
    batch = list(shape[:-2]) or None
    op = check_operator(lambda: (LA.LinearOperatorZeros(
        shape[-2], shape[-1], batch_shape=batch, is_square=shape[-1] == shape[-2],
        is_self_adjoint=shape[-1] == shape[-2]), np.zeros(shape, np.float32)),
        square=False, solvable=False)
    assert op.is_non_singular is False
    with tf.Graph().as_default():
        z = LA.LinearOperatorZeros(3)
        with tf.Session() as sess:
            assert sess.run(z.log_abs_determinant()) == -np.inf
            assert sess.run(z.determinant()) == 0
        with pytest.raises(NotImplementedError):
            z.solve(np.ones([3, 1], np.float32))
        with pytest.raises(ValueError):
            LA.LinearOperatorZeros(2, 3)
        with pytest.raises(ValueError):
            LA.LinearOperatorZeros(2, is_non_singular=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1,), (4,), (2, 4)])
def test_householder(shape, dtype):
    v = _rand(shape, dtype)
    u = v / np.linalg.norm(v, axis=-1, keepdims=True)
    dense = np.eye(shape[-1], dtype=dtype) - 2 * u[..., :, None] * np.conj(u[..., None, :])
    check_operator(lambda: (LA.LinearOperatorHouseholder(v), dense), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("perm", [[0], [2, 0, 1], [[1, 0, 3, 2], [3, 2, 0, 1]]])
def test_permutation(perm, dtype):
    p = np.asarray(perm)
    dense = (p[..., :, None] == np.arange(p.shape[-1])).astype(dtype)
    check_operator(lambda: (LA.LinearOperatorPermutation(p, dtype=dtype), dense), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,batch", [(1, ()), (4, ()), (3, (2,))])
def test_toeplitz(n, batch, dtype):
    col = _rand(batch + (n,), dtype, 2)
    row = _rand(batch + (n,), dtype, 3)
    col[..., 0] += 5 * n
    row[..., 0] = col[..., 0]
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    dense = np.where(i >= j, col[..., np.abs(i - j)], row[..., np.abs(i - j)])
    check_operator(lambda: (LA.LinearOperatorToeplitz(col, row), dense), dtype)


@pytest.mark.parametrize("fmt", ["compact", "sequence", "matrix"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [(), (2,)])
def test_tridiag(fmt, dtype, batch):
    n = 4
    sup, diag, sub = (_rand(batch + (n,), dtype, s) for s in (4, 5, 6))
    diag = diag + 6
    dense = np.zeros(batch + (n, n), dtype)
    idx = np.arange(n)
    dense[..., idx, idx] = diag
    dense[..., idx[:-1], idx[1:]] = sup[..., :-1]
    dense[..., idx[1:], idx[:-1]] = sub[..., 1:]
    arg = {"compact": lambda: np.stack([sup, diag, sub], axis=-2),
           "sequence": lambda: [sup, diag, sub],
           "matrix": lambda: dense + np.triu(np.ones((n, n), dtype), 2)}[fmt]()
    check_operator(lambda: (LA.LinearOperatorTridiag(arg, diagonals_format=fmt), dense), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("use_diag,use_v", [(False, False), (True, False), (True, True)])
def test_low_rank_update(dtype, use_diag, use_v):
    n, k = 4, 2
    base = _cond((n, n), dtype, 7)
    u, v = _rand((2, n, k), dtype, 8), _rand((2, n, k), dtype, 9)
    d = np.abs(_rand((2, k), dtype, 10)) + 1
    scale = d[..., :, None] if use_diag else np.ones((2, k, 1), dtype)
    dense = base + u @ (scale * np.conj(np.swapaxes(v if use_v else u, -1, -2)))
    check_operator(lambda: (LA.LinearOperatorLowRankUpdate(
        LA.LinearOperatorFullMatrix(base), u, diag_update=d if use_diag else None,
        v=v if use_v else None), dense), dtype)


def test_low_rank_update_positive_definite_hints():
    with tf.Graph().as_default():
        base = LA.LinearOperatorDiag([1., 2.], is_positive_definite=True)
        op = LA.LinearOperatorLowRankUpdate(base, [[1.], [2.]])
        assert op.is_self_adjoint and op.is_positive_definite
        with pytest.raises(ValueError):
            LA.LinearOperatorLowRankUpdate(base, [[1.], [2.]], is_diag_update_positive=False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_kronecker(dtype):
    a, b, c = _cond((2, 2), dtype, 1), _cond((3, 3), dtype, 2), _cond((2, 2, 2), dtype, 3)
    dense = np.stack([np.kron(np.kron(a, np.tril(b)), c[i]) for i in range(2)])
    single = np.dtype(dtype) in (np.float32, np.complex64)
    check_operator(lambda: (LA.LinearOperatorKronecker(
        [LA.LinearOperatorFullMatrix(a), LA.LinearOperatorLowerTriangular(b),
         LA.LinearOperatorFullMatrix(c)]), dense), dtype, tol=1e-3 if single else None)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [(), (2,)])
def test_block_diag(dtype, batch):
    a, b = _cond(batch + (2, 2), dtype, 1), _cond((3, 3), dtype, 2)
    dense = np.zeros(batch + (5, 5), dtype)
    dense[..., :2, :2] = a
    dense[..., 2:, 2:] = np.tril(b)
    check_operator(lambda: (LA.LinearOperatorBlockDiag(
        [LA.LinearOperatorFullMatrix(a), LA.LinearOperatorLowerTriangular(b)]), dense), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_block_lower_triangular(dtype):
    a, b, c = _cond((2, 2), dtype, 1), _rand((3, 2), dtype, 2), _cond((3, 3), dtype, 3)
    d, e, f = _rand((1, 2), dtype, 4), _rand((1, 3), dtype, 5), _cond((1, 1), dtype, 6)
    dense = np.zeros((6, 6), dtype)
    dense[:2, :2], dense[2:5, :2], dense[2:5, 2:5] = a, b, c
    dense[5:, :2], dense[5:, 2:5], dense[5:, 5:] = d, e, f
    full = LA.LinearOperatorFullMatrix
    check_operator(lambda: (LA.LinearOperatorBlockLowerTriangular(
        [[full(a)], [full(b), full(c)], [full(d), full(e), full(f)]]), dense), dtype)


def _circulant_dense(spectrum, depth):
    n = int(np.prod(spectrum.shape[-depth:]))
    eye = np.eye(n).reshape((n,) + spectrum.shape[-depth:])
    axes = tuple(range(-depth, 0))
    cols = np.fft.ifftn(np.expand_dims(spectrum, -depth - 1) * np.fft.fftn(eye, axes=axes),
                        axes=axes)
    return np.swapaxes(cols.reshape(spectrum.shape[:-depth] + (n, n)), -1, -2)


@pytest.mark.parametrize("depth,cls", [(1, "LinearOperatorCirculant"),
                                       (2, "LinearOperatorCirculant2D"),
                                       (3, "LinearOperatorCirculant3D")])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_circulant(depth, cls, dtype):
    block = {1: (4,), 2: (2, 3), 3: (2, 2, 2)}[depth]
    spectrum = (_rand((2,) + block, dtype) + 4).astype(dtype)
    dense = _circulant_dense(spectrum, depth).astype(dtype)
    check_operator(lambda: (getattr(LA, cls)(spectrum, input_output_dtype=dtype), dense),
                   dtype)


@pytest.mark.parametrize("depth,cls", [(1, "LinearOperatorCirculant"),
                                       (2, "LinearOperatorCirculant2D")])
def test_circulant_real_from_hermitian_spectrum(depth, cls):
    block = {1: (5,), 2: (3, 3)}[depth]
    kernel = _rand(block, np.float64)
    spectrum = np.fft.fftn(kernel)
    dense = np.real(_circulant_dense(spectrum, depth))
    check_operator(lambda: (getattr(LA, cls)(spectrum.astype(np.complex128),
                                             input_output_dtype=tf.float64), dense),
                   np.float64)
    with tf.Graph().as_default():
        op = getattr(LA, cls)(spectrum, input_output_dtype=tf.float64)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(op.convolution_kernel()), kernel, atol=1e-12)
            sess.run(op.assert_hermitian_spectrum())
