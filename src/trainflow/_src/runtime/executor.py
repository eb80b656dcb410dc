"""Execution plans: the ops needed for a (fetches, feeds, targets) signature, planned
once (runtime/planner.py: prune, order, fold constants, cut into segments) and compiled
by the backends (runtime/backends/) into a function that runs one step.

The host program is one generated Python function of straight-line kernel calls (see
numpy_backend.Program). When the session runs with XLA (runtime/backends/xla_switch.py),
each segment the planner cuts for it becomes one fused call in that program
(runtime/backends/xla_backend.py).

A plan runs in an `ExecutionContext`, which its session owns: the resources kernels
read and write, the kernels bound once for it, and the XLA backend if the session
compiles with XLA.
"""
from trainflow._src.runtime import planner
from trainflow._src.runtime.backends import numpy_backend, xla_switch


class ExecutionContext:
    """What the plans of one session run with.

    Attributes:
      owner: the session (or a worker's runner) the kernels see as `ctx.session`.
      resources: the ResourceManager of the variables, queues ... kernels use; None for
        a session whose steps run elsewhere.
      xla: the XLA backend module when the session compiles with XLA, else None.
      kernels: {op: its kernel bound for this context} (see `bound_kernel`).
    """

    __slots__ = ("owner", "resources", "xla", "kernels")

    def __init__(self, owner, resources, xla=None):
        self.owner = owner
        self.resources = resources
        self.xla = xla
        self.kernels = {}

    def bound_kernel(self, op):
        """The op's kernel with its attrs (and context) bound, once per context."""
        fn = self.kernels.get(op)
        if fn is None:
            fn = self.kernels.setdefault(op, numpy_backend.bind_kernel(op, self))
        return fn

    def function_callable(self, fetches, feeds, fresh_kernels=False):
        """`fn(feed_values) -> values` of `fetches` (tensors of a function graph run by a
        control-flow kernel), planned and compiled in this context, or with
        `fresh_kernels` in a child context with the same resources and its own kernels."""
        context = ExecutionContext(self.owner, self.resources, self.xla) if fresh_kernels \
            else self
        return Plan(context, list(fetches), [], list(feeds)).run


class Plan:
    """A compiled step for one (fetches, feeds, targets) signature.

    Attributes:
      fetches, feeds: as given.
      ops: the planned ops, in run order (what a step's trace indices refer to).
      program: the compiled host program (numpy_backend.Program).
      source: the generated source of the host program.
      may_dead: whether some value may be DEAD (the plan holds a Switch).
      copy_results: per fetch, whether its value may alias a feed, an input, a variable
        or a buffer the session keeps (a caller returning it copies it first).
      run: ``run(feed_values, trace=None) -> fetched values`` (raw kernel outputs);
        `trace`, when given, is called ``trace(op_index, start_ns, end_ns)`` per op.
        Raises OpError naming the failing node.
    """

    def __init__(self, context, fetches, targets, feeds, done=frozenset(), raw_refs=False):
        """
        Args:
          context: the ExecutionContext the plan runs in.
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
        ops = planner.needed_ops(roots, fed, done)
        if not done:
            ops = planner.skip_unread(ops, roots)
        folded = planner.fold_constants(ops, fed)
        xla = context.xla
        # The default's XLA (xla_switch.Auto): while jax loads, the plan runs on NumPy
        # and the session makes it again once the backend is there.
        self.provisional = None
        if isinstance(xla, xla_switch.Auto):
            auto = xla
            xla, wait = auto.plan_backend(ops)
            self.provisional = auto if wait else None
        marked_only = False
        if xla is None and not done and any(op._attrs.get("_XlaCompile") is True
                                            for op in ops):
            # The switch is off, but `jit_scope` marked ops for compilation.
            xla = xla_switch.load_backend()
            marked_only = True
        if xla is not None and not done:
            # The XLA segments become one fused call each inside the host program.
            ops, kernels = planner.host_program(ops, self.fetches, fed, folded, xla,
                                                context.bound_kernel, marked_only)
        else:
            kernels = [context.bound_kernel(op) for op in ops]
        self.ops = ops
        program = self.program = numpy_backend.Program(ops, self.fetches, self.feeds, folded,
                                                       kernels, raw_refs)
        self.source = program.source
        self.may_dead = program.may_dead
        self.copy_results = [
            is_ref or t in fed or (t._op._info is not None and
                                   t._op._info.output_aliases_input)
            for t, is_ref in zip(self.fetches, program.fetch_is_ref)]
        # The program's run is the plan's: no extra call per step.
        self.run = program.run if self.provisional is None else \
            self.provisional.timed(program.run)
