"""The process's intra-op thread pool: kernels share out pieces of one large operation.

TensorFlow runs a kernel's inner loops on an intra-op pool of
`ConfigProto.intra_op_parallelism_threads` threads. Here the calling thread and
`threads() - 1` helper threads take pieces of a job (NumPy releases the GIL inside its
loops and BLAS calls) from a shared counter until none are left. Pieces are handed out
as threads become free rather than fixed in advance, so a helper whose core is busy
with another process takes fewer pieces instead of holding the step up; idle helpers
block on a queue (no spinning).

The helpers are started on first use and live as long as the process, like a BLAS
library's own threads; they are plain `_thread` threads, not `threading.Thread`s.
"""
import _thread
import itertools
import os
import queue
import sys

_state = {
    "setting": 0,       # what was asked for: 0 = automatic
    "sized_by_session": False,  # whether a session has sized the pool yet
    "threads": None,    # the resolved count (caller included); None until first needed
    "helpers": 0,       # helper threads started so far
    "jobs": queue.SimpleQueue(),
    "busy": _thread.allocate_lock(),
}


def _cpu_count():
    """Processors this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def set_threads(n):
    """Sets the pool's size: `n` threads including the caller; 0 chooses automatically.

    Automatic is the number of processors this process may run on (its CPU affinity).
    On a machine busy with other processes that still helps: pieces go to whichever
    thread is free, so a core shared with another process does less of the work.
    """
    n = int(n)
    if n < 0:
        raise ValueError(f"intra-op thread count must be >= 0, got {n}")
    _state["setting"] = n
    _state["threads"] = None


def size_from_first_session(n):
    """Sizes the pool from a session's `intra_op_parallelism_threads`, the first time
    only: as TensorFlow's process-wide intra-op pool, which the first session creates
    and every later session shares whatever its config says. `set_threads` still
    changes it."""
    if not _state["sized_by_session"]:
        _state["sized_by_session"] = True
        set_threads(n)


def threads():
    """The number of threads (the caller included) a job is shared among."""
    n = _state["threads"]
    if n is None:
        n = _state["setting"] or _cpu_count()
        _state["threads"] = n
    return n


def _helper(jobs):
    while True:
        jobs.get().work()


def _start_helpers(count):
    while _state["helpers"] < count:
        _thread.start_new_thread(_helper, (_state["jobs"],))
        _state["helpers"] += 1


class _Job:
    """Pieces of work taken in turn by whichever thread asks next."""

    __slots__ = ("tasks", "next", "finished", "done", "error")

    def __init__(self, tasks):
        self.tasks = tasks
        self.next = itertools.count()        # next() is atomic under the GIL
        self.finished = itertools.count(1)
        self.done = _thread.allocate_lock()
        self.done.acquire()
        self.error = None

    def work(self):
        tasks = self.tasks
        n = len(tasks)
        while True:
            i = next(self.next)
            if i >= n:
                return
            try:
                tasks[i]()
            except BaseException:  # noqa: BLE001 - re-raised on the calling thread
                if self.error is None:
                    self.error = sys.exc_info()[1]
            if next(self.finished) == n:
                self.done.release()


def run(tasks):
    """Runs the callables `tasks` (in any order, some at once) and returns when all are done.

    The caller works too. When the pool is already running another job (a second thread
    calling in, or a task that itself calls `run`), the tasks run on the caller alone.
    The first exception a task raised is raised here, after every task has finished.
    """
    helpers = min(threads(), len(tasks)) - 1
    busy = _state["busy"]
    if helpers <= 0 or not busy.acquire(False):
        for task in tasks:
            task()
        return
    try:
        if _state["helpers"] < helpers:
            _start_helpers(helpers)
        job = _Job(tasks)
        put = _state["jobs"].put
        for _ in range(helpers):
            put(job)
        job.work()
        job.done.acquire()
    finally:
        busy.release()
    if job.error is not None:
        raise job.error


def _after_fork_in_child():
    # The helper threads are not copied into a forked child: start afresh there.
    _state["helpers"] = 0
    _state["jobs"] = queue.SimpleQueue()
    _state["busy"] = _thread.allocate_lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
