"""Matrix products shared among the intra-op threads, each piece on a one-thread BLAS.

OpenBLAS's own threads split a product into fixed parts and spin while they wait for
work and for each other; when another process holds one of the cores, the part on that
core holds the whole product up and the spinning takes time from the thread that runs
the graph (on 2 cores with a neighbour process, a 128x784 @ 784x512 product went from
5 ms on one thread to 18-38 ms on two). So BLAS is set to one thread (threadpoolctl, on
the first product, and again once scipy.linalg or scipy.special has loaded SciPy's own
OpenBLAS) and a large product is cut into pieces along its longer output dimension,
which the `intra_op` threads take as they come free; every piece writes its own slice of
the result.
"""
import functools
import sys
import threading

import numpy as np

from trainflow._src.kernels import intra_op

# Products of fewer multiply-adds than this run whole on the calling thread: waking a
# helper costs tens of microseconds.
PARALLEL_MIN = 2_000_000
# The least work in one piece, and how many pieces each thread gets at most: a few
# pieces a thread let a thread on a free core take over the work of one on a busy core.
PIECE_MIN = 1_000_000
PIECES_PER_THREAD = 2
# Piece boundaries fall on multiples of this many rows/columns (whole SIMD blocks).
ALIGN = 16
# BLAS dtypes (float32, float64, complex64, complex128); others go to np.matmul whole.
_BLAS_CHARS = "fdFD"

_lock = threading.Lock()
# Which of SciPy's modules that load its own OpenBLAS were loaded when the BLAS libraries
# were last set to one thread; None before the first product.
_seen_scipy = [None]
_modules = sys.modules


def _scipy_blas():
    return "scipy.linalg" in _modules, "scipy.special" in _modules


def _setup():
    """Sets every BLAS library loaded (NumPy's, and SciPy's once scipy.linalg is
    imported) to one thread, where threadpoolctl can."""
    with _lock:
        scipy_loaded = _scipy_blas()
        if _seen_scipy[0] == scipy_loaded:
            return
        try:
            from threadpoolctl import ThreadpoolController
            for controller in ThreadpoolController().lib_controllers:
                if controller.user_api == "blas" and controller.num_threads != 1:
                    controller.set_num_threads(1)
        except Exception:  # noqa: BLE001 - no control over BLAS threads: keep its default
            pass
        _seen_scipy[0] = scipy_loaded


def pieces(work):
    """How many pieces a product of `work` multiply-adds is cut into (1: run whole)."""
    n = intra_op.threads()
    if n <= 1 or work < PARALLEL_MIN:
        return 1
    return max(1, min(n * PIECES_PER_THREAD, work // PIECE_MIN))


def for_work(work):
    """How many threads a product of `work` multiply-adds is shared among."""
    return min(intra_op.threads(), pieces(work))


def _edges(size, count):
    """`count` (or fewer) boundaries cutting range(size) at multiples of ALIGN."""
    count = max(1, min(count, size // ALIGN))
    cuts = [(size * i // count) // ALIGN * ALIGN for i in range(count)] + [size]
    return sorted(set(cuts))


def matmul(a, b, out=None):
    """np.matmul(a, b) (2-D or batched, NumPy's broadcasting), large ones in pieces."""
    if _seen_scipy[0] != _scipy_blas():
        _setup()
    if a.ndim == 2 and b.ndim == 2:  # the common case, decided without NumPy calls
        if a.shape[0] * a.shape[1] * b.shape[-1] < PARALLEL_MIN or \
                a.shape[1] != b.shape[0] or a.dtype != b.dtype or \
                a.dtype.char not in _BLAS_CHARS or intra_op.threads() <= 1:
            return np.matmul(a, b, out=out)
    elif (a.ndim < 2 or b.ndim < 2 or a.dtype != b.dtype or a.dtype.char not in _BLAS_CHARS
            or a.shape[-1] != b.shape[-2]):
        return np.matmul(a, b, out=out)
    m, k = a.shape[-2:]
    n = b.shape[-1]
    try:
        batch_shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        return np.matmul(a, b, out=out)  # NumPy's own error
    batch = int(np.prod(batch_shape, dtype=np.int64))
    count = pieces(batch * m * k * n)
    if count <= 1:
        return np.matmul(a, b, out=out)
    if out is None:
        out = np.empty(batch_shape + (m, n), a.dtype)
    if batch >= count and len(batch_shape) >= 1:
        tasks = _batch_pieces(a, b, out, count)
    elif m >= n:
        tasks = [functools.partial(np.matmul, a[..., lo:hi, :], b, out=out[..., lo:hi, :])
                 for lo, hi in _pairs(_edges(m, count))]
    else:
        tasks = [functools.partial(np.matmul, a, b[..., lo:hi], out=out[..., lo:hi])
                 for lo, hi in _pairs(_edges(n, count))]
    intra_op.run(tasks)
    return out


def _pairs(edges):
    return zip(edges[:-1], edges[1:])


def _batch_pieces(a, b, out, count):
    """Pieces cutting the first batch dimension of `out` (operands broadcast along it
    are passed whole)."""
    size = out.shape[0]
    cuts = sorted({size * i // count for i in range(count)} | {size})
    tasks = []
    for lo, hi in _pairs(cuts):
        pa = a[lo:hi] if a.ndim == out.ndim and a.shape[0] == size else a
        pb = b[lo:hi] if b.ndim == out.ndim and b.shape[0] == size else b
        tasks.append(functools.partial(np.matmul, pa, pb, out=out[lo:hi]))
    return tasks
