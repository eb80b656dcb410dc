"""The master half of a task: TensorFlow's MasterService. A master session holds the
client's graph; each distinct (feeds, fetches, targets) of a RunStep is placed,
partitioned per task (partition.py), registered on the tasks' workers once, and then
run by one concurrent RunGraph per task under a fresh step id."""
import concurrent.futures
import itertools
import random
import threading
import time

from trainflow._src.framework import errors
from trainflow._src.framework.graph import Graph
from trainflow._src.framework import graph_def as graph_def_lib
from trainflow._src.protos import config_pb2, graph_pb2, master_pb2, worker_pb2
from trainflow._src.runtime import planner
from trainflow._src.distributed import daemon_pool, master_partial_run, partition, placement

_STATUS_RETRY_S = 0.2
_DISCOVERY_TIMEOUT_S = 60.0
_ABORT_WAIT_S = 5.0


class _Plan:
    """A registered, partitioned step signature."""

    def __init__(self, handles, feed_keys, fetch_keys, fed_fetches):
        self.handles = handles
        self.feed_keys = feed_keys
        self.fetch_keys = fetch_keys
        self.fed_fetches = fed_fetches


class MasterSession:
    """One client session: the graph so far and its registered step plans."""

    def __init__(self, master, handle, graph_def, config):
        self.master = master
        self.handle = handle
        self.config = config
        self.graph_def = graph_pb2.GraphDef()
        self.version = 0
        self.lock = threading.Lock()
        self._plans = {}
        self._callables = {}
        self._next_callable = 0
        self._extend(graph_def)
        self.partial_runs = master_partial_run.PartialRuns(self)

    def _extend(self, graph_def):
        merged = graph_pb2.GraphDef()
        merged.CopyFrom(self.graph_def)
        known = {n.name for n in merged.node}
        for node in graph_def.node:
            if node.name in known:
                raise errors.InvalidArgumentError(
                    None, None, f"Duplicate node name in graph: '{node.name}'")
        merged.node.extend(graph_def.node)
        if graph_def.HasField("versions"):
            merged.versions.CopyFrom(graph_def.versions)
        merged.library.MergeFrom(graph_def.library)
        graph = Graph()
        with graph.as_default():
            try:
                graph_def_lib.import_graph_def(merged, name="")
            except ValueError as e:
                raise errors.InvalidArgumentError(None, None, str(e)) from None
        self.graph_def, self.graph = merged, graph
        self.version += 1
        self._plans.clear()

    def extend(self, request):
        with self.lock:
            if request.current_graph_version != self.version:
                raise errors.AbortedError(
                    None, None, f"Current graph version {request.current_graph_version} "
                    f"does not match the session's {self.version}")
            self._extend(request.graph_def)
            return self.version

    def _plan(self, feeds, fetches, targets):
        key = (tuple(feeds), tuple(fetches), tuple(targets))
        with self.lock:
            plan = self._plans.get(key)
            if plan is not None:
                return plan
            graph = self.graph
            try:
                feed_ts = [graph.as_graph_element(n, allow_tensor=True, allow_operation=False)
                           for n in feeds]
                fetch_ts = [graph.as_graph_element(n, allow_tensor=True,
                                                   allow_operation=False) for n in fetches]
                target_ops = [graph.get_operation_by_name(n) for n in targets]
            except (KeyError, ValueError, TypeError) as e:
                raise errors.NotFoundError(None, None, str(e.args[0] if e.args else e)) \
                    from None
            fed = set(feed_ts)
            roots = [t._op for t in fetch_ts if t not in fed] + target_ops
            plan = self.register(planner.needed_ops(roots, fed), fetch_ts, feed_ts)
            self._plans[key] = plan
            return plan

    def register(self, ops, fetch_ts, feed_ts):
        """Partitions the ordered `ops` of a step per task and registers each part on
        its task's worker; returns the _Plan."""
        fed = set(feed_ts)
        placer = self.master.placer(self.config)
        tasks = {placer.place(op) for op in ops} | {placer.place(t._op) for t in fetch_ts
                                                    if t not in fed}
        incarnations = self.master.incarnations(tasks | {self.master.task},
                                                self._timeout_s())
        parts = partition.partition(ops, fetch_ts, feed_ts, placer, incarnations,
                                    self.master.device, self.graph_def)
        handles = {}
        for task, gd in parts.graphs.items():
            resp = self.master.worker(task).call(
                "RegisterGraph", worker_pb2.RegisterGraphRequest(
                    session_handle=self.handle, graph_def=gd,
                    graph_options=self.config.graph_options),
                self._timeout_s(), what=f"RegisterGraph on {task}")
            handles[task] = resp.graph_handle
        fed_fetches = {t.name for t in fetch_ts if t in fed}
        return _Plan(handles, parts.feed_keys, parts.fetch_keys, fed_fetches)

    def resolve_tensors(self, names):
        """The Tensors of the session's graph called `names`.

        Raises:
          NotFoundError: for a name the graph does not have.
        """
        graph = self.graph
        try:
            return [graph.as_graph_element(n, allow_tensor=True, allow_operation=False)
                    for n in names]
        except (KeyError, ValueError, TypeError) as e:
            raise errors.NotFoundError(None, None, str(e.args[0] if e.args else e)) from None

    def _timeout_s(self, options=None):
        ms = (options.timeout_in_ms if options is not None else 0) or \
            self.config.operation_timeout_in_ms
        return ms / 1000.0 if ms > 0 else None

    def run_step(self, request):
        if request.partial_run_handle:
            return self.partial_runs.run(request)
        feeds = {f.name: f.tensor for f in request.feed}
        plan = self._plan(sorted(feeds), list(request.fetch), list(request.target))
        resp = master_pb2.RunStepResponse()
        by_name = self.execute(plan, feeds, request.options, resp.metadata)
        for name in request.fetch:
            out = resp.tensor.add(name=name)
            out.tensor.CopyFrom(feeds[name] if name in plan.fed_fetches else by_name[name])
        return resp

    def execute(self, plan, feeds, options, metadata):
        """Runs one step of `plan` (one RunGraph per task, concurrently) with `feeds`
        ({tensor name: TensorProto}); returns {fetched tensor name: TensorProto}. Step
        stats and partition graphs go into `metadata` (a RunMetadata) as `options` ask.
        """
        timeout = self._timeout_s(options)
        step_id = random.getrandbits(62)
        trace = options.trace_level == config_pb2.RunOptions.FULL_TRACE
        graphs = options.output_partition_graphs
        requests = {}
        for task, handle in plan.handles.items():
            req = worker_pb2.RunGraphRequest(session_handle=self.handle, graph_handle=handle,
                                             step_id=step_id)
            if trace or graphs:
                req.exec_opts.record_timeline = trace
                req.exec_opts.record_partition_graphs = graphs
            for name, key in plan.feed_keys.get(task, ()):
                req.send.add(name=key).tensor.CopyFrom(feeds[name])
            req.recv_key.extend(key for _, key in plan.fetch_keys.get(task, ()))
            requests[task] = req
        if len(requests) == 1:
            # One partition: run it from this thread (no hop through the pool).
            (task, req), = requests.items()
            try:
                responses = {task: self.master.worker(task).call(
                    "RunGraph", req, timeout, f"RunGraph on {task}")}
            except errors.OpError:
                self.master.cleanup_step(plan.handles, step_id)
                raise
        else:
            responses = self._run_partitions(plan, step_id, requests, timeout)
        results = {}
        for task in sorted(responses):
            got = responses[task]
            for named in got.recv:
                results[named.name] = named.tensor
            if trace:
                metadata.step_stats.dev_stats.extend(got.step_stats.dev_stats)
            if graphs:
                metadata.partition_graphs.extend(got.partition_graph)
        return {name: results[key] for pairs in plan.fetch_keys.values()
                for name, key in pairs}

    def _run_partitions(self, plan, step_id, requests, timeout):
        """{task: RunGraphResponse} of the step's partitions, run concurrently."""
        calls = {task: self.master.pool.submit(self.master.worker(task).call, "RunGraph",
                                               req, timeout, f"RunGraph on {task}")
                 for task, req in requests.items()}
        done, pending = concurrent.futures.wait(
            calls.values(), return_when=concurrent.futures.FIRST_EXCEPTION)
        error = next((f.exception() for f in done if f.exception() is not None), None)
        if error is not None:
            # Abort the step on every task, give the other partitions a moment to stop,
            # and report the first failure without waiting on a task that may be gone.
            self.master.cleanup_step(plan.handles, step_id)
            concurrent.futures.wait(pending, timeout=_ABORT_WAIT_S)
            raise error
        return {task: fut.result() for task, fut in calls.items()}

    def make_callable(self, options):
        """A handle for RunCallable: the step `options` (CallableOptions) describes."""
        if options.tensor_connection:
            raise errors.UnimplementedError(
                None, None, "CallableOptions.tensor_connection is not supported by trainflow")
        # Registered now, as TensorFlow's master does: bad names fail here.
        self._plan(sorted(options.feed), list(options.fetch), list(options.target))
        with self.lock:
            handle = self._next_callable
            self._next_callable += 1
            self._callables[handle] = options
        return handle

    def run_callable(self, request):
        with self.lock:
            options = self._callables.get(request.handle)
            made = request.handle < self._next_callable
        if options is None:
            raise errors.InvalidArgumentError(
                None, None, "Attempted to run callable after handle was released: "
                f"{request.handle}" if made else f"No such callable handle: {request.handle}")
        if len(request.feed) != len(options.feed):
            raise errors.InvalidArgumentError(
                None, None, f"Expected {len(options.feed)} feed tensors, got "
                f"{len(request.feed)}")
        step = master_pb2.RunStepRequest(session_handle=self.handle,
                                         fetch=options.fetch, target=options.target,
                                         options=options.run_options)
        for name, tensor in zip(options.feed, request.feed):
            step.feed.add(name=name).tensor.CopyFrom(tensor)
        resp = self.run_step(step)
        return master_pb2.RunCallableResponse(fetch=[t.tensor for t in resp.tensor],
                                              metadata=resp.metadata)

    def release_callable(self, handle):
        """Forgets callable `handle` (quietly when unknown, as TensorFlow)."""
        with self.lock:
            self._callables.pop(handle, None)

    def close(self):
        self.partial_runs.clear()
        with self.lock:
            plans = list(self._plans.values())
            self._plans.clear()
        for plan in plans:
            for task, handle in plan.handles.items():
                try:
                    self.master.worker(task).call(
                        "DeregisterGraph", worker_pb2.DeregisterGraphRequest(
                            session_handle=self.handle, graph_handle=handle), 5.0)
                except errors.OpError:
                    pass  # the task is gone; its graphs went with it


class MasterService:
    """Serves MasterService for one task of a cluster.

    Args:
      cluster: the ClusterSpec.
      job, task_index: this task.
      worker_stub: fn(task name) -> wire.Stub of that task's WorkerService.
      default_config: the server's default ConfigProto.
    """

    def __init__(self, cluster, job, task_index, worker_stub, default_config):
        self.cluster = cluster
        self.job, self.task_index = job, task_index
        self.task = placement.task_name(job, task_index)
        self.device = placement.cpu_device(self.task)
        self._worker_stub = worker_stub
        self._default_config = default_config
        self._sessions = {}
        self._handles = itertools.count(1)
        self._lock = threading.Lock()
        self._incarnations = {}
        self.pool = daemon_pool.DaemonPool(max_workers=32, thread_name_prefix="tf-master")

    def worker(self, task):
        return self._worker_stub(task)

    def placer(self, config):
        return placement.Placer(self.cluster, self.job, self.task_index,
                                config.allow_soft_placement)

    def incarnations(self, tasks, timeout_s):
        """{task: incarnation} of `tasks`, asking each task not seen yet (GetStatus),
        retrying until it answers or `timeout_s` passes.

        Raises:
          UnavailableError: for a task that never answered.
        """
        out = {}
        deadline = time.monotonic() + (timeout_s or _DISCOVERY_TIMEOUT_S)
        for task in sorted(tasks):
            inc = self._incarnations.get(task)
            while inc is None:
                try:
                    resp = self.worker(task).call("GetStatus", worker_pb2.GetStatusRequest(),
                                                  max(0.05, deadline - time.monotonic()),
                                                  what=f"GetStatus of {task}")
                    inc = self._incarnations[task] = resp.device_attributes[0].incarnation
                except (errors.UnavailableError, errors.DeadlineExceededError):
                    if time.monotonic() >= deadline:
                        raise errors.UnavailableError(
                            None, None, f"Task {task} is unreachable (no answer within "
                            f"{timeout_s or _DISCOVERY_TIMEOUT_S:g} s)") from None
                    time.sleep(_STATUS_RETRY_S)
            out[task] = inc
        return out

    def forget(self, task):
        self._incarnations.pop(task, None)

    def cleanup_step(self, handles, step_id):
        for task in handles:
            self.pool.submit(self._cleanup, task, step_id)

    def _cleanup(self, task, step_id):
        try:
            self.worker(task).call("CleanupGraph",
                                   worker_pb2.CleanupGraphRequest(step_id=step_id), 5.0)
        except errors.OpError:
            pass

    def _session(self, handle):
        with self._lock:
            sess = self._sessions.get(handle)
        if sess is None:
            raise errors.AbortedError(None, None, f"Session {handle} is not found. Possibly, "
                                                  "this master has restarted.")
        return sess

    # -- service methods ---------------------------------------------------------------
    def CreateSession(self, request, context):  # noqa: N802 - gRPC method names
        config = type(self._default_config)()
        config.CopyFrom(self._default_config)
        config.MergeFrom(request.config)
        handle = f"{random.getrandbits(64):016x}{next(self._handles)}"
        sess = MasterSession(self, handle, request.graph_def, config)
        with self._lock:
            self._sessions[handle] = sess
        return master_pb2.CreateSessionResponse(session_handle=handle,
                                                graph_version=sess.version)

    def ExtendSession(self, request, context):  # noqa: N802
        version = self._session(request.session_handle).extend(request)
        return master_pb2.ExtendSessionResponse(new_graph_version=version)

    def PartialRunSetup(self, request, context):  # noqa: N802
        handle = self._session(request.session_handle).partial_runs.setup(request)
        return master_pb2.PartialRunSetupResponse(partial_run_handle=handle)

    def RunStep(self, request, context):  # noqa: N802
        sess = self._session(request.session_handle)
        try:
            return sess.run_step(request)
        except errors.AbortedError:
            for task in list(self._incarnations):
                self.forget(task)
            raise

    def MakeCallable(self, request, context):  # noqa: N802
        handle = self._session(request.session_handle).make_callable(request.options)
        return master_pb2.MakeCallableResponse(handle=handle)

    def RunCallable(self, request, context):  # noqa: N802
        return self._session(request.session_handle).run_callable(request)

    def ReleaseCallable(self, request, context):  # noqa: N802
        self._session(request.session_handle).release_callable(request.handle)
        return master_pb2.ReleaseCallableResponse()

    def CloseSession(self, request, context):  # noqa: N802
        with self._lock:
            sess = self._sessions.pop(request.session_handle, None)
        if sess is not None:
            sess.close()
        return master_pb2.CloseSessionResponse()

    def ListDevices(self, request, context):  # noqa: N802
        resp = master_pb2.ListDevicesResponse()
        for job in self.cluster.jobs:
            for i in self.cluster.task_indices(job):
                task = placement.task_name(job, i)
                try:
                    status = self.worker(task).call("GetStatus", worker_pb2.GetStatusRequest(),
                                                    5.0)
                except errors.OpError:
                    continue
                dest = resp.local_device if task == self.task else resp.remote_device
                dest.extend(status.device_attributes)
        return resp

    def Reset(self, request, context):  # noqa: N802
        for job in self.cluster.jobs:
            for i in self.cluster.task_indices(job):
                try:
                    self.worker(placement.task_name(job, i)).call(
                        "CleanupAll", worker_pb2.CleanupAllRequest(container=request.container),
                        10.0)
                except errors.UnavailableError:
                    pass
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for s in sessions:
            s.close()
        return master_pb2.ResetResponse()

    def close(self, wait_s=_ABORT_WAIT_S):
        """Closes every master session (their steps end with CancelledError on every
        task), waiting at most `wait_s` seconds for the tasks to answer."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        closing = [self.pool.submit(s.close) for s in sessions]
        concurrent.futures.wait(closing, timeout=wait_s)
        self.pool.shutdown(wait=False, cancel_futures=True)
