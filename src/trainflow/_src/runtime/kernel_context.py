"""The runtime's KernelContext: the current step's RunState, and function bodies
compiled in the execution context that runs the kernel."""
from trainflow._src.framework import kernel_context
from trainflow._src.runtime import run_state
from trainflow._src.runtime.resources import container_of


class KernelContext(kernel_context.KernelContext):
    """The context a session hands to kernels (see framework.kernel_context), made from
    the ExecutionContext (runtime/executor.py) the op runs in (None: no session).
    `resources` is the container the op's `container` attr names (tf.container)."""

    __slots__ = ("_manager", "_context")

    def __init__(self, op, context):
        self._context = context
        resources = self._manager = None if context is None else context.resources
        if resources is not None and op._attrs.get("container"):
            resources = resources.container(container_of(op))
        super().__init__(op, None if context is None else context.owner, resources)

    def variable(self, variable_op):
        """The storage of the variable `variable_op` names, in its own container."""
        attrs = variable_op._attrs
        return self._manager.container(container_of(variable_op)).variable(
            kernel_context.resource_name(variable_op), attrs["dtype"], attrs["shape"])

    @property
    def run_state(self):
        """The RunState of the current step (cancellation, deadline)."""
        return run_state.current()

    def make_callable(self, fetches, feeds, fresh_kernels=False):
        """Compiles `fetches` from `feeds` with the planner and backends of the
        execution context (with `fresh_kernels`, of a child context binding its own
        kernels)."""
        return self._context.function_callable(fetches, feeds, fresh_kernels)
