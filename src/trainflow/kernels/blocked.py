"""Running a pure elementwise update over large buffers in place, block by block.

An optimizer rule written as NumPy expressions makes one temporary array per operation.
Over a whole 10M-element variable those temporaries cost a full pass through memory
each; over a block of BLOCK elements they stay in the CPU cache, so the update reads
and writes each buffer about once, as a fused kernel does, and a step allocates only
a few blocks' worth of scratch. Large updates are shared among a small thread pool
(NumPy releases the GIL inside its loops).
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor

# Elements per block: 16K float32 = 64 KiB per operand, so a rule's operands and
# temporaries fit in L2, and each temporary stays under glibc's 128 KiB mmap threshold
# (a 128 KiB temporary is mapped and unmapped on every allocation: twice as slow).
BLOCK = 1 << 14
# Updates smaller than this run on the calling thread alone.
PARALLEL_MIN = 1 << 20

_pool_lock = threading.Lock()
_pool = {"executor": None, "workers": 1}


def _executor():
    if _pool["executor"] is None:
        with _pool_lock:
            if _pool["executor"] is None:
                workers = max(1, min(4, os.cpu_count() or 1))
                _pool["workers"] = workers
                if workers > 1:
                    _pool["executor"] = ThreadPoolExecutor(
                        workers - 1, thread_name_prefix="trainflow-blocked")
    return _pool["executor"]


def _same_buffer(a, b):
    return a.shape == b.shape and \
        a.__array_interface__["data"][0] == b.__array_interface__["data"][0]


def _run_range(rule, outs, sliced, fixed, start, stop, kwargs):
    """rule() over [start, stop) block by block, results written into `outs`."""
    # For each output, the argument holding the same buffer: a result that is that very
    # argument (a value the rule passed through) needs no write-back.
    same = [next((j for j, (a, s) in enumerate(zip(fixed, sliced)) if s and _same_buffer(a, o)),
                 None) for o in outs]
    for lo in range(start, stop, BLOCK):
        hi = min(lo + BLOCK, stop)
        args = [a[lo:hi] if s else a for a, s in zip(fixed, sliced)]
        for out, new, j in zip(outs, rule(*args, **kwargs), same):
            if j is None or new is not args[j]:
                out[lo:hi] = new


def update_in_place(rule, outs, args, sliced, kwargs):
    """Runs `rule(*args, **kwargs)` elementwise and writes its results into `outs`.

    Args:
      rule: a pure function returning one array per entry of `outs`.
      outs: the buffers to update (C-contiguous, equal shapes); they may appear in `args`.
      args: the rule's positional arguments.
      sliced: per argument, True if it is an array shaped like `outs` (cut into blocks),
        False for scalars passed whole.
      kwargs: keyword arguments (attrs) for the rule.
    """
    size = outs[0].size
    if not all(o.flags.c_contiguous for o in outs) or \
            not all(a.flags.c_contiguous for a, s in zip(args, sliced) if s):
        for out, new in zip(outs, rule(*args, **kwargs)):
            out[...] = new
        return
    flat_outs = [o.reshape(-1) for o in outs]
    flat_args = [a.reshape(-1) if s else a for a, s in zip(args, sliced)]
    pool = _executor() if size >= PARALLEL_MIN else None
    if pool is None:
        _run_range(rule, flat_outs, sliced, flat_args, 0, size, kwargs)
        return
    workers = _pool["workers"]
    per = -(-size // workers)
    per = -(-per // BLOCK) * BLOCK
    bounds = [(lo, min(lo + per, size)) for lo in range(0, size, per)]
    futures = [pool.submit(_run_range, rule, flat_outs, sliced, flat_args, lo, hi, kwargs)
               for lo, hi in bounds[1:]]
    _run_range(rule, flat_outs, sliced, flat_args, *bounds[0], kwargs)
    for f in futures:
        f.result()
