"""Variables at the edge of XLA segments: resource handles, the variables' locks
(`acquire_all`), their host buffers fed back in (`host_aliases`) and device copies.

A resource handle (a VarHandleOp's output, computed on the host before the segment)
enters a segment like a ref variable: the segment takes the handle, looks up the
variable's `VariableSlot` behind it, and its ops see the variable as a `Ref` (see
xla_backend.py): reads take the Ref's current value, updates set it, and the segment
writes the new values back into the slots after the call, where they stay in device
memory between steps until something on the host reads them.

Only ops whose lowering is marked ``takes_resources`` (ops/state/xla_lowerings.py,
ops/state/xla_resource_lowerings.py) take resource inputs inside a segment; an op
with a resource output (VarHandleOp) or another resource consumer stays on the host.
"""
import jax
import numpy as np

from trainflow._src.ops.state.resource_variable_ops import slot_of

__all__ = ["acquire_all", "device_copy", "host_aliases", "is_handle", "is_variable",
           "takes_handle", "slot_of"]


def is_handle(t):
    """Whether tensor `t` is a resource handle."""
    return t._dtype.base_dtype.name == "resource"


def is_variable(t):
    """Whether a segment input `t` stands for a variable (a ref or a resource handle):
    its value arrives as a slot (`slot_of`), and its ops see it as a Ref."""
    return t._dtype._is_ref_dtype or is_handle(t)


def takes_handle(t, lowering):
    """Whether input `t` of an op lowered by `lowering` is a handle that may enter a
    segment."""
    return is_handle(t) and getattr(lowering, "takes_resources", False)


def acquire_all(slots):
    """Takes the locks of `slots` without holding some while waiting for another (so no
    lock-order deadlock with other steps or host readers); returns them."""
    locks = [lock for _, lock in sorted({id(s.lock): s.lock for s in slots}.items())]
    while True:
        for i, lock in enumerate(locks):
            if not lock.acquire(blocking=False):
                for held in locks[:i]:
                    held.release()
                lock.acquire()  # wait for it holding none, then try all again
                lock.release()
                break
        else:
            return locks


def host_aliases(slots, values):
    """Per value, the index of the variable whose host buffer it is (a read made on the
    host and fed in), else -1."""
    bufs = {}
    for k, s in enumerate(slots):
        b = _buffer(s.host_buffer())
        if b is not None:
            bufs.setdefault(b, k)
    if not bufs:
        return ()
    out = tuple(bufs.get(_buffer(v), -1) for v in values)
    return out if any(k >= 0 for k in out) else ()


def device_copy(buffer):
    """A device copy of a host buffer (a copy: the host may write its buffer in place)."""
    return jax.device_put(np.array(buffer))


def _buffer(v):
    """(address, shape, dtype) of an array's data; None for other values."""
    if type(v) is np.ndarray and v.size:
        return v.__array_interface__["data"][0], v.shape, v.dtype
    return None
