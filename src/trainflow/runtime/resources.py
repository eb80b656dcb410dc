"""The resource manager of a session or server task: variables and other named state,
kept in containers (TensorFlow's `tf.container`, cleared by `Session.reset`)."""
import threading

from trainflow.framework.kernel_context import RefSlot


class Uninitialized(Exception):
    """Raised when an uninitialized variable is read (mapped to FailedPreconditionError)."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name


class VariableSlot(RefSlot):
    """The storage of one ref variable; `value` is its buffer (None until assigned)."""

    __slots__ = ("name", "value", "dtype", "shape", "lock", "dropped")

    def __init__(self, name, dtype=None, shape=None):
        self.name = name
        self.value = None
        self.dropped = False  # set when its container is cleared
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


DEFAULT_CONTAINER = "localhost"  # TensorFlow's name for the default container


def container_of(op):
    """The container an op's `container` attr names (the default when empty)."""
    c = op._attrs.get("container") if op is not None else None
    if isinstance(c, bytes):
        c = c.decode()
    return c or DEFAULT_CONTAINER


class Container:
    """The resources of one container: variables and other named resources."""

    def __init__(self, name):
        self.name = name
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
        """Drops every resource (closing those that have a close() method); kernels
        holding a dropped variable look it up again."""
        with self._lock:
            resources = list(self._resources.values())
            slots = list(self._variables.values())
            self._resources.clear()
            self._variables.clear()
        for slot in slots:
            slot.dropped = True
        for r in resources:
            close = getattr(r, "close", None)
            if callable(close):
                try:
                    close()
                except Exception:  # noqa: BLE001 - best effort at teardown
                    pass


class ResourceManager(Container):
    """Named resources of one session (or one server task), in containers (TF's
    `tf.container`); its own methods work on the default container."""

    def __init__(self):
        super().__init__(DEFAULT_CONTAINER)
        self._containers = {DEFAULT_CONTAINER: self}
        self._containers_lock = threading.Lock()

    def container(self, name):
        """The Container called `name` ("" or None: the default), created on first use."""
        name = name or DEFAULT_CONTAINER
        c = self._containers.get(name)
        if c is None:
            with self._containers_lock:
                c = self._containers.setdefault(name, Container(name))
        return c

    def container_names(self):
        with self._containers_lock:
            return sorted(self._containers)

    def variables(self, container=None):
        """A snapshot dict of name -> VariableSlot of `container`, or of every container
        when None."""
        if container is not None:
            return Container.variables(self.container(container))
        out = {}
        for name in self.container_names():
            if name != DEFAULT_CONTAINER:
                out.update(self._containers[name].variables())
        out.update(super().variables())
        return out

    def clear_containers(self, names):
        """Clears the containers `names` (the default container when empty), as
        TensorFlow's Session.reset does on a device."""
        for name in (names or [DEFAULT_CONTAINER]):
            c = self._containers.get(name or DEFAULT_CONTAINER)
            if c is not None:
                Container.clear(c)

    def clear(self):
        """Drops every resource of every container."""
        for name in self.container_names():
            Container.clear(self._containers[name])
