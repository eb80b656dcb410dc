"""Keeping the memory of freed kernel buffers in the process from one step to the next.

Kernels allocate their outputs and large intermediates (megabytes each) afresh every
step. glibc's malloc serves such blocks with mmap, or from an arena whose free top it
hands back to the OS once it passes a trim threshold (by default twice the dynamic
mmap threshold), so every step touches fresh pages again: one page fault per 4 KiB,
which costs microseconds on a virtual machine, more when two threads fault at once.
On the CIFAR-style conv step (benchmarks/conv_step.py, conv1) that was about 1,200
faults in Conv2D and 1,000 in MaxPoolGrad per step: a third of Conv2D's CPU time.

`retain_freed_memory` raises glibc's mmap threshold to its maximum (MMAP_THRESHOLD:
blocks up to 32 MiB then come from the arenas and are reused) and its trim threshold
to RETAIN_BYTES (freed memory up to that much stays mapped), the way a caching
allocator keeps its pool: the process keeps up to RETAIN_BYTES of freed memory instead
of shrinking between steps. It changes nothing where the C library is not glibc, where
the user already tuned malloc (MALLOC_*_ variables or glibc.malloc tunables), or with
TRAINFLOW_KEEP_FREED_MEMORY=0. The first session applies it (runtime/process_settings.py,
where the process-wide settings are made).
"""
import ctypes
import os

# mallopt parameters (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# glibc's largest mmap threshold on 64-bit systems (half its arena heap size).
MMAP_THRESHOLD = 32 << 20
RETAIN_BYTES = 256 << 20
_USER_TUNING = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_",
                "MALLOC_MMAP_MAX_")

_state = {"done": False, "applied": False}


def _glibc():
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (AttributeError, ValueError, OSError):
        return False


def _user_tuned():
    env = os.environ
    return any(name in env for name in _USER_TUNING) or \
        "glibc.malloc" in env.get("GLIBC_TUNABLES", "")


def retain_freed_memory():
    """Applies the thresholds above once per process; returns whether they are applied."""
    if not _state["done"]:
        _state["done"] = True
        if os.environ.get("TRAINFLOW_KEEP_FREED_MEMORY", "1") != "0" and _glibc() \
                and not _user_tuned():
            libc = ctypes.CDLL(None)
            # The mmap threshold first: setting either one fixes both (glibc stops
            # adjusting the mmap threshold itself).
            _state["applied"] = bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and \
                bool(libc.mallopt(_M_TRIM_THRESHOLD, RETAIN_BYTES))
    return _state["applied"]

