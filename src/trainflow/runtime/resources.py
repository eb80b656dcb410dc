"""The resource manager of a session: variables and other named state."""
import threading

from trainflow.framework.kernel_context import RefSlot


class Uninitialized(Exception):
    """Raised when an uninitialized variable is read (mapped to FailedPreconditionError)."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name


class VariableSlot(RefSlot):
    """The storage of one ref variable; `value` is its buffer (None until assigned)."""

    __slots__ = ("name", "value", "dtype", "shape", "lock")

    def __init__(self, name, dtype=None, shape=None):
        self.name = name
        self.value = None
        self.dtype = dtype
        self.shape = shape
        self.lock = threading.Lock()

    def get(self):
        """The buffer. Raises Uninitialized if never assigned."""
        v = self.value
        if v is None:
            raise Uninitialized(self.name)
        return v

    def __repr__(self):
        return f"<VariableSlot {self.name} initialized={self.value is not None}>"


class ResourceManager:
    """Named resources of one session (or one server task): variables, queues, readers."""

    def __init__(self):
        self._lock = threading.Lock()
        self._variables = {}
        self._resources = {}

    def variable(self, name, dtype=None, shape=None):
        """The VariableSlot called `name`, created on first use."""
        slot = self._variables.get(name)
        if slot is None:
            with self._lock:
                slot = self._variables.get(name)
                if slot is None:
                    slot = VariableSlot(name, dtype, shape)
                    self._variables[name] = slot
        return slot

    def variables(self):
        """A snapshot dict of name -> VariableSlot."""
        with self._lock:
            return dict(self._variables)

    def lookup_or_create(self, kind, name, factory):
        """The resource (`kind`, `name`), created by `factory()` on first use."""
        key = (kind, name)
        res = self._resources.get(key)
        if res is None:
            with self._lock:
                res = self._resources.get(key)
                if res is None:
                    res = factory()
                    self._resources[key] = res
        return res

    def lookup(self, kind, name):
        """The resource (`kind`, `name`) or None."""
        return self._resources.get((kind, name))

    def resources(self):
        with self._lock:
            return dict(self._resources)

    def clear(self):
        """Drops every resource (closing those that have a close() method)."""
        with self._lock:
            resources = list(self._resources.values())
            self._resources.clear()
            self._variables.clear()
        for r in resources:
            close = getattr(r, "close", None)
            if callable(close):
                try:
                    close()
                except Exception:  # noqa: BLE001 - best effort at teardown
                    pass
