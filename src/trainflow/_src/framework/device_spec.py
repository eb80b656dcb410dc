"""Device names: parsing, merging partial specs, canonical strings (TF's DeviceSpec)."""


_DEVICE_TYPES = frozenset(["CPU", "GPU", "TPU"])


class DeviceSpec:
    """A (possibly partial) device: job, replica, task, device type and index."""

    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        self.device_type = device_type.upper() if isinstance(device_type, str) and \
            device_type.upper() in _DEVICE_TYPES else device_type
        self.device_index = device_index

    @classmethod
    def from_string(cls, spec):
        """Parses "/job:ps/replica:0/task:1/device:CPU:0" and the short forms "/cpu:0", "GPU".

        Raises:
          ValueError: for a malformed device string.
        """
        d = cls()
        d._parse(spec or "")
        return d

    def parse_from_string(self, spec):
        """Resets this spec to the one `spec` describes; returns self.

        Raises:
          ValueError: for a malformed device string.
        """
        self.job = self.replica = self.task = self.device_type = self.device_index = None
        self._parse(spec or "")
        return self

    def _parse(self, spec):
        device_type_seen = False
        for part in spec.split("/"):
            if not part:
                continue
            ly = part.split(":")
            key = ly[0]
            if len(ly) == 2 and key == "job":
                self.job = ly[1]
            elif len(ly) == 2 and key == "replica":
                self.replica = int(ly[1])
            elif len(ly) == 2 and key == "task":
                self.task = int(ly[1])
            elif len(ly) in (1, 2) and key.upper() in _DEVICE_TYPES or \
                    len(ly) == 3 and key == "device":
                if device_type_seen:
                    raise ValueError("Multiple device types are not allowed while parsing the "
                                     f"device spec: {spec}.")
                device_type_seen = True
                if len(ly) == 3:
                    kind, index = ly[1], ly[2]
                else:
                    kind, index = key, ly[1] if len(ly) == 2 else "*"
                self.device_type = kind.upper() if kind.upper() in _DEVICE_TYPES else kind
                self.device_index = None if index == "*" else int(index)
            else:
                raise ValueError(f"Unknown attribute '{key}' is encountered while parsing the "
                                 f"device spec: '{spec}'.")

    def merge_from(self, other):
        """Fills in every field that `other` sets (other's fields win)."""
        for f in self.__slots__:
            v = getattr(other, f)
            if v is not None:
                setattr(self, f, v)

    def make_merged_spec(self, other):
        """A new spec: this one with `other`'s set fields taking precedence."""
        out = self.copy()
        out.merge_from(other)
        return out

    def copy(self):
        return DeviceSpec(self.job, self.replica, self.task, self.device_type,
                          self.device_index)

    def replace(self, **kwargs):
        out = self.copy()
        for k, v in kwargs.items():
            setattr(out, k, v)
        return out

    def to_string(self):
        """The canonical string, e.g. "/job:ps/task:0/device:CPU:0"."""
        out = []
        if self.job is not None:
            out.append(f"/job:{self.job}")
        if self.replica is not None:
            out.append(f"/replica:{self.replica}")
        if self.task is not None:
            out.append(f"/task:{self.task}")
        if self.device_type is not None:
            idx = "*" if self.device_index is None else self.device_index
            out.append(f"/device:{self.device_type}:{idx}")
        return "".join(out)

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return f"DeviceSpec({self.to_string()!r})"


_CANONICAL_CACHE = {}


def canonical_name(device):
    """Canonical form of a device string or DeviceSpec ("" stays "")."""
    if device is None:
        return ""
    if isinstance(device, DeviceSpec):
        return device.to_string()
    out = _CANONICAL_CACHE.get(device)
    if out is None:
        out = DeviceSpec.from_string(device).to_string()
        _CANONICAL_CACHE[device] = out
    return out


def merge_device(spec):
    """A device function that merges `spec` under the device the op already has."""
    if isinstance(spec, str):
        spec = DeviceSpec.from_string(spec)

    def _merge(op):
        current = DeviceSpec.from_string(op.device)
        return spec.make_merged_spec(current).to_string()
    return _merge


# The device-scope entries a Graph keeps per thread: None clears the outer scopes, a
# function maps an op to its device, _KEEP (a "" scope) changes nothing.
_KEEP = object()


def device_function(device_name_or_function):
    """The device-scope entry for `Graph.device(device_name_or_function)`.

    Args:
      device_name_or_function: a device string or DeviceSpec (merged over the devices
        that outer scopes give), a function op -> device string, or None.

    Raises:
      ValueError: for a malformed device string.
    """
    if device_name_or_function is None:
        return None
    if callable(device_name_or_function):
        return device_name_or_function
    spec = device_name_or_function
    if isinstance(spec, str):
        spec = DeviceSpec.from_string(spec)
    return _KEEP if not spec.to_string() else merge_device(spec)


def apply_device_functions(functions, op):
    """Sets `op`'s device from the device-scope entries `functions` (outermost first):
    inner entries apply first, then outer ones, up to the innermost None."""
    for fn in reversed(functions):
        if fn is None:
            break
        if fn is not _KEEP:
            op._set_device(fn(op))


def apply_colocation(colocation_ops, op):
    """Puts `op` in the colocation groups of `colocation_ops` (the `_class` attr) and on
    the device of the innermost one that has a device."""
    groups = []
    device_set = False
    for other in reversed(colocation_ops):
        groups.extend(other.colocation_groups())
        if other.device and not device_set:
            op._set_device(other.device)
            device_set = True
    op._attrs["_class"] = sorted(set(groups))
