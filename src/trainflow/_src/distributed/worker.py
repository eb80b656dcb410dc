"""The worker half of a task: TensorFlow's WorkerService. It holds the partitions the
masters registered, runs one per RunGraph with the step's `_Send`/`_Recv` tensors
going through this task's rendezvous table (RecvTensor serves them to other tasks),
and keeps the task's resources (variables, queues) for every session."""
import itertools
import threading
import time

from trainflow._src.framework import errors
from trainflow._src.framework.graph import Graph
from trainflow._src.framework import graph_def as graph_def_lib
from trainflow._src.protos import config_pb2, device_attributes_pb2, worker_pb2
from trainflow._src.runtime import targets
from trainflow._src.runtime.session import BaseSession
from trainflow._src.distributed import placement, remote_recv, rendezvous, tensor_codec, wire
from trainflow._src.distributed import send_recv  # noqa: F401  (registers _Send/_Recv)

_DEFAULT_RECV_TIMEOUT_S = 3600.0


def _without_colocation(graph_def):
    """`graph_def` less its `_class` attrs: a partition is placed already, and a node may
    name a colocation target that runs in another partition or not in this step (TF's
    workers don't check colocation either)."""
    if not any("_class" in node.attr for node in graph_def.node):
        return graph_def
    out = type(graph_def)()
    out.CopyFrom(graph_def)
    for node in out.node:
        if "_class" in node.attr:
            del node.attr["_class"]
    return out


class _Partition:
    """One registered graph: its Graph and the session that runs it on this task."""

    def __init__(self, graph_def, resources_target, device):
        self.graph_def = graph_def
        self.graph = Graph()
        with self.graph.as_default():
            graph_def_lib.import_graph_def(_without_colocation(graph_def), name="")
        self.ops = list(self.graph.get_operations())
        self.remote_recvs = remote_recv.prefetchable(self.ops, (device,))
        self.session = BaseSession(resources_target, graph=self.graph)
        self.lock = threading.Lock()


class WorkerService:
    """Serves WorkerService for one task.

    Args:
      task: this task's name (/job:worker/replica:0/task:0).
      resources_target: the in-process target of the task's resource manager.
      peer_address: fn(task name) -> "host:port" of another task.
      incarnation: this task's incarnation (changes every start).
    """

    def __init__(self, task, resources_target, peer_address, incarnation):
        self.task = task
        self.device = placement.cpu_device(task)
        self.incarnation = incarnation
        self._resources_target = resources_target
        self._peer_address = peer_address
        self._graphs = {}
        self._handles = itertools.count(1)
        self._lock = threading.Lock()
        self.rendezvous = rendezvous.RendezvousTable()
        self._channels = {}
        self._running = 0

    # -- service methods ---------------------------------------------------------------
    def GetStatus(self, request, context):  # noqa: N802 - gRPC method names
        return worker_pb2.GetStatusResponse(device_attributes=[self.device_attributes()])

    def device_attributes(self):
        return device_attributes_pb2.DeviceAttributes(
            name=self.device, device_type="CPU", memory_limit=268435456,
            incarnation=self.incarnation)

    def CreateWorkerSession(self, request, context):  # noqa: N802
        return worker_pb2.CreateWorkerSessionResponse()

    def DeleteWorkerSession(self, request, context):  # noqa: N802
        with self._lock:
            for h in [h for h, (s, _) in self._graphs.items() if s == request.session_handle]:
                self._graphs.pop(h)
        return worker_pb2.DeleteWorkerSessionResponse()

    def RegisterGraph(self, request, context):  # noqa: N802
        for node in request.graph_def.node:
            if node.op == "_Send":
                inc = node.attr["send_device_incarnation"].i & 0xFFFFFFFFFFFFFFFF
                if inc != self.incarnation:
                    raise errors.AbortedError(
                        None, None, f"Task {self.task} restarted: the graph was built for "
                        f"incarnation {inc:016x}, this is {self.incarnation:016x}")
        part = _Partition(request.graph_def, self._resources_target, self.device)
        handle = f"{self.task}/graph_{next(self._handles)}"
        with self._lock:
            self._graphs[handle] = (request.session_handle, part)
        return worker_pb2.RegisterGraphResponse(graph_handle=handle)

    def DeregisterGraph(self, request, context):  # noqa: N802
        with self._lock:
            entry = self._graphs.pop(request.graph_handle, None)
        if entry is not None:
            # A step still running this graph (blocked on a queue or an accumulator) ends
            # with CancelledError, as TF's CloseSession cancels the session's steps.
            entry[1].session.close()
        return worker_pb2.DeregisterGraphResponse()

    def RunGraph(self, request, context):  # noqa: N802
        with self._lock:
            entry = self._graphs.get(request.graph_handle)
        if entry is None:
            raise errors.AbortedError(None, None, f"Graph handle is not found: "
                                                  f"{request.graph_handle}. Possibly, this "
                                                  "worker just restarted.")
        part = entry[1]
        deadline = _deadline(context)
        rv = self.rendezvous.find_or_create(request.step_id)
        for named in request.send:
            rv.send(named.name, wire.from_tensor_proto(named.tensor, writable=False))
        # A partial run may run some of the partition's ops per call: no receives ahead.
        ahead = () if request.is_partial else part.remote_recvs
        recvs = remote_recv.StepRecvs(request.step_id, ahead, self._stub, deadline)
        step = rendezvous.StepContext(request.step_id, rv, (self.device,), recvs.recv,
                                      deadline)
        options = None
        remaining = context.time_remaining() if context is not None else None
        if remaining is not None and remaining < _DEFAULT_RECV_TIMEOUT_S:
            # Blocking ops (queues) give up when the master stops waiting for this step.
            options = config_pb2.RunOptions(timeout_in_ms=max(1, int(remaining * 1000)))
        metadata = None
        if request.exec_opts.record_timeline or request.exec_opts.record_costs:
            options = options or config_pb2.RunOptions()
            options.trace_level = config_pb2.RunOptions.FULL_TRACE
            metadata = config_pb2.RunMetadata()
        watch = _StepWatch(self.rendezvous, request.step_id)
        if getattr(context, "add_callback", None) is not None:
            # The RPC ends before the step when the master cancels it, closes, or dies: the
            # step's blocked kernels then end with CancelledError (TF's call cancellation).
            context.add_callback(watch.rpc_ended)
        prev = rendezvous.set_current(step)
        self._count_running(1)
        try:
            part.session._run_cancellable(part.ops, options, metadata, watch.attach)  # noqa: SLF001
        except errors.OpError as e:
            watch.finish()
            self.rendezvous.cleanup(request.step_id, e)
            raise
        except BaseException:
            watch.finish()
            raise
        finally:
            self._count_running(-1)
            rendezvous.set_current(prev)
            recvs.close()
        resp = worker_pb2.RunGraphResponse()
        if metadata is not None:
            for dev in metadata.step_stats.dev_stats:
                dev.device = self.device
            resp.step_stats.CopyFrom(metadata.step_stats)
        if request.exec_opts.record_partition_graphs:
            resp.partition_graph.add().CopyFrom(part.graph_def)
        for key in request.recv_key:
            value, _ = rv.recv(key, deadline)
            wire.to_tensor_proto(value, resp.recv.add(name=key).tensor)
        watch.finish()
        if not request.is_partial or request.is_last_partial_run:
            self.rendezvous.finish(request.step_id)
        return resp

    def CleanupGraph(self, request, context):  # noqa: N802
        self.rendezvous.cleanup(request.step_id)
        return worker_pb2.CleanupGraphResponse()

    def CleanupAll(self, request, context):  # noqa: N802
        # Named containers, or the default one when none is named (as TensorFlow).
        targets.resources_for(self._resources_target).clear_containers(
            list(request.container))
        return worker_pb2.CleanupAllResponse()

    def RecvTensor(self, request, context):  # noqa: N802
        rv = self.rendezvous.find_or_create(request.step_id)
        value, is_dead = rv.recv(request.rendezvous_key, _deadline(context))
        self.rendezvous.release_if_done(request.step_id, rv)
        # Framed by tensor_codec around the array's buffer (TF's RecvTensorResponse bytes).
        return tensor_codec.RecvTensorReply(None if is_dead else value, is_dead,
                                            time.time_ns() // 1000)

    def MarkRecvFinished(self, request, context):  # noqa: N802
        return worker_pb2.MarkRecvFinishedResponse()

    # -- helpers -----------------------------------------------------------------------
    def _count_running(self, delta):
        with self._lock:
            self._running += delta

    def steps_running(self):
        """How many RunGraph steps are running on this task now."""
        return self._running

    def _stub(self, task):
        with self._lock:
            stub = self._channels.get(task)
            if stub is None:
                channel = wire.open_channel(self._peer_address(task))
                stub = self._channels[task] = wire.Stub(channel, wire.WORKER_SERVICE,
                                                        wire.WORKER_METHODS)
            return stub

    def close(self):
        """Cancels every step running here (CancelledError to its waiters) and forgets
        the registered graphs."""
        self.rendezvous.abort_all(errors.CancelledError(None, None, "Server stopped"))
        with self._lock:
            parts = [part for _, part in self._graphs.values()]
            self._graphs.clear()
            self._channels.clear()
        for part in parts:
            part.session.close()


class _StepWatch:
    """Cancels one RunGraph's step when its RPC ends before the step does."""

    __slots__ = ("_lock", "_rendezvous", "_step_id", "_state", "_ended", "_finished")

    def __init__(self, rendezvous_table, step_id):
        self._lock = threading.Lock()
        self._rendezvous = rendezvous_table
        self._step_id = step_id
        self._state = None
        self._ended = self._finished = False

    def attach(self, state):
        """Called with the step's RunState before it starts."""
        with self._lock:
            self._state = state
            ended = self._ended
        if ended:
            state.cancel(_RPC_CANCELLED)

    def finish(self):
        """The step is over: a later end of the RPC is the normal one."""
        with self._lock:
            self._finished = True

    def rpc_ended(self):
        with self._lock:
            if self._finished:
                return
            self._ended = True
            state = self._state
        if state is not None:
            state.cancel(_RPC_CANCELLED)
        self._rendezvous.cleanup(self._step_id,
                                 errors.CancelledError(None, None, _RPC_CANCELLED))


_RPC_CANCELLED = ("RunGraph was cancelled: the master cancelled the step, closed its "
                  "session or went away")


def _deadline(context):
    """The monotonic deadline of the RPC being served (a long default when none)."""
    remaining = context.time_remaining() if context is not None else None
    if remaining is None or remaining > _DEFAULT_RECV_TIMEOUT_S:
        remaining = _DEFAULT_RECV_TIMEOUT_S
    return time.monotonic() + remaining
