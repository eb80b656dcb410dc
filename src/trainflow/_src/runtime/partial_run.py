"""`Session.partial_run_setup` / `Session.partial_run`: one step fed and fetched in
several calls, each op running at most once."""
import itertools

import numpy as np

from trainflow._src.framework import errors, graph_walk
from trainflow._src.framework.operation import Operation
from trainflow._src.framework.tensor import Tensor
from trainflow._src.runtime import planner, run_state
from trainflow._src.runtime.executor import Plan
from trainflow._src.runtime.fetches import FetchStructure
from trainflow._src.runtime.resources import VariableSlot

_handles = itertools.count()


class PartialRun:
    """The state of one partial run: declared feeds and fetches, the values known so
    far (fed or computed), and the ops already run."""

    def __init__(self, fetch_elements, feed_tensors):
        self.fetches = {e for e in fetch_elements if isinstance(e, Tensor)}
        self.targets = [e for e in fetch_elements if isinstance(e, Operation)]
        # The run ends once every declared tensor has been fetched.
        self.pending_fetches = set(self.fetches)
        self.feeds = set(feed_tensors)
        self.values = {}
        self.done = set()


def declared_feeds(session, feeds):
    """The Tensors a partial run's `feeds` declare (feed keys expanded as Session.run
    expands them)."""
    out = []
    for f in feeds or []:
        for sub, _ in session._expand_feed(f, None):
            out.append(session._graph.as_graph_element(sub, allow_tensor=True,
                                                       allow_operation=False))
    return out


def setup(session, fetches, feeds):
    """Registers a partial run on `session`; returns its handle string."""
    structure = FetchStructure(session._graph, fetches)
    feed_tensors = declared_feeds(session, feeds)
    handle = f"partial_run_{next(_handles)}"
    with session._lock:
        session._partial_runs[handle] = PartialRun(structure.elements, feed_tensors)
    return handle


def _check_request(state, feed_tensors, elements):
    for t in feed_tensors:
        if t not in state.feeds:
            raise errors.InvalidArgumentError(
                None, None, f"The feed {t.name} was not specified in partial_run_setup.")
        if t in state.values:
            raise errors.InvalidArgumentError(None, None,
                                              f"The feed {t.name} has already been fed.")
    for el in elements:
        if el not in state.fetches:
            raise errors.InvalidArgumentError(
                None, None, f"The fetch {el.name} was not specified in partial_run_setup.")
        if el not in state.pending_fetches:
            raise errors.InvalidArgumentError(
                None, None, f"The fetch {el.name} has already been fetched.")


def reject_op_fetches(structure):
    """Raises RuntimeError, as TensorFlow's partial_run does, when the fetches hold an
    Operation: ops run as targets of the setup, once what they need has been fed."""
    targets = [el for el in structure.elements if isinstance(el, Operation)]
    if targets:
        raise RuntimeError("partial_run() requires empty `target_list`. Received: "
                           f"target_list={targets} (non-empty)")


def blocking_feed(feeds, is_known, done, roots):
    """A tensor of `feeds` (declared, not fed yet) that one of `roots` needs; None if
    there is none. `is_known(t)`: whether t's value is at hand; ops in `done` ran."""
    blocked = []

    def next_ops(op):
        out = []
        for t in op._inputs:
            if is_known(t):
                continue
            if t in feeds:
                blocked.append(t)
                continue
            out.append(t._op)
        out.extend(op._control_inputs)
        return [o for o in out if o not in done]

    graph_walk.reachable([op for op in roots if op not in done], next_ops)
    return blocked[0] if blocked else None


def _blocking_feed(state, known, roots):
    return blocking_feed(state.feeds, known.__contains__, state.done, roots)


def run(session, handle, fetches, feed_dict):
    """Continues partial run `handle`. Returns values in the structure of `fetches`."""
    state = session._partial_runs.get(handle)
    if state is None:
        raise errors.InvalidArgumentError(None, None,
                                          "Must run 'setup' before performing partial runs!")
    structure = FetchStructure(session._graph, fetches)
    reject_op_fetches(structure)
    feed_tensors, feed_values = session._process_feeds(feed_dict)
    _check_request(state, feed_tensors, structure.elements)
    known = dict(state.values)
    known.update(zip(feed_tensors, feed_values))
    wanted_t = [e for e in structure.elements if e not in known]
    blocked = _blocking_feed(state, known, [t._op for t in wanted_t])
    if blocked is not None:
        raise errors.InvalidArgumentError(
            None, None, f"Fetch {blocked.name} can't be computed from the feeds that have "
                        "been fed so far.")
    # The setup's target ops run with the first step after which they can.
    wanted_ops = [op for op in state.targets if op not in state.done and
                  _blocking_feed(state, known, [op]) is None]
    if wanted_t or wanted_ops:
        fed = set(known)
        ran = planner.needed_ops([t._op for t in wanted_t if t not in fed] + wanted_ops, fed,
                                 state.done)
        # Keep every output of the ops run (refs as their variable slots), so later calls
        # feed them instead of running an op twice.
        extra = [t for op in ran for t in op._outputs if t not in wanted_t]
        plan = Plan(session._context, wanted_t + extra, wanted_ops, list(known), done=state.done,
                    raw_refs=True)
        prev = run_state.set_current(run_state.RunState(session._default_timeout_ms))
        try:
            raw = plan.run([known[t] for t in plan.feeds])
        finally:
            run_state.set_current(prev)
        known.update(zip(plan.fetches, raw))
        state.done.update(ran)
    state.values = known
    out = []
    for el in structure.elements:
        state.pending_fetches.discard(el)
        v = known[el]
        if isinstance(v, VariableSlot):
            v = v.get()
        if isinstance(v, np.ndarray):
            v = v.copy()
            if v.ndim == 0:
                v = v[()]
        out.append(v)
    if not state.pending_fetches:
        with session._lock:
            session._partial_runs.pop(handle, None)
    return structure.build(out)
