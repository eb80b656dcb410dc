"""TF's iterator ops: IteratorV2, OneShotIterator, MakeIterator, IteratorGetNext(Sync),
IteratorToStringHandle, IteratorFromStringHandle(V2).

A handle is a read-only 0-d object array holding the IteratorResource. A string handle
is a serialized ResourceHandleProto naming the iterator in the session's resources.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.device_spec import DeviceSpec
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import unknown_shape
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import scalar_shape
from trainflow._src.ops.dataset.iterator_resource import IteratorResource
from trainflow._src.protos import resource_handle_pb2

KIND = "iterator"
_ELEMENT = ["output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"]


def resource_of(handle, op=None):
    """The IteratorResource behind a handle value."""
    value = handle[()] if isinstance(handle, np.ndarray) and handle.ndim == 0 else handle
    if not isinstance(value, IteratorResource):
        raise errors.InvalidArgumentError(None, op, "Expected an iterator resource handle")
    return value


def _lookup(ctx, output_types, output_shapes):
    make = lambda: IteratorResource(ctx.resource_name, output_types, output_shapes)  # noqa: E731
    return ctx.resources.lookup_or_create(KIND, ctx.resource_name, make)


def _iterator(*, output_types, output_shapes, ctx):
    return dv.variant(_lookup(ctx, output_types, output_shapes))


def _one_shot(*, output_types, output_shapes, ctx):
    resource = _lookup(ctx, output_types, output_shapes)
    with resource.init_lock:
        if resource.dataset is None:
            plan = ctx.state.get("factory")
            if plan is None:
                fg = ctx.op._attrs["dataset_factory"]
                plan = ctx.state["factory"] = ctx.make_callable(list(fg.outputs), [])
            resource.make(dv.as_dataset(plan([])[0]))
    return dv.variant(resource)


def _make_iterator(dataset, iterator, *, ctx):
    resource_of(iterator, ctx.op).make(dv.as_dataset(dataset))


def _get_next(iterator, *, ctx):
    out = resource_of(iterator, ctx.op).get_next(ctx.run_state, ctx.op)
    return out[0] if len(out) == 1 else tuple(out)


def _to_string_handle(resource_handle, *, ctx):
    resource = resource_of(resource_handle, ctx.op)
    proto = resource_handle_pb2.ResourceHandleProto(
        device=ctx.op.device or "/job:localhost/replica:0/task:0/device:CPU:0",
        container="localhost", name=resource.name, maybe_type_name="IteratorResource")
    return np.asarray(proto.SerializeToString(), dtype=object)


def _from_string_handle(string_handle, *, output_types, output_shapes, ctx):
    proto = resource_handle_pb2.ResourceHandleProto()
    try:
        proto.ParseFromString(bytes(np.asarray(string_handle, dtype=object)[()]))
    except Exception as e:  # noqa: BLE001 - protobuf's DecodeError
        raise errors.InvalidArgumentError(
            None, ctx.op, f"Could not parse an iterator string handle: {e}") from e
    _check_same_task(proto.name, proto.device, ctx.op)
    resource = ctx.resources.lookup(KIND, proto.name)
    if resource is None:
        raise errors.NotFoundError(
            None, ctx.op, f"Resource localhost/{proto.name}/IteratorResource does not exist.")
    if output_types and list(output_types) != resource.output_types:
        raise errors.InvalidArgumentError(
            None, ctx.op, f"Expected types {[t.name for t in output_types]} but the iterator "
                          f"has {[t.name for t in resource.output_types]}")
    if output_shapes and not all(a.is_compatible_with(b) for a, b in
                                 zip(output_shapes, resource.output_shapes)):
        raise errors.InvalidArgumentError(
            None, ctx.op, f"Expected shapes {[str(s) for s in output_shapes]} but the "
                          f"iterator has incompatible shapes "
                          f"{[str(s) for s in resource.output_shapes]}")
    return dv.variant(resource)


def _check_same_task(name, handle_device, op):
    """InvalidArgumentError when a string handle names an iterator of another task (TF's
    error: resources are reached on their own device, through a remote call)."""
    here = op.device
    if not handle_device or not here:
        return
    a, b = DeviceSpec.from_string(handle_device), DeviceSpec.from_string(here)
    if any(x is not None and y is not None and x != y for x, y in
           ((a.job, b.job), (a.replica, b.replica), (a.task, b.task))):
        raise errors.InvalidArgumentError(
            None, op, f"Trying to access resource {name} located in device "
                      f"{handle_device} from device {here}")


def _element_shapes(op):
    shapes = op._attrs.get("output_shapes") or []
    return list(shapes) if shapes else [unknown_shape()] * len(op._outputs)


_RESOURCE_ATTRS = ["container: string = ''", "shared_name: string = ''"]
register_op("IteratorV2", outputs=["handle: resource"],
            attrs=["shared_name: string", "container: string"] + _ELEMENT,
            shape_fn=scalar_shape, kernel=_iterator, stateful=True, host_only=True)
register_op("OneShotIterator", outputs=["handle: resource"],
            attrs=["dataset_factory: func"] + _ELEMENT + _RESOURCE_ATTRS,
            shape_fn=scalar_shape, kernel=_one_shot, stateful=True, host_only=True)
register_op("MakeIterator", inputs=["dataset: variant", "iterator: resource"],
            shape_fn=scalar_shape, kernel=_make_iterator, stateful=True, host_only=True)
for _name in ("IteratorGetNext", "IteratorGetNextSync"):
    register_op(_name, inputs=["iterator: resource"], outputs=["components: output_types"],
                attrs=_ELEMENT, shape_fn=_element_shapes, kernel=_get_next, stateful=True,
                blocking=True, host_only=True)
register_op("IteratorToStringHandle", inputs=["resource_handle: resource"],
            outputs=["string_handle: string"], shape_fn=scalar_shape,
            kernel=_to_string_handle, stateful=True, host_only=True)
register_op("IteratorFromStringHandleV2", inputs=["string_handle: string"],
            outputs=["resource_handle: resource"],
            attrs=["output_types: list(type) >= 0 = []", "output_shapes: list(shape) >= 0 = []"],
            shape_fn=scalar_shape, kernel=_from_string_handle, stateful=True, host_only=True)
for _name in ("IteratorV2", "OneShotIterator", "MakeIterator", "IteratorGetNext",
              "IteratorGetNextSync", "IteratorToStringHandle", "IteratorFromStringHandleV2"):
    NotDifferentiable(_name)
