"""Running a pure elementwise update over large buffers in place, block by block.

An optimizer rule written as NumPy expressions makes one temporary array per operation.
Over a whole 10M-element variable those temporaries cost a full pass through memory
each; over a block of BLOCK elements they stay in the CPU cache, so the update reads
and writes each buffer about once, as a fused kernel does, and a step allocates only
a few blocks' worth of scratch. Large updates are shared among a few threads
(NumPy releases the GIL inside its loops).
"""
import os
import threading

# Elements per block: 16K float32 = 64 KiB per operand, so a rule's operands and
# temporaries fit in L2, and each temporary stays under glibc's 128 KiB mmap threshold
# (a 128 KiB temporary is mapped and unmapped on every allocation: twice as slow).
BLOCK = 1 << 14
# Updates smaller than this run on the calling thread alone; larger ones are split among
# WORKERS threads started for the update (tens of microseconds, against milliseconds of
# work), so no thread outlives the kernel call.
PARALLEL_MIN = 1 << 20
WORKERS = max(1, min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                       else os.cpu_count() or 1))


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
    if size < PARALLEL_MIN or WORKERS == 1:
        _run_range(rule, flat_outs, sliced, flat_args, 0, size, kwargs)
        return
    per = -(-size // WORKERS)
    per = -(-per // BLOCK) * BLOCK
    bounds = [(lo, min(lo + per, size)) for lo in range(0, size, per)]
    errors = []

    def work(lo, hi):
        try:
            _run_range(rule, flat_outs, sliced, flat_args, lo, hi, kwargs)
        except BaseException as e:  # noqa: BLE001 - re-raised on the calling thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=b, daemon=True) for b in bounds[1:]]
    for t in threads:
        t.start()
    work(*bounds[0])
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
