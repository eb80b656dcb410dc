"""The state of one Session.run call: cancellation and deadline, visible to kernels.

Blocking kernels wait through `RunState.wait`, which wakes up when the run is
cancelled (Session.close) or its deadline (RunOptions.timeout_in_ms) passes.
"""
import threading
import time

from trainflow._src.framework import errors

_local = threading.local()
# Guards the waiter lists of all RunStates: only blocking kernels and cancellation take
# it, so creating a RunState per step costs no lock.
_WAITERS_LOCK = threading.Lock()


class RunState:
    """Cancellation token and deadline of one step."""

    __slots__ = ("deadline", "cancelled", "cancel_message", "_waiters", "step_id")

    def __init__(self, timeout_in_ms=0, step_id=0):
        self.deadline = time.monotonic() + timeout_in_ms / 1000.0 if timeout_in_ms > 0 else None
        self.cancelled = False
        self.cancel_message = ""
        self._waiters = []
        self.step_id = step_id

    def cancel(self, message="Session has been closed."):
        """Cancels the run: blocked kernels raise CancelledError."""
        with _WAITERS_LOCK:
            self.cancelled = True
            self.cancel_message = message
            waiters = list(self._waiters)
        for cond in waiters:
            with cond:
                cond.notify_all()

    def check(self):
        """Raises CancelledError or DeadlineExceededError if the run must stop."""
        if self.cancelled:
            raise errors.CancelledError(None, None, self.cancel_message or "Run was cancelled")
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise errors.DeadlineExceededError(None, None, "Timed out waiting for notification")

    def wait(self, cond, predicate, poll=0.05):
        """Waits on `cond` (held by the caller) until `predicate()` is true.

        Raises:
          CancelledError / DeadlineExceededError: if the run is cancelled or times out.
        """
        with _WAITERS_LOCK:
            self._waiters.append(cond)
        try:
            while not predicate():
                self.check()
                timeout = poll
                if self.deadline is not None:
                    timeout = max(0.0, min(poll, self.deadline - time.monotonic()))
                cond.wait(timeout)
            return True
        finally:
            with _WAITERS_LOCK:
                self._waiters.remove(cond)


_IDLE = RunState()


def current():
    """The RunState of the Session.run executing on this thread."""
    return getattr(_local, "state", _IDLE)


def set_current(state):
    """Installs `state` for this thread; returns the previous one."""
    prev = getattr(_local, "state", _IDLE)
    _local.state = state
    return prev
