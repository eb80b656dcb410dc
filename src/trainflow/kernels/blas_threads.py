"""How many threads NumPy's BLAS uses for one product, chosen by its size.

OpenBLAS's worker threads help large products but cost more than they save on small
ones (they also keep spinning between calls, taking a core from the executor thread).
Kernels call `for_work(m * k * n)` before a product: small products run on one thread,
large ones on all the threads BLAS was started with. Without threadpoolctl or an
OpenBLAS (MKL, Accelerate), this does nothing.
"""
import threading

# Products below this many multiply-adds run single-threaded (measured on 2 cores:
# a 64x784x64 step runs ~1.7x faster, a 64x784x512 step is unchanged).
SMALL_WORK = 4_000_000

_lock = threading.Lock()
_state = {"controller": None, "max": 1, "current": None, "ready": False}


def _setup():
    with _lock:
        if _state["ready"]:
            return
        _state["ready"] = True
        try:
            from threadpoolctl import ThreadpoolController
            controllers = [c for c in ThreadpoolController().lib_controllers
                           if c.internal_api == "openblas"]
        except Exception:  # noqa: BLE001 - no control over BLAS threads: keep defaults
            return
        if len(controllers) == 1 and controllers[0].num_threads > 1:
            _state["controller"] = controllers[0]
            _state["max"] = controllers[0].num_threads
            _state["current"] = controllers[0].num_threads


def for_work(work):
    """Sets BLAS's thread count for a product of `work` multiply-adds."""
    if not _state["ready"]:
        _setup()
    controller = _state["controller"]
    if controller is None:
        return
    want = 1 if work < SMALL_WORK else _state["max"]
    if want != _state["current"]:
        _state["current"] = want
        controller.set_num_threads(want)


def matmul(a, b):
    """np.matmul of `a` and `b` with the thread count for its size."""
    import numpy as np
    batch = max(1, a.size // max(1, a.shape[-2] * a.shape[-1]))
    for_work(batch * a.shape[-2] * a.shape[-1] * b.shape[-1])
    return np.matmul(a, b)
