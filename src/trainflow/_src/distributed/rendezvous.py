"""Where a step's tensors meet between tasks: TensorFlow's rendezvous keys, one table
per step on each task, and the step context the `_Send`/`_Recv` kernels run under.

A key names one tensor crossing from one device to another within a step:
``src_device;src_incarnation;dst_device;tensor_name;frame_id:iter_id`` with the
incarnation as 16 hex digits, as TensorFlow writes it.
"""
import collections
import threading
import time

from trainflow._src.framework import errors


def create_key(src_device, src_incarnation, dst_device, name, frame_iter=(0, 0)):
    """TensorFlow's rendezvous key for tensor `name` sent from `src_device`."""
    return (f"{src_device};{src_incarnation & 0xFFFFFFFFFFFFFFFF:016x};{dst_device};{name};"
            f"{frame_iter[0]}:{frame_iter[1]}")


def parse_key(key):
    """(src_device, src_incarnation, dst_device, tensor_name, frame_iter) of a key.

    Raises:
      InvalidArgumentError: for a malformed key.
    """
    parts = key.split(";")
    if len(parts) != 5:
        raise errors.InvalidArgumentError(None, None, f"Invalid rendezvous key: {key}")
    try:
        inc = int(parts[1], 16)
        frame, it = (int(x) for x in parts[4].split(":"))
    except ValueError:
        raise errors.InvalidArgumentError(None, None,
                                          f"Invalid rendezvous key: {key}") from None
    return parts[0], inc, parts[2], parts[3], (frame, it)


class StepRendezvous:
    """The tensors sent within one step on one task, each received once."""

    def __init__(self):
        self._cond = threading.Condition()
        self._values = {}
        self._error = None
        self.created = time.monotonic()
        self.finished = False  # the task's partition of the step has run

    def send(self, key, value, is_dead=False):
        """Makes `value` available under `key`.

        Raises:
          the abort error, if the step was aborted.
        """
        with self._cond:
            if self._error is not None:
                raise self._error
            self._values[key] = (value, is_dead)
            self._cond.notify_all()

    def recv(self, key, deadline=None):
        """(value, is_dead) sent under `key`, waiting for it until `deadline`
        (time.monotonic() seconds; None waits until the step is aborted).

        Raises:
          DeadlineExceededError: past the deadline; the abort error if aborted.
        """
        with self._cond:
            while key not in self._values:
                if self._error is not None:
                    raise self._error
                wait = 0.5
                if deadline is not None:
                    wait = deadline - time.monotonic()
                    if wait <= 0:
                        raise errors.DeadlineExceededError(
                            None, None, f"Timed out waiting for tensor {_tensor_of(key)}")
                self._cond.wait(min(wait, 0.5))
            return self._values.pop(key)

    def abort(self, error):
        """Fails every waiting and later send/recv of the step with `error`."""
        with self._cond:
            if self._error is None:
                self._error = error
            self._cond.notify_all()


def _tensor_of(key):
    parts = key.split(";")
    return parts[3] if len(parts) == 5 else key


class RendezvousTable:
    """step_id -> StepRendezvous of one task; a step's table exists from its first
    send, recv or RunGraph until CleanupGraph (or the TTL)."""

    TTL_SECONDS = 600.0
    _REMEMBER_ABORTED = 1024

    def __init__(self):
        self._lock = threading.Lock()
        self._steps = {}
        # Steps cleaned up already: a RunGraph or RecvTensor of one that arrives late
        # fails at once instead of waiting for tensors that will never come.
        self._aborted = collections.OrderedDict()
        self._last_expiry = 0.0

    def find_or_create(self, step_id):
        with self._lock:
            rv = self._steps.get(step_id)
            if rv is None:
                rv = StepRendezvous()
                error = self._aborted.get(step_id)
                if error is not None:
                    rv.abort(error)
                    return rv
                self._steps[step_id] = rv
                self._expire_locked()
            return rv

    def finish(self, step_id):
        """Marks the step's partition on this task done; its table goes once every value
        sent in it was received (at once when none is left)."""
        with self._lock:
            rv = self._steps.get(step_id)
            if rv is not None:
                rv.finished = True
                if not rv._values:
                    del self._steps[step_id]

    def release_if_done(self, step_id, rv):
        """Drops the step's table `rv` if its partition is done and nothing is left in it."""
        if rv.finished and not rv._values:
            with self._lock:
                if self._steps.get(step_id) is rv and not rv._values:
                    del self._steps[step_id]

    def cleanup(self, step_id, error=None):
        """Drops the step's table, aborting what still waits in it (and what comes later
        for the step)."""
        error = error or errors.AbortedError(None, None, f"Step {step_id} was cleaned up")
        with self._lock:
            rv = self._steps.pop(step_id, None)
            self._aborted[step_id] = error
            while len(self._aborted) > self._REMEMBER_ABORTED:
                self._aborted.popitem(last=False)
        if rv is not None:
            rv.abort(error)

    def abort_all(self, error):
        with self._lock:
            steps = list(self._steps.values())
            self._steps.clear()
        for rv in steps:
            rv.abort(error)

    def _expire_locked(self):
        if len(self._steps) < 256:
            return
        now = time.monotonic()
        if now - self._last_expiry < 1.0:
            return
        self._last_expiry = now
        for sid in [s for s, rv in self._steps.items() if now - rv.created > self.TTL_SECONDS]:
            self._steps.pop(sid).abort(errors.AbortedError(None, None, "Step expired"))


class StepContext:
    """What the `_Send`/`_Recv` kernels of a partition run with: the step's table on
    this task, how to fetch a tensor from another task, and the step's deadline."""

    def __init__(self, step_id, rendezvous, local_devices, remote_recv, deadline):
        self.step_id = step_id
        self.rendezvous = rendezvous
        self.local_devices = local_devices
        self.remote_recv = remote_recv
        self.deadline = deadline


_current = threading.local()


def current():
    """The StepContext of the partition running in this thread.

    Raises:
      InternalError: outside a partition run (a _Send/_Recv in a local session).
    """
    ctx = getattr(_current, "ctx", None)
    if ctx is None:
        raise errors.InternalError(None, None, "_Send/_Recv ran outside a distributed step")
    return ctx


def set_current(ctx):
    prev = getattr(_current, "ctx", None)
    _current.ctx = ctx
    return prev
