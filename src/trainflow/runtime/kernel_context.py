"""The runtime's KernelContext: the current step's RunState, and function bodies
compiled by the session that runs the kernel."""
from trainflow.framework import kernel_context
from trainflow.runtime import run_state


class KernelContext(kernel_context.KernelContext):
    """The context a session hands to kernels (see framework.kernel_context)."""

    __slots__ = ()

    @property
    def run_state(self):
        """The RunState of the current step (cancellation, deadline)."""
        return run_state.current()

    def make_callable(self, fetches, feeds):
        """Compiles `fetches` from `feeds` with the session's planner and backend."""
        return self.session._function_callable(fetches, feeds)
