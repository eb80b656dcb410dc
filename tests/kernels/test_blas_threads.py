"""Products cut into pieces among the intra-op threads equal NumPy's whole products, for
row, column and batch cuts, transposed views, broadcasting, other dtypes and out=."""
import numpy as np
import pytest

from trainflow._src.kernels import blas_threads, intra_op


@pytest.fixture
def split_everything(monkeypatch):
    """Two threads, and every product large enough to be cut into pieces."""
    intra_op.set_threads(2)
    monkeypatch.setattr(blas_threads, "PARALLEL_MIN", 1)
    monkeypatch.setattr(blas_threads, "PIECE_MIN", 1)
    yield
    intra_op.set_threads(0)


def _rand(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


CASES = [
    # (a shape, b shape, dtype, transpose a, transpose b)
    ((128, 96), (96, 40), np.float32, False, False),     # rows cut
    ((40, 96), (96, 128), np.float32, False, False),     # columns cut
    ((96, 128), (96, 40), np.float32, True, False),      # a.T view
    ((40, 96), (128, 96), np.float64, False, True),      # b.T view
    ((96, 40), (128, 96), np.complex64, True, True),
    ((6, 33, 20), (6, 20, 17), np.float32, False, False),  # batch cut
    ((6, 33, 20), (20, 17), np.float32, False, False),     # b broadcast over the batch
    ((1, 33, 20), (6, 20, 17), np.float32, False, False),  # a broadcast over the batch
    ((2, 3, 33, 20), (3, 20, 17), np.complex128, False, False),
    ((70, 20), (20, 50), np.int32, False, False),          # not BLAS: whole
    ((20,), (20, 50), np.float32, False, False),           # vector: whole
]


@pytest.mark.parametrize("a_shape, b_shape, dtype, ta, tb", CASES)
def test_pieces_equal_the_whole_product(split_everything, a_shape, b_shape, dtype, ta, tb):
    rng = np.random.default_rng(0)
    a = _rand(rng, a_shape, dtype)
    b = _rand(rng, b_shape, dtype)
    a = a.T if ta else a
    b = b.T if tb else b
    want = np.matmul(a, b)
    got = blas_threads.matmul(a, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(blas_threads.matmul(a, b), got)  # same pieces each run


def test_out_argument_is_filled(split_everything):
    rng = np.random.default_rng(1)
    a, b = rng.random((64, 48)), rng.random((48, 80))
    out = np.empty((64, 80))
    assert blas_threads.matmul(a, b, out=out) is out
    np.testing.assert_allclose(out, a @ b, rtol=1e-12)


def test_mismatched_shapes_raise_numpys_error(split_everything):
    with pytest.raises(ValueError):
        blas_threads.matmul(np.ones((4, 3), np.float32), np.ones((4, 3), np.float32))
    with pytest.raises(ValueError):
        blas_threads.matmul(np.ones((2, 4, 3)), np.ones((3, 3, 5)))


def test_inputs_are_left_alone(split_everything):
    a = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    b = np.ones((32, 48), np.float32)
    a0, b0 = a.copy(), b.copy()
    blas_threads.matmul(a, b)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


@pytest.mark.parametrize("threads, work, expected", [
    (1, 10**9, 1), (2, 10, 1), (2, 10**9, 4), (4, 3 * 10**6, 3)])
def test_piece_counts(monkeypatch, threads, work, expected):
    monkeypatch.setattr(blas_threads, "PARALLEL_MIN", 2_000_000)
    monkeypatch.setattr(blas_threads, "PIECE_MIN", 1_000_000)
    monkeypatch.setattr(blas_threads, "PIECES_PER_THREAD", 2)
    intra_op.set_threads(threads)
    try:
        assert blas_threads.pieces(work) == expected
        assert blas_threads.for_work(work) == min(threads, expected)
    finally:
        intra_op.set_threads(0)


def test_blas_runs_on_one_thread_after_a_product():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    blas_threads.matmul(np.ones((4, 4)), np.ones((4, 4)))
    for lib in threadpoolctl.threadpool_info():
        if lib["user_api"] == "blas":
            assert lib["num_threads"] == 1
