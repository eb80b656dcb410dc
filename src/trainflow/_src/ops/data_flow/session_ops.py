"""Tensors kept in a session between runs (`tf.get_session_handle`,
`tf.get_session_tensor`, `tf.delete_session_tensor`): the GetSessionHandle(V2),
GetSessionTensor and DeleteSessionTensor ops, and `TensorHandle`, what `Session.run`
returns for a handle.

A handle is TensorFlow's string `<op name>;<id>;<device>`; the tensors live in the
session's resource manager under ids counted per session, as TF's session state does."""
import itertools
import threading

import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.constant_op import placeholder
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import colocate_with, device, get_default_graph
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import scalar, unknown_shape

__all__ = ["TensorHandle", "get_session_handle", "get_session_tensor",
           "delete_session_tensor", "HANDLE_OP_TYPES"]

LOCAL_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
HANDLE_OP_TYPES = frozenset(["GetSessionHandle", "GetSessionHandleV2"])


class _TensorStore:
    """The tensors of one session, by handle."""

    def __init__(self):
        self.ids = itertools.count()
        self.tensors = {}
        self.lock = threading.Lock()


_STORE = "SessionTensorStore"


def _store(ctx):
    return ctx.resources.lookup_or_create(_STORE, "", _TensorStore)


def _new_handle(value, ctx):
    store = _store(ctx)
    with store.lock:
        handle = "%s;%d;%s" % (ctx.op.name, next(store.ids), LOCAL_DEVICE)
        # Kept as it is, as TF keeps the buffer: a kept read of a variable sees its later
        # in-place updates.
        store.tensors[handle] = np.asarray(value)
    return handle


def _missing(handle):
    return errors.InvalidArgumentError(
        None, None, "The tensor with handle '%s' is not in the session store." % handle)


def _handle_string(handle):
    handle = np.asarray(handle).reshape(())[()]
    return handle.decode() if isinstance(handle, bytes) else str(handle)


def _get_handle_kernel(value, *, ctx):
    return np.array(_new_handle(value, ctx).encode(), dtype=object)


def _get_handle_v2_kernel(value, *, ctx):
    out = np.empty((), dtype=object)
    out[()] = _new_handle(value, ctx).encode()
    return out


def _get_tensor_kernel(handle, *, dtype, ctx):
    key = _handle_string(handle)
    store = _store(ctx)
    with store.lock:
        value = store.tensors.get(key)
    if value is None:
        raise _missing(key)
    return value


def _delete_kernel(handle, *, ctx):
    key = _handle_string(handle)
    store = _store(ctx)
    with store.lock:
        if store.tensors.pop(key, None) is None:
            raise _missing(key)


register_op("GetSessionHandle", inputs=["value: T"], outputs=["handle: string"],
            attrs=["T: type"], shape_fn=lambda op: [scalar()], kernel=_get_handle_kernel,
            stateful=True, host_only=True)
register_op("GetSessionHandleV2", inputs=["value: T"], outputs=["handle: resource"],
            attrs=["T: type"], shape_fn=lambda op: [scalar()], kernel=_get_handle_v2_kernel,
            stateful=True, host_only=True)
register_op("GetSessionTensor", inputs=["handle: string"], outputs=["value: dtype"],
            attrs=["dtype: type"], shape_fn=lambda op: [unknown_shape()],
            kernel=_get_tensor_kernel, stateful=True, host_only=True)
register_op("DeleteSessionTensor", inputs=["handle: string"], shape_fn=lambda op: [],
            kernel=_delete_kernel, stateful=True, host_only=True)
for _op_type in ("GetSessionHandle", "GetSessionHandleV2", "GetSessionTensor",
                 "DeleteSessionTensor"):
    NotDifferentiable(_op_type)


class TensorHandle:
    """A tensor kept in a session: what `Session.run` gives for `get_session_handle`.
    Feed `handle` (or the TensorHandle itself) to a `get_session_tensor` placeholder."""

    def __init__(self, handle, dtype, session):
        self._handle = handle.decode() if isinstance(handle, bytes) else str(handle)
        self._dtype = dtype
        self._session = session
        self._auto_gc_enabled = True

    def __del__(self):
        if getattr(self, "_auto_gc_enabled", False):
            register = getattr(self._session, "_register_dead_handle", None)
            if register is not None:
                register(self._handle)

    def __str__(self):
        return self._handle

    @property
    def handle(self):
        """The handle string."""
        return self._handle

    def to_numpy_array(self):
        """The feedable value of this handle (its string)."""
        return self._handle

    def _stored_value(self, dtype, feed_name):
        """The kept tensor, for a feed of this handle to a tensor of `dtype`: TensorFlow
        feeds the tensor the handle names, not the string."""
        resources = getattr(self._session, "_resources", None)
        store = resources.lookup(_STORE, "") if resources is not None else None
        with store.lock if store is not None else threading.Lock():
            value = None if store is None else store.tensors.get(self._handle)
        if value is None:
            raise _missing(self._handle)
        if dtypes.as_dtype(value.dtype) != dtype.base_dtype and not (
                dtype.base_dtype == dtypes.string and value.dtype == object):
            raise errors.InvalidArgumentError(
                None, None, "Expects the feed of %s to be %s but %s is provided"
                % (feed_name, dtype.base_dtype.name, dtypes.as_dtype(value.dtype).name))
        return value

    def get_raw_handle(self):
        """The handle string."""
        return self._handle

    def eval(self):
        """The tensor's value, read back from the session."""
        self._check_alive()
        holder, reader = _handle_reader(self._session.graph, self._handle, self._dtype)
        return self._session.run(reader, feed_dict={holder: self._handle})

    def delete(self):
        """Removes the tensor from the session."""
        self._check_alive()
        self._auto_gc_enabled = False
        holder, deleter = _handle_deleter(self._session.graph, self._handle)
        self._session.run(deleter, feed_dict={holder: self._handle})

    def _check_alive(self):
        if not self._auto_gc_enabled:
            raise TypeError("Persistent tensor %s may have already been deleted."
                            % self._handle)

    @staticmethod
    def _get_device_name(handle):
        return str(handle.decode() if isinstance(handle, bytes) else handle).split(";")[-1]

    @staticmethod
    def _get_reader_key(handle):
        parts = str(handle).split(";")
        return parts[0] + ";" + parts[-1]


def _graph_cache(graph, attr):
    cache = getattr(graph, attr, None)
    if cache is None:
        cache = {}
        setattr(graph, attr, cache)
    return cache


def _handle_reader(graph, handle, dtype):
    """The (placeholder, GetSessionTensor) pair reading handles like `handle`, made once
    per graph."""
    key = TensorHandle._get_reader_key(handle)
    readers = _graph_cache(graph, "_handle_readers")
    if key not in readers:
        with graph.as_default(), graph.device(TensorHandle._get_device_name(handle)):
            holder = placeholder(dtypes.string)
            _graph_cache(graph, "_handle_feeders")[holder.op.name] = dtype
            readers[key] = (holder, _get_session_tensor(holder, dtype))
    return readers[key]


def _handle_deleter(graph, handle):
    """The (placeholder, DeleteSessionTensor) pair for handles like `handle`."""
    key = TensorHandle._get_device_name(handle)
    deleters = _graph_cache(graph, "_handle_deleters")
    if key not in deleters:
        with graph.as_default(), graph.device(key):
            holder = placeholder(dtypes.string)
            deleters[key] = (holder, apply_op("DeleteSessionTensor", handle=holder))
    return deleters[key]


def delete_handles(session, handles):
    """Deletes `handles` from `session` in one run (the session's collected dead ones)."""
    feeds, fetches = {}, []
    for handle in handles:
        holder, deleter = _handle_deleter(session.graph, handle)
        if holder in feeds:  # one deleter per device: run again for the next handle
            session.run(deleter, feed_dict={holder: handle})
            continue
        feeds[holder] = handle
        fetches.append(deleter)
    if fetches:
        session.run(fetches, feed_dict=feeds)


def get_session_handle(data, name=None):
    """A string tensor: the handle of `data`, kept in the session after the run."""
    if not isinstance(data, Tensor):
        raise TypeError("`data` must be of type Tensor.")
    with colocate_with(data):
        return apply_op("GetSessionHandle", name=name, value=data).outputs[0]


def _get_session_tensor(holder, dtype, name=None):
    return apply_op("GetSessionTensor", name=name, handle=holder, dtype=dtype).outputs[0]


def get_session_tensor(handle, dtype, name=None):
    """(placeholder, tensor): feed a handle to the placeholder and the tensor is its
    value."""
    dtype = dtypes.as_dtype(dtype)
    graph = get_default_graph()
    with device(TensorHandle._get_device_name(handle)):
        holder = placeholder(dtypes.string)
        _graph_cache(graph, "_handle_feeders")[holder.op.name] = dtype
        tensor = _get_session_tensor(holder, dtype, name=name)
    return holder, tensor


def delete_session_tensor(handle, name=None):
    """(placeholder, op): feed a handle to the placeholder and run the op to delete it."""
    with device(TensorHandle._get_device_name(handle)):
        holder = placeholder(dtypes.string)
        deleter = apply_op("DeleteSessionTensor", name=name, handle=holder)
    return holder, deleter
