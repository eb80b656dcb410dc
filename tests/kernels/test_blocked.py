"""The blocked in-place writer: same numbers as one whole-array call, across blocks and
threads, for strided buffers, with passthrough results and worker errors."""
import numpy as np
import pytest

from trainflow._src.kernels import blocked


def _rule(var, acc, lr, grad):
    acc = acc + grad * grad
    return var - lr * grad / np.sqrt(acc), acc


def _passthrough(var, acc, lr, grad):
    return var - lr * grad, acc


@pytest.mark.parametrize("size", [10, blocked.BLOCK * 3 + 7, blocked.PARALLEL_MIN + 5])
def test_matches_one_call(size):
    rng = np.random.RandomState(size % 1000)
    var, acc, grad = (rng.rand(size).astype(np.float32) + 0.5 for _ in range(3))
    lr = np.float32(0.1)
    want = _rule(var, acc, lr, grad)
    blocked.update_in_place(_rule, [var, acc], [var, acc, lr, grad], [True, True, False, True],
                            {})
    np.testing.assert_array_equal(var, want[0])
    np.testing.assert_array_equal(acc, want[1])


def test_strided_buffers_and_passthrough():
    base = np.arange(20, dtype=np.float64).reshape(4, 5)
    var = base[:, ::2]  # not contiguous: computed whole, then written back
    acc = np.ones((4, 3))
    grad = np.full((4, 3), 2.0)
    want = var - 0.5 * grad
    blocked.update_in_place(_passthrough, [var, acc], [var, acc, 0.5, grad],
                            [True, True, False, True], {})
    np.testing.assert_array_equal(base[:, ::2], want)
    np.testing.assert_array_equal(acc, 1.0)


def test_worker_errors_reach_the_caller():
    size = blocked.PARALLEL_MIN * 2
    var = np.zeros(size, np.float32)

    def failing(v, g):
        if v.base is not None and g[0] == 1:
            raise FloatingPointError("bad block")
        return (v + g,)

    grad = np.zeros(size, np.float32)
    grad[-blocked.BLOCK:] = 1
    with pytest.raises(FloatingPointError, match="bad block"):
        blocked.update_in_place(failing, [var], [var, grad], [True, True], {})


def _axpy_block(var, grad, t):
    np.multiply(grad, 2, out=t)
    np.add(var, t, out=var)


@pytest.mark.parametrize("size", [5, blocked.SMALL + 3, 9000])
def test_run_blocks_writes_in_place_over_blocks_and_threads(size, monkeypatch):
    monkeypatch.setattr(blocked, "INPLACE_BLOCK_BYTES", 512)
    monkeypatch.setattr(blocked, "PARALLEL_MIN", 4096)
    monkeypatch.setattr(blocked, "WORKERS", 2)
    var = np.arange(size, dtype=np.float32).reshape(-1, 1)
    grad = np.ones((size, 2), np.float32)[:, :1]  # strided: read through a copy
    want = var + 2
    blocked.run_blocks(_axpy_block, (var, grad), 1)
    np.testing.assert_array_equal(var, want)


def test_run_blocks_raises_a_worker_error(monkeypatch):
    monkeypatch.setattr(blocked, "INPLACE_BLOCK_BYTES", 4096)
    monkeypatch.setattr(blocked, "PARALLEL_MIN", 1024)
    monkeypatch.setattr(blocked, "WORKERS", 2)

    def failing(var, t):
        if var[0] >= 4096:
            raise FloatingPointError("bad block")
        np.add(var, 1, out=var)

    with pytest.raises(FloatingPointError, match="bad block"):
        blocked.run_blocks(failing, (np.arange(1 << 16, dtype=np.float32),), 1)
