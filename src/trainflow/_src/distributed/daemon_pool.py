"""A thread pool whose threads never hold up interpreter exit.

`concurrent.futures.ThreadPoolExecutor` joins its threads when the interpreter exits,
so one gRPC handler blocked in a step (a RunGraph waiting on a queue or an accumulator
for a peer that has finished) keeps a finished trainer alive forever. TensorFlow's
server threads are C++ threads that never do that. This pool's threads are daemons and
are not registered with `concurrent.futures`' exit hook: a process whose main thread
returns exits, whatever its servers are still serving.
"""
import collections
import concurrent.futures
import itertools
import threading

_IDLE_S = 60.0


class DaemonPool:
    """The part of `ThreadPoolExecutor` that grpc servers and the master use (`submit`,
    `shutdown`), on daemon threads made on demand (at most `max_workers`; idle ones end
    after a minute).

    Args:
      max_workers: the most threads running at once.
      thread_name_prefix: the threads' names are "<prefix>_<n>".
    """

    def __init__(self, max_workers, thread_name_prefix="daemon-pool"):
        self._max = max_workers
        self._prefix = thread_name_prefix
        self._names = itertools.count()
        self._cond = threading.Condition()
        self._work = collections.deque()
        self._threads = 0
        self._idle = 0
        self._shutdown = False

    def submit(self, fn, /, *args, **kwargs):
        """Runs `fn(*args, **kwargs)` on a pool thread; returns its Future.

        Raises:
          RuntimeError: after shutdown (as ThreadPoolExecutor).
        """
        future = concurrent.futures.Future()
        with self._cond:
            if self._shutdown:
                raise RuntimeError("cannot schedule new futures after shutdown")
            self._work.append((future, fn, args, kwargs))
            if self._idle > len(self._work) - 1:
                self._cond.notify()
                return future
            start = self._threads < self._max
            if start:
                self._threads += 1
        if start:
            threading.Thread(target=self._loop, daemon=True,
                             name=f"{self._prefix}_{next(self._names)}").start()
        return future

    def _next(self):
        with self._cond:
            while not self._work:
                if self._shutdown:
                    self._threads -= 1
                    return None
                self._idle += 1
                woke = self._cond.wait(_IDLE_S)
                self._idle -= 1
                if not woke and not self._work:
                    self._threads -= 1
                    return None
            return self._work.popleft()

    def _loop(self):
        while True:
            item = self._next()
            if item is None:
                return
            future, fn, args, kwargs = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn(*args, **kwargs)
            except BaseException as e:  # noqa: BLE001 - handed to the future's owner
                future.set_exception(e)
            else:
                future.set_result(result)
            del item, future, fn, args, kwargs

    def shutdown(self, wait=True, *, cancel_futures=False):
        """Takes no more work; with `cancel_futures` drops the work not started. Never
        waits for running calls (`wait` is accepted for ThreadPoolExecutor's signature):
        a call may be blocked for good, and a stopping server must not hang on it."""
        del wait
        with self._cond:
            self._shutdown = True
            dropped = list(self._work) if cancel_futures else []
            if cancel_futures:
                self._work.clear()
            self._cond.notify_all()
        for future, *_ in dropped:
            future.cancel()
