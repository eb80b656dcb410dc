"""What a kernel sees of the world, as an interface the runtime implements: its op,
the session's resources, per-op state, the current step, and function bodies to call
(control-flow kernels), so that ops never import the runtime (contract 2 of
docs/architecture.md).

Also the values the dataflow shares with kernels: `DEAD`, the value of a tensor on an
untaken branch of a `Switch`, and the op types that make and merge dead values.
"""
import abc


class _Dead:
    """Marks the value of a tensor on an untaken branch."""

    __slots__ = ()

    def get(self):
        """A dead ref stays dead when read."""
        return self

    def __repr__(self):
        return "DEAD"


DEAD = _Dead()
SWITCH_TYPES = frozenset(["Switch", "RefSwitch"])
MERGE_TYPES = frozenset(["Merge", "RefMerge"])


class RefSlot:
    """The storage behind a ref tensor (a variable's buffer holder); `get()` returns the
    buffer. The runtime's VariableSlot is one; kernels test for this class."""

    __slots__ = ()


def resource_name(op):
    """The shared_name attr of `op` if set, else its name (TF's resource naming)."""
    shared = op._attrs.get("shared_name")
    if shared:
        return shared.decode() if isinstance(shared, bytes) else shared
    return op.name


class KernelContext(abc.ABC):
    """Per (session, op) context handed to kernels that declare a `ctx` parameter.

    Attributes:
      op: the Operation being run.
      session: the Session (or server-side runner) executing it.
      resources: the ResourceManager holding variables, queues, readers.
      state: a dict the kernel may use for state that lives as long as the session
        (random generators, reader positions, compiled function bodies...).
    """

    __slots__ = ("op", "session", "resources", "state")

    def __init__(self, op, session, resources):
        self.op = op
        self.session = session
        self.resources = resources
        self.state = {}

    @property
    def resource_name(self):
        """The shared_name attr if set, else the op name (TF's resource naming)."""
        return resource_name(self.op)

    def variable(self, variable_op):
        """The storage (a RefSlot) of the variable that `variable_op` (VariableV2) names."""
        attrs = variable_op._attrs
        return self.resources.variable(resource_name(variable_op), attrs["dtype"],
                                       attrs["shape"])

    # -- implemented by the runtime ----------------------------------------------------
    @property
    @abc.abstractmethod
    def run_state(self):
        """The RunState of the current step: `check()` raises when it is cancelled or past
        its deadline; `wait(cond, predicate)` blocks until `predicate()` or then."""

    @abc.abstractmethod
    def make_callable(self, fetches, feeds, fresh_kernels=False):
        """A function `fn(feed_values) -> list of values` computing the tensors `fetches`
        of a (function) graph from the values of the tensors `feeds`, in this session.
        Values of tensors on untaken branches are `DEAD`; errors name the failing op.
        With `fresh_kernels`, the function's ops get kernels (and kernel state) of their
        own instead of the session's (TF's fresh function runtime of an iterator)."""
