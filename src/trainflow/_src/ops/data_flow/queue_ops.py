"""TensorFlow's V2 queue ops (FIFOQueueV2, QueueEnqueueV2, QueueDequeueManyV2 ...):
registrations, shape functions and kernels over the resources of `queue_impl`.

A queue op outputs a 0-d object array holding its queue resource as the `resource`
handle value; the queue lives in the session's resource manager under its shared_name
(or op name).
"""
import itertools

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.data_flow import queue_impl

_COMMON_ATTRS = ["capacity: int = -1", "container: string = ''", "shared_name: string = ''"]
QUEUE_TYPES = ("FIFOQueueV2", "PaddingFIFOQueueV2", "RandomShuffleQueueV2", "PriorityQueueV2")


def _np_dtypes(types):
    return [t.as_numpy_dtype for t in types]


def _shape_tuples(shapes):
    if any(s.rank is None for s in shapes):
        return []  # a shape of unknown rank leaves all of them unchecked
    return [tuple(s.as_list()) for s in shapes]


_unique_ids = itertools.count()


def display_name(ctx):
    """TF's name for a resource: its shared_name, else "_<unique id>_<node name>"."""
    shared = ctx.op._attrs.get("shared_name")
    if shared:
        return shared.decode() if isinstance(shared, bytes) else shared
    return f"_{next(_unique_ids)}_{ctx.op.name}"


def _handle_kernel(factory):
    def kernel(*, ctx):
        q = ctx.state.get("queue")
        if q is not None and ctx.resources.lookup("queue", ctx.resource_name) is q:
            return ctx.state["handle"]
        attrs = ctx.op._attrs
        make = lambda: factory(display_name(ctx), attrs)  # noqa: E731
        q = ctx.resources.lookup_or_create("queue", ctx.resource_name, make)
        want = factory(q.name, attrs).spec()
        if q.spec() != want:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{ctx.resource_name}' has {q.kind} signature "
                            f"{q.spec()[1:]} but the requested one is {want[1:]}")
        ctx.state["queue"] = q
        # A resource handle is a scalar tensor, so Pack/Gather can route handles.
        handle = ctx.state["handle"] = np.empty((), dtype=object)
        handle[()] = q
        handle.flags.writeable = False
        return handle
    return kernel


def _fifo(name, attrs, cls=queue_impl.QueueResource):
    return cls(name, _np_dtypes(attrs["component_types"]), _shape_tuples(attrs["shapes"]),
               attrs["capacity"])


def _padding(name, attrs):
    return _fifo(name, attrs, queue_impl.PaddingQueueResource)


def _shuffle(name, attrs):
    return queue_impl.RandomShuffleQueueResource(
        name, _np_dtypes(attrs["component_types"]), _shape_tuples(attrs["shapes"]),
        attrs["capacity"], attrs["min_after_dequeue"], attrs["seed"], attrs["seed2"])


def _priority(name, attrs):
    shapes = _shape_tuples(attrs["shapes"])
    return queue_impl.PriorityQueueResource(
        name, [np.int64] + _np_dtypes(attrs["component_types"]), [()] + shapes,
        attrs["capacity"])


def _scalar(op):
    return [TensorShape(())]


register_op("FIFOQueueV2", outputs=["handle: resource"],
            attrs=["component_types: list(type) >= 1", "shapes: list(shape) >= 0 = []"]
            + _COMMON_ATTRS, shape_fn=_scalar, kernel=_handle_kernel(_fifo), stateful=True)
register_op("PaddingFIFOQueueV2", outputs=["handle: resource"],
            attrs=["component_types: list(type) >= 1", "shapes: list(shape) >= 0 = []"]
            + _COMMON_ATTRS, shape_fn=_scalar, kernel=_handle_kernel(_padding), stateful=True)
register_op("RandomShuffleQueueV2", outputs=["handle: resource"],
            attrs=["component_types: list(type) >= 1", "shapes: list(shape) >= 0 = []",
                   "capacity: int = -1", "min_after_dequeue: int = 0", "seed: int = 0",
                   "seed2: int = 0", "container: string = ''", "shared_name: string = ''"],
            shape_fn=_scalar, kernel=_handle_kernel(_shuffle), stateful=True)
register_op("PriorityQueueV2", outputs=["handle: resource"],
            attrs=["component_types: list(type) >= 0 = []", "shapes: list(shape) >= 0"]
            + _COMMON_ATTRS, shape_fn=_scalar, kernel=_handle_kernel(_priority), stateful=True)


def queue_component_shapes(handle):
    """The component shapes of the queue op producing `handle` ([] if unknown)."""
    op = handle.op
    if op.type not in QUEUE_TYPES:
        return []
    shapes = list(op._attrs.get("shapes") or [])
    if op.type == "PriorityQueueV2" and shapes:
        shapes = [TensorShape(())] + shapes
    return shapes


def _dequeue_shape(batch):
    def fn(op):
        n = len(op._outputs)
        shapes = queue_component_shapes(op._inputs[0])
        if len(shapes) != n:
            return [unknown_shape()] * n
        if batch is None:
            return shapes
        size = None
        if batch == "many":
            v = constant_value(op._inputs[1])
            size = None if v is None else int(v)
        return [TensorShape([size]).concatenate(s) for s in shapes]
    return fn


def _queue(handle):
    """The queue behind a handle value (a gathered handle arrives as a 0-d array)."""
    return handle[()] if isinstance(handle, np.ndarray) else handle


def _enqueue_kernel(batched):
    def kernel(handle, components, *, ctx):
        # a string scalar may arrive as bytes (a reader's key or value)
        components = [c if isinstance(c, np.ndarray) else
                      np.asarray(c, dtype=object if isinstance(c, (bytes, str)) else None)
                      for c in components]
        _queue(handle).enqueue(ctx.run_state, components, batched=batched)
    return kernel


def _dequeue_kernel(handle, *, ctx):
    out = _queue(handle).dequeue(ctx.run_state)
    return out[0] if len(out) == 1 else tuple(out)


def _dequeue_many_kernel(allow_smaller):
    def kernel(handle, n, *, ctx):
        n = int(n)
        if n < 0:
            raise errors.InvalidArgumentError(
                None, None, f"Request 'n' is negative: {n}")
        out = _queue(handle).dequeue(ctx.run_state, n, allow_smaller=allow_smaller)
        return out[0] if len(out) == 1 else tuple(out)
    return kernel


def _close_kernel(handle, *, cancel_pending_enqueues):
    _queue(handle).close_queue(cancel_pending_enqueues)


_ENQ_ATTRS = ["Tcomponents: list(type) >= 1", "timeout_ms: int = -1"]
_DEQ_ATTRS = ["component_types: list(type) >= 1", "timeout_ms: int = -1"]
register_op("QueueEnqueueV2", inputs=["handle: resource", "components: Tcomponents"],
            attrs=_ENQ_ATTRS, shape_fn=lambda op: [], kernel=_enqueue_kernel(False),
            stateful=True, blocking=True, host_only=True)
register_op("QueueEnqueueManyV2", inputs=["handle: resource", "components: Tcomponents"],
            attrs=_ENQ_ATTRS, shape_fn=lambda op: [], kernel=_enqueue_kernel(True),
            stateful=True, blocking=True, host_only=True)
register_op("QueueDequeueV2", inputs=["handle: resource"],
            outputs=["components: component_types"], attrs=_DEQ_ATTRS,
            shape_fn=_dequeue_shape(None), kernel=_dequeue_kernel, stateful=True,
            blocking=True, host_only=True)
register_op("QueueDequeueManyV2", inputs=["handle: resource", "n: int32"],
            outputs=["components: component_types"], attrs=_DEQ_ATTRS,
            shape_fn=_dequeue_shape("many"), kernel=_dequeue_many_kernel(False),
            stateful=True, blocking=True, host_only=True)
register_op("QueueDequeueUpToV2", inputs=["handle: resource", "n: int32"],
            outputs=["components: component_types"], attrs=_DEQ_ATTRS,
            shape_fn=_dequeue_shape("upto"), kernel=_dequeue_many_kernel(True),
            stateful=True, blocking=True, host_only=True)
register_op("QueueCloseV2", inputs=["handle: resource"],
            attrs=["cancel_pending_enqueues: bool = false"], shape_fn=lambda op: [],
            kernel=_close_kernel, stateful=True, host_only=True)
register_op("QueueSizeV2", inputs=["handle: resource"], outputs=["size: int32"],
            shape_fn=_scalar, kernel=lambda handle: np.int32(_queue(handle).size()),
            stateful=True, host_only=True)
register_op("QueueIsClosedV2", inputs=["handle: resource"], outputs=["is_closed: bool"],
            shape_fn=_scalar, kernel=lambda handle: np.bool_(_queue(handle).is_closed()),
            stateful=True, host_only=True)

for _t in QUEUE_TYPES + ("QueueEnqueueV2", "QueueEnqueueManyV2", "QueueDequeueV2",
                         "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueCloseV2",
                         "QueueSizeV2", "QueueIsClosedV2"):
    NotDifferentiable(_t)
