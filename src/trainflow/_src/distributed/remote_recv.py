"""A partition's tensors from other tasks, asked for ahead of the `_Recv` kernels.

When a step starts on a task, the RecvTensor calls of its `_Recv` ops that always run
(no control inputs) are started at once, a few at a time in the partition's order, so
the transfers overlap with each other and with the step's work (as TensorFlow's
executor runs its receives asynchronously). Each key is asked for exactly once: by a
call started here, or, when a kernel wants a key not started yet, by that kernel.
"""
import threading
import time

from trainflow._src.protos import worker_pb2
from trainflow._src.distributed import rendezvous

# RecvTensor calls in flight per partition run. Each waits in a server thread of the
# sending task until the value is produced there (see the pool size in server_lib).
WINDOW = 8


def prefetchable(ops, local_devices):
    """[(key, src_task)] of the `_Recv` ops of `ops` that take a tensor from another
    task and always run, in order."""
    out = []
    for op in ops:
        if op.type != "_Recv" or op._control_inputs:
            continue
        attrs = op._attrs
        if attrs.get("client_terminated"):
            continue
        send_device = _text(attrs["send_device"])
        if send_device in local_devices:
            continue
        key = rendezvous.create_key(send_device, attrs["send_device_incarnation"],
                                    _text(attrs["recv_device"]), _text(attrs["tensor_name"]))
        out.append((key, send_device.rsplit("/device:", 1)[0]))
    return out


def _text(v):
    return v.decode() if isinstance(v, bytes) else v


class StepRecvs:
    """The remote tensors of one partition run.

    Args:
      step_id: the step.
      keys: [(key, src_task)] to ask for ahead (see `prefetchable`).
      stub: fn(task) -> wire.Stub of that task's WorkerService.
      deadline: time.monotonic() seconds, or None.
    """

    def __init__(self, step_id, keys, stub, deadline):
        self._step_id = step_id
        self._stub = stub
        self._deadline = deadline
        self._lock = threading.Lock()
        self._queue = list(reversed(keys))
        self._task_of = dict(keys)
        self._pending = {}
        self._closed = False
        with self._lock:
            self._fill_locked()

    def _start(self, key, task):
        timeout = None if self._deadline is None else \
            max(0.001, self._deadline - time.monotonic())
        return self._stub(task).start(
            "RecvTensor", worker_pb2.RecvTensorRequest(step_id=self._step_id,
                                                       rendezvous_key=key),
            timeout, what=f"RecvTensor from {task}")

    def _fill_locked(self):
        while self._queue and len(self._pending) < WINDOW and not self._closed:
            key, task = self._queue.pop()
            self._pending[key] = self._start(key, task)

    def recv(self, key):
        """(value, is_dead) of `key` from the task that sends it.

        Raises:
          OpError: as the RecvTensor call failed.
        """
        with self._lock:
            call = self._pending.pop(key, None)
            if call is None:
                task = self._task_of.get(key)
                if task is not None and (key, task) in self._queue:
                    self._queue.remove((key, task))
                else:
                    task = rendezvous.parse_key(key)[0].rsplit("/device:", 1)[0]
                call = self._start(key, task)
            self._fill_locked()
        reply = call.result()
        if reply.is_dead:
            return None, True
        return reply.value, False

    def close(self):
        """Cancels the calls no kernel took (the step failed or skipped them)."""
        with self._lock:
            self._closed = True
            pending, self._pending = list(self._pending.values()), {}
        for call in pending:
            call.cancel()
