"""Execution plans: the ops needed for a (fetches, feeds, targets) signature, planned
once (runtime/planner.py: prune, order, fold constants, partition by backend) and
compiled by a backend (runtime/backends/) into a function that runs one step.

The host program is one generated Python function of straight-line kernel calls (see
numpy_backend.Program). When the session runs with XLA (runtime/backends/xla_switch.py),
each maximal segment of ops with lowerings becomes one fused call in that program
(runtime/backends/xla_backend.py).
"""
from trainflow._src.runtime import planner
from trainflow._src.runtime.backends import numpy_backend, xla_switch


class Plan:
    """A compiled step for one (fetches, feeds, targets) signature of a session."""

    def __init__(self, session, fetches, targets, feeds, done=frozenset(), raw_refs=False):
        """
        Args:
          session: the owning session (supplies bound kernels and resources).
          fetches: list of Tensors whose values are returned, in order.
          targets: list of Operations run for their effects.
          feeds: list of Tensors whose values are passed to `run`, in order. A fed ref
            tensor may be fed a VariableSlot (partial runs do).
          done: ops already run in a partial run.
          raw_refs: return fetched ref tensors as their VariableSlots, not their values.
        """
        self.fetches = list(fetches)
        self.feeds = list(feeds)
        fed = set(self.feeds)
        roots = [t._op for t in self.fetches if t not in fed] + list(targets)
        self.ops = planner.needed_ops(roots, fed, done)
        if not done:
            self.ops = planner.skip_unread(self.ops, roots)
        folded = planner.fold_constants(self.ops, fed)
        xla = getattr(session, "_xla_backend", None)
        marked_only = False
        if xla is None and not done and any(op._attrs.get("_XlaCompile") is True
                                            for op in self.ops):
            # The switch is off, but `jit_scope` marked ops for compilation.
            xla = xla_switch.load_backend()
            marked_only = True
        if xla is not None and not done:
            # The XLA segments become one fused call each inside the host program.
            ops, kernels = xla.build_segments(self.ops, self.fetches, self.feeds, folded,
                                              lambda op: _bound_kernel(session, op),
                                              marked_only)
            self.ops = ops
        else:
            ops = self.ops
            kernels = [_bound_kernel(session, op) for op in ops]
        self.segments = planner.partition(
            ops, lambda op: "xla" if type(op).__name__ == "SegmentOp" else planner.NUMPY)
        self._program = numpy_backend.Program(ops, self.fetches, self.feeds, folded,
                                              kernels, raw_refs)
        self.source = self._program.source
        self.may_dead = self._program.may_dead
        self._fetch_is_ref = self._program.fetch_is_ref
        # The program's run is the plan's: no extra call per step.
        self.run = self._program.run

    def run(self, feed_values, trace=None):
        """Runs the step. Returns the fetched values (raw kernel outputs).

        Args:
          feed_values: the values of `feeds`, in order.
          trace: optional callback ``trace(op_index, start_ns, end_ns)`` per op.

        Raises:
          OpError: naming the failing node.
        """
        return self._program.run(feed_values, trace)


def _bound_kernel(session, op):
    """The op's kernel bound once per session (attrs and context)."""
    kernels = session._bound_kernels
    fn = kernels.get(op)
    if fn is None:
        fn = kernels.setdefault(op, numpy_backend.bind_kernel(op, session,
                                                              session._resources))
    return fn
