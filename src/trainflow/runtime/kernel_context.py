"""What a kernel sees of the world: its op, the session's resources, per-op state."""
from trainflow.runtime import run_state


class KernelContext:
    """Per (session, op) context handed to kernels that declare a `ctx` parameter.

    Attributes:
      op: the Operation being run.
      session: the Session (or server-side runner) executing it.
      resources: the ResourceManager holding variables, queues, readers.
      state: a dict the kernel may use for state that lives as long as the session
        (random generators, reader positions...).
    """

    __slots__ = ("op", "session", "resources", "state")

    def __init__(self, op, session, resources):
        self.op = op
        self.session = session
        self.resources = resources
        self.state = {}

    @property
    def run_state(self):
        """The RunState of the current step (cancellation, deadline)."""
        return run_state.current()

    @property
    def resource_name(self):
        """The shared_name attr if set, else the op name (TF's resource naming)."""
        shared = self.op._attrs.get("shared_name")
        if shared:
            return shared.decode() if isinstance(shared, bytes) else shared
        return self.op.name
