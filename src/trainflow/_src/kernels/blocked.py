"""Running elementwise updates over large buffers in place, block by block.

Two forms:
- `update_in_place` runs a pure rule (NumPy expressions returning new arrays) block by
  block and writes its results back; each operation's temporary then stays in the CPU
  cache instead of costing a pass through memory.
- `run_blocks` runs an in-place block function, which computes with `out=` ufunc calls
  into the buffers and into scratch blocks taken from a pool that lives as long as the
  process: no allocation at all in the steady state.

Large updates are shared among a few threads (NumPy releases the GIL inside its loops).
"""
import itertools
import os
import threading

import numpy as np

# Elements per block: 16K float32 = 64 KiB per operand, so a rule's operands and
# temporaries fit in L2, and each temporary stays under glibc's 128 KiB mmap threshold
# (a 128 KiB temporary is mapped and unmapped on every allocation: twice as slow).
BLOCK = 1 << 14
# Updates smaller than this run on the calling thread alone; larger ones are shared among
# WORKERS threads started for the update (tens of microseconds, against milliseconds of
# work), so no thread outlives the kernel call. The threads take CHUNK blocks at a time.
PARALLEL_MIN = 1 << 20
CHUNK = 4
# Bytes per operand in a block of `run_blocks` (128K float32): its scratch is pooled, so
# the mmap threshold does not apply; on two cores 512 KiB measured fastest (Adam over
# 10M float32: 20 ms, against 29 ms with 128 KiB and 25 ms with 2 MiB).
INPLACE_BLOCK_BYTES = 1 << 19
WORKERS = max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                       else os.cpu_count() or 1))

# Updates of at most this many elements take fresh scratch (a small malloc is cheaper
# than the pool's lock) and skip the block loop.
SMALL = 1 << 10

_pool_lock = threading.Lock()
_free_scratch = {}  # (dtype, count, length) -> [list of `count` arrays, ...]


def _take_scratch(dtype, count, length):
    key = (np.dtype(dtype), count, length)
    with _pool_lock:
        free = _free_scratch.get(key)
        if free:
            return free.pop()
    return [np.empty(length, dtype) for _ in range(count)]


def _give_scratch(dtype, count, length, arrays):
    with _pool_lock:
        _free_scratch.setdefault((np.dtype(dtype), count, length), []).append(arrays)


def _split(size, work, block=BLOCK):
    """work(lo, hi) over [0, size) in runs of whole blocks: on this thread alone when
    small, else on WORKERS threads (this one included) that each take the next run of
    CHUNK blocks until none is left, so a thread the OS leaves waiting holds up at most
    one run while the others do the rest. A worker's error is raised here."""
    if size < PARALLEL_MIN or WORKERS == 1:
        work(0, size)
        return
    step = CHUNK * block
    runs = itertools.count()  # next() on it is atomic under the GIL
    errors = []

    def worker():
        try:
            while not errors:
                lo = next(runs) * step
                if lo >= size:
                    return
                work(lo, min(lo + step, size))
        except BaseException as e:  # noqa: BLE001 - re-raised on the calling thread
            errors.append(e)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(WORKERS - 1)]
    for t in threads:
        t.start()
    worker()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


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
    if not all(o.flags.c_contiguous for o in outs) or \
            not all(a.flags.c_contiguous for a, s in zip(args, sliced) if s):
        for out, new in zip(outs, rule(*args, **kwargs)):
            out[...] = new
        return
    flat_outs = [o.reshape(-1) for o in outs]
    flat_args = [a.reshape(-1) if s else a for a, s in zip(args, sliced)]
    _split(outs[0].size,
           lambda lo, hi: _run_range(rule, flat_outs, sliced, flat_args, lo, hi, kwargs))


def contiguous(*arrays):
    """Whether every array is C-contiguous (so `run_blocks` can write into it)."""
    return all(a.flags.c_contiguous for a in arrays)


def run_blocks(block, arrays, n_scratch):
    """Calls `block(*pieces, *scratch)` over matching blocks of `arrays`, in place.

    Args:
      block: writes its results into its array arguments with `out=` ufunc calls; it may
        use the `n_scratch` scratch arrays (as long as the block, the arrays' dtype)
        freely. Blocks hold INPLACE_BLOCK_BYTES per array. It must not let one block's
        result depend on another block.
      arrays: equal-sized arrays; the ones `block` writes into must be C-contiguous
        (`contiguous`); the others are read through a flat view or copy.
      n_scratch: how many scratch arrays `block` needs.
    """
    flat = [a.reshape(-1) for a in arrays]
    dtype = flat[0].dtype
    size = flat[0].size
    if size <= SMALL:
        block(*flat, *(np.empty(size, dtype) for _ in range(n_scratch)))
        return

    length = max(1, INPLACE_BLOCK_BYTES // dtype.itemsize)

    def work(start, stop):
        scratch = _take_scratch(dtype, n_scratch, length)
        try:
            for lo in range(start, stop, length):
                hi = min(lo + length, stop)
                n = hi - lo
                block(*[a[lo:hi] for a in flat], *[s[:n] for s in scratch])
        finally:
            _give_scratch(dtype, n_scratch, length, scratch)
    _split(size, work, length)
