"""`tf.train.Server`: one task of a cluster, serving TensorFlow's MasterService and
WorkerService over gRPC (grpcio, imported when a server is created).

TensorFlow's protocol has no authentication or encryption: anyone who can reach a
server's port can run any op on it (read files, run Python through py_func). A server
binds only the address its cluster entry names; run clusters on trusted networks.
"""
import itertools
import random
import threading
import time

from trainflow._src.distributed.master import MasterService
from trainflow._src.distributed.worker import WorkerService
from trainflow._src.framework import errors
from trainflow._src.protos.config_pb2 import ConfigProto
from trainflow._src.protos.tensorflow_server_pb2 import ServerDef
from trainflow._src.runtime import targets
from trainflow._src.runtime.resources import ResourceManager
from trainflow._src.train.cluster_spec import ClusterSpec
from trainflow._src.distributed import daemon_pool, placement, wire

_ids = itertools.count(1)
# A client closing the queue of this shared_name on a task ends that task's join().
SERVER_DONE_QUEUE = "trainflow_server_done"
_DONE_POLL_S = 0.2


def _make_server_def(server_or_cluster_def, job_name, task_index, protocol, config):
    """The ServerDef of `tf.train.Server`'s arguments, completed as TensorFlow does."""
    server_def = ServerDef()
    if isinstance(server_or_cluster_def, ServerDef):
        server_def.MergeFrom(server_or_cluster_def)
        if job_name is not None:
            server_def.job_name = job_name
        if task_index is not None:
            server_def.task_index = task_index
        if protocol is not None:
            server_def.protocol = protocol
    else:
        try:
            cluster_spec = ClusterSpec(server_or_cluster_def)
        except TypeError:
            raise TypeError("Could not convert `server_or_cluster_def` to a "
                            "`tf.train.ServerDef` or `tf.train.ClusterSpec`.") from None
        if job_name is None:
            if len(cluster_spec.jobs) == 1:
                job_name = cluster_spec.jobs[0]
            else:
                raise ValueError("Must specify an explicit `job_name`.")
        if task_index is None:
            indices = cluster_spec.task_indices(job_name)
            if len(indices) == 1:
                task_index = indices[0]
            else:
                raise ValueError("Must specify an explicit `task_index`.")
        server_def.cluster.CopyFrom(cluster_spec.as_cluster_def())
        server_def.job_name = job_name
        server_def.task_index = task_index
        server_def.protocol = protocol or "grpc"
    if config is not None:
        server_def.default_session_config.MergeFrom(config)
    return server_def


class Server:
    """An in-process server of one task of a cluster (`tf.train.Server`).

    Args:
      server_or_cluster_def: a ServerDef, ClusterDef, ClusterSpec or dict of job -> list
        of "host:port".
      job_name: this task's job (needed when the cluster has several jobs).
      task_index: this task's index in its job (needed when the job has several).
      protocol: "grpc" (the default and only protocol).
      config: a ConfigProto, the default of every session this server's master creates.
      start: start serving now (otherwise call `start()`).

    Raises:
      TypeError / ValueError: for bad arguments (as TensorFlow).
      NotFoundError: for a protocol other than "grpc".
      UnknownError: if the address cannot be bound.
    """

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None,
                 config=None, start=True):
        if config is not None and not isinstance(config, ConfigProto):
            raise TypeError(f"`config` must be a tf.ConfigProto, got {type(config).__name__}")
        self._server_def = _make_server_def(server_or_cluster_def, job_name, task_index,
                                            protocol, config)
        if self._server_def.protocol != "grpc":
            raise errors.NotFoundError(
                None, None, "No server factory registered for the given ServerDef: protocol "
                f"{self._server_def.protocol!r} (trainflow serves \"grpc\")")
        import grpc  # lazy: grpcio only when a server is created

        sd = self._server_def
        cluster = ClusterSpec(sd.cluster)
        try:
            address = cluster.task_address(sd.job_name, sd.task_index)
        except ValueError as e:
            raise ValueError(str(e)) from None
        host, _, port = address.rpartition(":")
        if sd.port:
            port = str(sd.port)
        # A RecvTensor holds a server thread until its tensor is produced, and each step
        # of each peer may have remote_recv.WINDOW of them waiting here: the pool is
        # large enough that they never keep the RunGraph that produces them from starting
        # (threads are only made when calls are in flight together). Its threads are
        # daemons: a handler blocked in a step never keeps the process from exiting.
        self._grpc = grpc.server(
            daemon_pool.DaemonPool(max_workers=512, thread_name_prefix="tf-server"),
            options=wire.CHANNEL_OPTIONS)
        try:
            bound = self._grpc.add_insecure_port(f"{host}:{port}")
        except RuntimeError as e:
            raise errors.UnknownError(None, None, f"Could not start gRPC server on "
                                                  f"{host}:{port}: {e}") from None
        if not bound:
            raise errors.UnknownError(None, None, f"Could not bind {host}:{port}")
        self._address = f"{host}:{bound}"
        if str(bound) != port:
            # A port of 0 picked a free one: the cluster now names the real address.
            for job in sd.cluster.job:
                if job.name == sd.job_name:
                    job.tasks[sd.task_index] = self._address
            cluster = ClusterSpec(sd.cluster)
        self._cluster = cluster
        self._task = placement.task_name(sd.job_name, sd.task_index)
        self._resources = ResourceManager()
        self._resources_target = f"task://{sd.job_name}/{sd.task_index}#{next(_ids)}"
        targets.register(self._resources_target, self._resources)
        self._incarnation = random.getrandbits(63) | 1
        self._stubs = {}
        self._channels = []
        self._stub_lock = threading.Lock()

        self._worker = WorkerService(self._task, self._resources_target, self._peer_address,
                                     self._incarnation)
        # The master reaches its own task's worker without an RPC, as TensorFlow's does.
        self._local_worker = wire.LocalStub(self._worker)
        self._master = MasterService(cluster, sd.job_name, sd.task_index, self._worker_stub,
                                     sd.default_session_config)
        self._grpc.add_generic_rpc_handlers((
            wire.generic_handler(wire.MASTER_SERVICE, wire.MASTER_METHODS, self._master),
            wire.generic_handler(wire.WORKER_SERVICE, wire.WORKER_METHODS, self._worker)))
        self._started = False
        self._stopped = threading.Event()
        if start:
            self.start()

    def _peer_address(self, task):
        job, index = placement.task_of_device(task)
        if (job, index) == (self._server_def.job_name, self._server_def.task_index):
            return self._address
        return self._cluster.task_address(job, index)

    def _worker_stub(self, task):
        if task == self._task:
            return self._local_worker
        with self._stub_lock:
            stub = self._stubs.get(task)
            if stub is None:
                channel = wire.open_channel(self._peer_address(task))
                self._channels.append(channel)
                stub = self._stubs[task] = wire.Stub(channel, wire.WORKER_SERVICE,
                                                     wire.WORKER_METHODS)
            return stub

    @property
    def server_def(self):
        """The ServerDef this server was built from (with the bound port)."""
        return self._server_def

    @property
    def target(self):
        """The session target of this server: "grpc://host:port"."""
        return "grpc://" + self._address

    @property
    def resources(self):
        """The task's resource manager (its variables, queues, accumulators)."""
        return self._resources

    def start(self):
        """Starts serving (a no-op if started).

        Raises:
          FailedPreconditionError: if the server was stopped.
        """
        if self._stopped.is_set():
            raise errors.FailedPreconditionError(None, None, "The server has been stopped.")
        if not self._started:
            self._grpc.start()
            self._started = True

    def join(self, timeout=None):
        """Blocks until the server stops (or `timeout` seconds pass, a trainflow extra).
        Returns whether it stopped.

        A task also ends here when a client closes the queue with shared_name
        `SERVER_DONE_QUEUE` placed on it (how a chief tells its ps tasks that training is
        done, in TensorFlow's own protocol: a FIFOQueue and its QueueClose run on the ps;
        a TensorFlow ps just keeps a closed queue). `join()` then stops the server and
        returns True.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = _DONE_POLL_S if deadline is None else \
                min(_DONE_POLL_S, max(0.0, deadline - time.monotonic()))
            if self._stopped.wait(wait):
                return True
            if self._done_queue_closed():
                self.stop()
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False

    def _done_queue_closed(self):
        queue = self._resources.lookup("queue", SERVER_DONE_QUEUE)
        return queue is not None and queue.is_closed()

    def stop(self, grace=0.5):
        """Stops serving and drops the task's state (a trainflow extra: TensorFlow's
        servers run until their process ends)."""
        self._stop(grace, wait=True)

    def _stop(self, grace, wait):
        if self._stopped.is_set():
            return
        self._stopped.set()
        self._worker.close()
        self._master.close()
        stopped = self._grpc.stop(grace)
        if wait:
            stopped.wait(grace + 5.0)
        for channel in self._channels:
            channel.close()
        targets.unregister(self._resources_target)
        self._resources.clear()

    @staticmethod
    def create_local_server(config=None, start=True):
        """A single-task server on localhost at a free port (`Server.create_local_server`)."""
        return Server({"localhost": ["localhost:0"]}, protocol="grpc", config=config,
                      start=start)

    def __del__(self):
        try:
            # The collector may run this on any thread (a gRPC poller's too): no waiting.
            self._stop(0, wait=False)
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass
