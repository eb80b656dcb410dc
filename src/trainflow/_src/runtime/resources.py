"""The resource manager of a session or server task: variables and other named state,
kept in containers (TensorFlow's `tf.container`, cleared by `Session.reset`)."""
import threading

import numpy as np

from trainflow._src.framework.kernel_context import RefSlot


class Uninitialized(Exception):
    """Raised when an uninitialized variable is read (mapped to FailedPreconditionError)."""

    def __init__(self, name):
        super().__init__(name)
        self.name = name


class VariableSlot(RefSlot):
    """The storage of one ref variable. `value` is its host (NumPy) buffer, None until
    assigned.

    A backend that computes on a device (the XLA backend) may own the value between
    steps: `device_value` hands it the device copy and `store_device` takes the new one,
    which then lives only there. Reading `value` on the host syncs the device copy back
    (into the same buffer when it fits) and returns ownership to the host, since the
    reader may write the buffer in place; assigning `value` drops the device copy.
    `dropped` is set when its container is cleared (`Session.reset`).
    """

    __slots__ = ("name", "dtype", "shape", "lock", "dropped", "_host", "_device", "_stale",
                 "_exposed", "_exposed_in")

    def __init__(self, name, dtype=None, shape=None):
        self.name = name
        self.dropped = False
        self.dtype = dtype
        self.shape = shape
        self.lock = threading.RLock()
        self._host = None
        self._device = None  # the device copy, when a backend holds one
        self._stale = False  # whether _host is behind _device
        self._exposed = True  # whether the host buffer was handed out since the last store
        self._exposed_in = None  # the step in which it was last handed out

    @property
    def value(self):
        if self._device is not None:
            self._to_host()
        self._exposed = True
        return self._host

    @value.setter
    def value(self, buffer):
        self._host = buffer
        self._device = None
        self._stale = False
        self._exposed = True

    def get(self):
        """The buffer. Raises Uninitialized if never assigned."""
        if self._device is not None:
            self._to_host()
        self._exposed = True
        v = self._host
        if v is None:
            raise Uninitialized(self.name)
        return v

    @property
    def initialized(self):
        """Whether the variable has a value (on the host or a device), without a sync."""
        return self._host is not None or self._device is not None

    def _to_host(self):
        """Makes the host buffer current and the host its owner."""
        # Under the lock: a device step running in another thread holds it while it reads
        # the value, donates its buffer and stores the new one (reentrant: a kernel that
        # holds it reads the value too).
        with self.lock:
            device, stale = self._device, self._stale
            if device is None:
                return
            if stale:
                _copy_into(self, np.asarray(device))
            self._device = None
            self._stale = False

    # -- for device backends ------------------------------------------------------------
    def host_buffer(self):
        """The host buffer when it is current (no device copy), else None; no sync."""
        return self._host if self._device is None else None

    def current(self):
        """The current value, on the device or the host, for its shape and dtype only (no
        sync, no change of owner); None when uninitialized."""
        device = self._device
        return self._host if device is None else device

    def device_value(self, put):
        """The device copy (made with `put(host buffer)` if there is none); None when
        uninitialized."""
        device = self._device
        if device is None and self._host is not None:
            device = self._device = put(self._host)
            self._stale = False
        return device

    def store_device(self, value, step):
        """Takes `value` (a device array) as the variable's new value.

        If the host buffer was handed out in this step (`step`: the current RunState),
        a host reader may still hold it, so it is updated in place as well; otherwise
        the host copy is left behind until something on the host reads the variable.
        """
        if self._exposed or self._exposed_in is step:
            self._exposed = False
            self._exposed_in = step
            _copy_into(self, np.asarray(value))
            self._stale = False
        else:
            self._stale = True
        self._device = value

    def __repr__(self):
        return f"<VariableSlot {self.name} initialized={self.initialized}>"


def _copy_into(slot, value):
    """Stores `value` in the slot's host buffer, in place when shape and dtype agree."""
    host = slot._host
    if host is not None and host.shape == value.shape and host.dtype == value.dtype and \
            host.flags.writeable:
        np.copyto(host, value)
    else:
        slot._host = np.array(value)


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
