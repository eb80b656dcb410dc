"""What tf.data's background threads share: a cancellation token with RunState's
interface (`check`, `wait`) that their iterator's close() sets, and a thread starter."""
import threading
import time

from trainflow._src.framework import errors

AUTOTUNE = -1
# How many elements a buffer sized AUTOTUNE holds.
AUTOTUNE_BUFFER = 4


class Cancellation:
    """The RunState of a background thread: cancelled when its iterator is closed."""

    def __init__(self):
        self.cancelled = False
        self._conds = []
        self._lock = threading.Lock()

    def cancel(self):
        with self._lock:
            self.cancelled = True
            conds = list(self._conds)
        for cond in conds:
            with cond:
                cond.notify_all()

    def check(self):
        if self.cancelled:
            raise errors.CancelledError(None, None, "Iterator was closed")

    def wait(self, cond, predicate, poll=0.1):
        """Waits on `cond` (held by the caller) until `predicate()`; raises CancelledError
        once cancelled."""
        with self._lock:
            self._conds.append(cond)
        try:
            while not predicate():
                self.check()
                cond.wait(poll)
            return True
        finally:
            with self._lock:
                self._conds.remove(cond)


def start_thread(target, name):
    """A started daemon thread (a finished program never waits for a pipeline)."""
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread


def join(thread, timeout=5.0):
    """Joins `thread` unless it is the caller; bounded, so close() never hangs."""
    if thread is not None and thread is not threading.current_thread():
        deadline = time.monotonic() + timeout
        thread.join(max(0.0, deadline - time.monotonic()))
