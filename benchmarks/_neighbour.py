"""A CPU-burning neighbour process for measuring on a busy machine (`--busy`).

    with busy_neighbour():
        ...  # runs while another process keeps one core busy

Standard library only. The neighbour is pinned to the last processor this process may
run on (Linux; elsewhere it is not pinned) and is stopped when the block ends.
"""
import contextlib
import os
import subprocess
import sys

_BURN = ("import os, sys\n"
         "cpu = int(sys.argv[1])\n"
         "if cpu >= 0 and hasattr(os, 'sched_setaffinity'):\n"
         "    os.sched_setaffinity(0, {cpu})\n"
         "while True:\n"
         "    pass\n")


def _last_cpu():
    if hasattr(os, "sched_getaffinity"):
        return max(os.sched_getaffinity(0))
    return -1


@contextlib.contextmanager
def busy_neighbour(enabled=True):
    """While the block runs, a process spinning on one core (nothing when not `enabled`).

    Yields the processor it is pinned to (-1 when not pinned), or None when disabled.
    """
    if not enabled:
        yield None
        return
    cpu = _last_cpu()
    proc = subprocess.Popen([sys.executable, "-c", _BURN, str(cpu)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        yield cpu
    finally:
        proc.kill()
        proc.wait(timeout=10)


def load_average():
    """The 1-minute load average ('?' where the system does not report it)."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):
        return "?"
