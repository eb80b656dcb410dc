"""Partial runs on the master: PartialRunSetup, then RunStep requests carrying the
partial_run_handle, which feed and fetch one step in pieces with each op running once.

Each request runs, as one ordinary distributed step, the ops that its fetches (and the
declared targets that its feeds made computable) need and that have not run yet. Values
that a later request may need (declared fetches, inputs of ops not run yet) come back to
the master with the step's fetches and are fed to later steps. Ops that only hand out a
variable or a resource (VariableV2, VarHandleOp, queue ops) run again where a later
request needs their output; running them has no effect of its own.
"""
import itertools
import threading

from trainflow._src.framework import dtypes, errors
from trainflow._src.protos import master_pb2, worker_pb2
from trainflow._src.runtime import planner
from trainflow._src.runtime.partial_run import blocking_feed


class _State:
    """One partial run: what is pending, the values known, the ops that ran."""

    def __init__(self, graph, feeds, fetches, targets, reachable):
        self.graph = graph
        self.pending_inputs = {t.name: False for t in feeds}
        self.pending_outputs = {t.name: False for t in fetches}
        self.feeds = set(feeds)
        self.targets = list(targets)
        self.reachable = reachable
        self.values = {}  # tensor name -> TensorProto
        self.done = set()
        self.lock = threading.Lock()

    def finished(self):
        return all(self.pending_inputs.values()) and all(self.pending_outputs.values())


def _handle_op(op):
    """Whether `op` only hands out a ref or resource (safe to run again)."""
    return not op._inputs and all(t._dtype._is_ref_dtype or
                                  t._dtype.base_dtype == dtypes.resource
                                  for t in op._outputs)


def _keeps_value(t):
    """Whether a later request gets `t` as a value (a ref as the value it had); the
    outputs of handle ops are made again instead."""
    if t._dtype.base_dtype in (dtypes.resource, dtypes.variant):
        return False
    return not (t._dtype._is_ref_dtype and _handle_op(t._op))


class PartialRuns:
    """The partial runs of one MasterSession."""

    def __init__(self, session):
        self._session = session
        self._runs = {}
        self._ids = itertools.count()
        self._lock = threading.Lock()

    def setup(self, request):
        """Registers the partial run `request` (PartialRunSetupRequest) declares;
        returns its handle."""
        sess = self._session
        graph = sess.graph
        feeds = sess.resolve_tensors(request.feed)
        fetches = sess.resolve_tensors(request.fetch)
        try:
            targets = [graph.get_operation_by_name(n) for n in request.target]
        except (KeyError, ValueError) as e:
            raise errors.NotFoundError(None, None, str(e.args[0] if e.args else e)) from None
        roots = [t._op for t in fetches] + targets
        reachable = set(planner.needed_ops(roots, set(feeds)))
        handle = str(next(self._ids))
        with self._lock:
            self._runs[handle] = _State(graph, feeds, fetches, targets, reachable)
        return handle

    def clear(self):
        with self._lock:
            self._runs.clear()

    def run(self, request):
        """Serves a RunStep with a partial_run_handle; returns the RunStepResponse."""
        handle = request.partial_run_handle
        with self._lock:
            state = self._runs.get(handle)
        if state is None:
            raise errors.InvalidArgumentError(
                None, None, "Must run PartialRunSetup before performing partial runs")
        with state.lock:
            resp = self._run(state, request, handle)
            if state.finished():
                self._drop(handle)
            return resp

    def _drop(self, handle):
        with self._lock:
            self._runs.pop(handle, None)

    def _run(self, state, request, handle):
        feeds = {f.name: f.tensor for f in request.feed}
        for name in feeds:
            if name not in state.pending_inputs:
                raise errors.InvalidArgumentError(
                    None, None, f"The feed {name} was not specified in partial_run_setup.")
            if state.pending_inputs[name]:
                raise errors.InvalidArgumentError(None, None,
                                                  f"The feed {name} has already been fed.")
        for name in request.fetch:
            if name not in state.pending_outputs:
                raise errors.InvalidArgumentError(
                    None, None, f"The fetch {name} was not specified in partial_run_setup.")
            if state.pending_outputs[name]:
                raise errors.InvalidArgumentError(
                    None, None, f"The fetch {name} has already been fetched.")
        known = dict(state.values)
        known.update(feeds)
        fetch_ts = [state.graph.get_tensor_by_name(n) for n in request.fetch]
        wanted = [t for t in fetch_ts if t.name not in known]
        done = {op for op in state.done if not _handle_op(op)}
        self._check_computable(state, known, done, [t._op for t in wanted], raise_=True)
        targets = [op for op in state.targets if op not in state.done and
                   self._check_computable(state, known, done, [op], raise_=False)]
        for name in feeds:
            state.pending_inputs[name] = True
        for name in request.fetch:
            state.pending_outputs[name] = True
        resp = master_pb2.RunStepResponse()
        if wanted or targets:
            try:
                self._step(state, known, done, wanted, targets, request.options,
                           resp.metadata)
            except Exception:
                self._drop(handle)  # as TensorFlow's master: a failed step ends the run
                raise
        state.values = known
        for name in request.fetch:
            resp.tensor.add(name=name).tensor.CopyFrom(known[name])
        return resp

    def _check_computable(self, state, known, done, roots, raise_):
        """Whether `roots` can run without a declared feed not fed yet (raising
        InvalidArgumentError naming that feed when `raise_`)."""
        blocked = blocking_feed(state.feeds, lambda t: t.name in known, done, roots)
        if blocked is not None and raise_:
            raise errors.InvalidArgumentError(
                None, None, f"Fetch {blocked.name} can't be computed from the feeds that "
                            "have been fed so far.")
        return blocked is None

    def _step(self, state, known, done, wanted, targets, options, metadata):
        sess = self._session
        graph = state.graph
        fed = {graph.get_tensor_by_name(n) for n in known}
        ops = planner.needed_ops([t._op for t in wanted] + targets, fed, done)
        ran = set(ops)
        later = state.reachable - state.done - ran
        keep = set(wanted)
        for op in later:
            keep.update(t for t in op._inputs if t._op in ran and _keeps_value(t))
        keep.update(t for op in ran for t in op._outputs
                    if t.name in state.pending_outputs and _keeps_value(t))
        fetch_ts = sorted(keep, key=lambda t: t.name)
        inputs = {t for op in ops for t in op._inputs}
        feed_ts = sorted(fed & inputs, key=lambda t: t.name)
        plan = sess.register(ops, fetch_ts, feed_ts)
        try:
            results = sess.execute(plan, {t.name: known[t.name] for t in feed_ts}, options,
                                   metadata)
        finally:
            _deregister(sess, plan)
        known.update(results)
        state.done.update(ran)


def _deregister(sess, plan):
    for task, handle in plan.handles.items():
        sess.master.pool.submit(_deregister_one, sess, task, handle)


def _deregister_one(sess, task, handle):
    try:
        sess.master.worker(task).call("DeregisterGraph", worker_pb2.DeregisterGraphRequest(
            session_handle=sess.handle, graph_handle=handle), 5.0)
    except errors.OpError:
        pass  # the task is gone, and its graphs with it
