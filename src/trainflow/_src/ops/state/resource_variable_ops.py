"""Resource-variable ops of TF (VarHandleOp, ReadVariableOp, AssignVariableOp, ...), their
graph functions (TF's `gen_resource_variable_ops` names) and gradients.

A `VarHandleOp` outputs a DT_RESOURCE handle: a 0-d object array holding the variable's
`VariableSlot` in the session's resource manager (named by shared_name, like VariableV2).
Reads copy the buffer (TF's copy-on-write reads: a read never sees a later update of the
same step); assignments and updates write into the slot.
"""
import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.shape_util import fmt_dims, invalid_argument
from trainflow._src.ops.state.state_ops import assign_into, scatter_div_into
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import expand_dims, reshape, size

_NUMBER = "{float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, " \
          "qint32, bfloat16, uint16, complex128, half, uint32, uint64}"


def slot_of(handle):
    """The VariableSlot a resource handle value holds."""
    return handle[()] if isinstance(handle, np.ndarray) else handle


def _missing(ctx, slot):
    return errors.FailedPreconditionError(
        None, ctx.op,
        f"Could not find variable {slot.name}. This could mean that the variable has been "
        "deleted. In TF1, it can also mean the variable is uninitialized. Debug info: "
        f"container=localhost, status error message=Resource localhost/{slot.name}/class "
        "tensorflow::Var does not exist.")


def buffer_of(handle, ctx):
    """The current buffer of the variable behind `handle`.

    Raises:
      FailedPreconditionError: the variable is uninitialized (TF's wording).
    """
    slot = slot_of(handle)
    if slot.value is None:
        raise _missing(ctx, slot)
    return slot.value


def _check_dtype(ctx, slot, value):
    want = ctx.op._attrs["dtype"]
    if slot.dtype is not None and slot.dtype.base_dtype != want.base_dtype:
        raise invalid_argument(f"Trying to access variable {slot.name} using dtype "
                               f"{want.name} but the variable has dtype {slot.dtype.name}")


# -- VarHandleOp ---------------------------------------------------------------------------
def _handle_kernel(*, ctx):
    handle = ctx.state.get("handle")
    if handle is None or handle[()].dropped:  # dropped: its container was reset
        attrs = ctx.op._attrs
        slot = ctx.resources.variable(ctx.resource_name, attrs["dtype"], attrs["shape"])
        handle = np.empty((), dtype=object)
        handle[()] = slot
        handle.flags.writeable = False
        ctx.state["handle"] = handle
    return handle


def _scalar(op):
    return [TensorShape(())]


register_op("VarHandleOp", outputs=["resource: resource"],
            attrs=["container: string = ''", "shared_name: string = ''",
                   "debug_name: string = ''", "dtype: type", "shape: shape",
                   "allowed_devices: list(string) = []"],
            shape_fn=_scalar, kernel=_handle_kernel, stateful=True)


# -- reads ---------------------------------------------------------------------------------
def _read_kernel(resource, *, ctx):
    _check_dtype(ctx, slot_of(resource), None)
    return np.array(buffer_of(resource, ctx), copy=True)


# Ops that pass a resource handle through unchanged (TF carries the handle's shape data
# through them).
_HANDLE_PASS_THROUGH = ("Identity", "Enter", "Switch", "Merge", "RefEnter")


def _captured_source(t):
    """The outer tensor a function graph's placeholder `t` captures, or None."""
    for capture in getattr(t.op._graph, "captures", ()):
        if capture.inner is t:
            return capture.outer
    return None


def _handle_shape(op):
    """The static shape of the variable behind input 0: its VarHandleOp's shape attr, found
    through the captures of function graphs (a While's body) and pass-through ops, as TF's
    handle data follows the handle."""
    t = op._inputs[0]
    while True:
        src = t.op
        if src.type == "VarHandleOp":
            return src._attrs["shape"]
        if src.type in _HANDLE_PASS_THROUGH and src._inputs:
            t = src._inputs[0]
        elif src.type == "Placeholder" and (outer := _captured_source(t)) is not None:
            t = outer
        else:
            return TensorShape(None)


register_op("ReadVariableOp", inputs=["resource: resource"], outputs=["value: dtype"],
            attrs=["dtype: type"], shape_fn=lambda op: [_handle_shape(op)],
            kernel=_read_kernel, stateful=True)


def _is_initialized_kernel(resource, *, ctx):
    return np.array(slot_of(resource).value is not None)


register_op("VarIsInitializedOp", inputs=["resource: resource"],
            outputs=["is_initialized: bool"], shape_fn=_scalar,
            kernel=_is_initialized_kernel, stateful=True)
NotDifferentiable("VarIsInitializedOp")


def _variable_shape_kernel(input, *, out_type, ctx):  # noqa: A002 - TF's input name
    return np.array(buffer_of(input, ctx).shape, dtype=out_type.as_numpy_dtype)


def _variable_shape_shape(op):
    dims = _handle_shape(op)._dims
    return [TensorShape([None if dims is None else len(dims)])]


register_op("VariableShape", inputs=["input: resource"], outputs=["output: out_type"],
            attrs=["out_type: {int32, int64} = DT_INT32"], shape_fn=_variable_shape_shape,
            kernel=_variable_shape_kernel, stateful=True)
NotDifferentiable("VariableShape")


def _disable_copy_on_read_kernel(resource, *, ctx):
    """TF's copy-on-read mode switch (what TF2 SavedModels' save functions run): reads here
    never copy behind a writer's back, so there is nothing to switch."""
    slot_of(resource)


register_op("DisableCopyOnRead", inputs=["resource: resource"], shape_fn=lambda op: [],
            kernel=_disable_copy_on_read_kernel, stateful=True)


# -- assignments ---------------------------------------------------------------------------
def _assign_kernel(resource, value, *, validate_shape, ctx):
    slot = slot_of(resource)
    _check_dtype(ctx, slot, value)
    declared = ctx.op._inputs[0].op._attrs.get("shape") \
        if ctx.op._inputs[0].op.type == "VarHandleOp" else None
    value = np.asarray(value)
    if validate_shape and declared is not None and declared._dims is not None and (
            len(declared._dims) != value.ndim or any(
                d is not None and d != s for d, s in zip(declared._dims, value.shape))):
        raise invalid_argument(f"Trying to assign to variable with tensor with wrong shape. "
                               f"Expected {fmt_dims(declared._dims)} got "
                               f"{fmt_dims(value.shape)}")
    with slot.lock:
        # A new shape installs a new buffer: resource variables may change shape.
        assign_into(slot, value, validate_shape=False)


register_op("AssignVariableOp", inputs=["resource: resource", "value: dtype"],
            attrs=["dtype: type", "validate_shape: bool = false"], shape_fn=lambda op: [],
            kernel=_assign_kernel, stateful=True)


def _update_kernel(ufunc):
    def kernel(resource, value, *, ctx):
        slot = slot_of(resource)
        _check_dtype(ctx, slot, value)
        with slot.lock:
            buf = buffer_of(resource, ctx)
            if buf.shape != np.shape(value):
                raise invalid_argument("Cannot update variable with shape "
                                       f"{fmt_dims(buf.shape)} using a Tensor with shape "
                                       f"{fmt_dims(np.shape(value))}, shapes must be equal.")
            ufunc(buf, value, out=buf, casting="unsafe")
    return kernel


for _op_type, _ufunc in (("AssignAddVariableOp", np.add), ("AssignSubVariableOp", np.subtract)):
    register_op(_op_type, inputs=["resource: resource", "value: dtype"], attrs=["dtype: type"],
                shape_fn=lambda op: [], kernel=_update_kernel(_ufunc), stateful=True)


# -- gather and scatter --------------------------------------------------------------------
def _rows(buf, indices):
    flat = np.asarray(indices).reshape(-1)
    bad = (flat < 0) | (flat >= buf.shape[0])
    if bad.any():
        i = int(np.argmax(bad))
        raise invalid_argument(f"indices[{i}] = {int(flat[i])} is not in [0, {buf.shape[0]})")
    return flat


def _gather_kernel(resource, indices, *, batch_dims, ctx, **_):
    if batch_dims != 0:
        raise invalid_argument(f"ResourceGather: batch_dims={batch_dims} is not supported; "
                               "use tf.gather on the variable's value")
    buf = buffer_of(resource, ctx)
    if buf.ndim < 1:
        raise invalid_argument("params must be at least 1 dimensional")
    flat = _rows(buf, indices)
    return buf[flat].reshape(np.shape(indices) + buf.shape[1:]).copy()


def _gather_shape(op):
    params = _handle_shape(op)._dims
    idx = op._inputs[1]._shape._dims
    if params is None or idx is None:
        return [TensorShape(None)]
    return [TensorShape(list(idx) + list(params[1:]))]


register_op("ResourceGather", inputs=["resource: resource", "indices: Tindices"],
            outputs=["output: dtype"],
            attrs=["batch_dims: int = 0", "validate_indices: bool = true", "dtype: type",
                   "Tindices: {int32, int64}"],
            shape_fn=_gather_shape, kernel=_gather_kernel, stateful=True)


def _scatter_kernel(combine):
    def kernel(resource, indices, updates, *, ctx):
        slot = slot_of(resource)
        with slot.lock:
            buf = buffer_of(resource, ctx)
            flat = _rows(buf, indices)
            updates = np.asarray(updates)
            if updates.ndim != 0:
                updates = updates.reshape((flat.size,) + buf.shape[1:])
            combine(buf, flat, updates)
    return kernel


def _scatter_update(buf, flat, updates):
    buf[flat] = updates


_SCATTERS = (("ResourceScatterAdd", np.add.at, _NUMBER),
             ("ResourceScatterSub", np.subtract.at, _NUMBER),
             ("ResourceScatterMul", np.multiply.at, _NUMBER),
             ("ResourceScatterDiv", scatter_div_into, _NUMBER),
             ("ResourceScatterMin", np.minimum.at, _NUMBER),
             ("ResourceScatterMax", np.maximum.at, _NUMBER),
             ("ResourceScatterUpdate", _scatter_update, "type"))
for _op_type, _combine, _types in _SCATTERS:
    register_op(_op_type, inputs=["resource: resource", "indices: Tindices",
                                  "updates: dtype"],
                attrs=[f"dtype: {_types}", "Tindices: {int32, int64}"],
                shape_fn=lambda op: [], kernel=_scatter_kernel(_combine), stateful=True)
del _op_type, _ufunc, _combine, _types

def _count_up_to_kernel(resource, *, limit, ctx):
    slot = slot_of(resource)
    with slot.lock:
        buf = buffer_of(resource, ctx)
        before = buf.copy()
        if before >= limit:
            raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
        buf += 1
    return before


def _count_up_to_shape(op):
    dims = _handle_shape(op)._dims
    if dims is not None and len(dims) != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {len(dims)}")
    return [TensorShape([])]


register_op("ResourceCountUpTo", inputs=["resource: resource"], outputs=["output: T"],
            attrs=["limit: int", "T: {int32, int64}"], shape_fn=_count_up_to_shape,
            kernel=_count_up_to_kernel, stateful=True)

# TF registers no gradient for the assignments and scatters (they have no outputs), nor
# for VarHandleOp (gradients stop at the handle) or ResourceCountUpTo; none here either.


# -- gradients -----------------------------------------------------------------------------
@RegisterGradient("ReadVariableOp")
def _read_grad(op, grad):
    """The gradient of a read flows unchanged to the handle."""
    return grad


@RegisterGradient("ResourceGather")
def _resource_gather_grad(op, grad):
    """IndexedSlices of the gathered rows, dense shape the variable's (TF's form)."""
    if op._attrs["batch_dims"] != 0:
        raise ValueError(f"The gradient of {op.name} (ResourceGather) is defined for "
                         "batch_dims=0 only")
    handle, indices = op.inputs
    params_shape = variable_shape(handle)
    n = expand_dims(size(indices), 0)
    values = reshape(grad, concat([n, params_shape[1:]], 0))
    return IndexedSlices(values, reshape(indices, n), params_shape), None


# -- graph functions -----------------------------------------------------------------------
def var_handle_op(dtype, shape, container="", shared_name="", name=None, **kwargs):
    """A `VarHandleOp`: the resource handle of the variable `shared_name`."""
    return apply_op("VarHandleOp", dtype=dtypes.as_dtype(dtype), shape=TensorShape(shape),
                    container=container, shared_name=shared_name, name=name,
                    **kwargs).outputs[0]


def read_variable_op(resource, dtype, name=None):
    """A `ReadVariableOp`: the variable's current value."""
    return apply_op("ReadVariableOp", resource=resource, dtype=dtypes.as_dtype(dtype),
                    name=name).outputs[0]


def assign_variable_op(resource, value, name=None):
    """An `AssignVariableOp` (returns the Operation)."""
    return apply_op("AssignVariableOp", resource=resource, value=value, name=name)


def assign_add_variable_op(resource, value, name=None):
    """An `AssignAddVariableOp` (returns the Operation)."""
    return apply_op("AssignAddVariableOp", resource=resource, value=value, name=name)


def assign_sub_variable_op(resource, value, name=None):
    """An `AssignSubVariableOp` (returns the Operation)."""
    return apply_op("AssignSubVariableOp", resource=resource, value=value, name=name)


def var_is_initialized_op(resource, name=None):
    """A `VarIsInitializedOp`: whether the variable holds a value."""
    return apply_op("VarIsInitializedOp", resource=resource, name=name).outputs[0]


def variable_shape(input, out_type=dtypes.int32, name=None):  # noqa: A002 - TF's name
    """The shape of the variable behind `input`: a constant when its VarHandleOp's shape
    is fully defined (as TF does), else a `VariableShape` op."""
    src = input.op
    if src.type == "VarHandleOp" and src._attrs["shape"].is_fully_defined():
        return constant(src._attrs["shape"].as_list(), dtype=out_type, name=name or "Const")
    return apply_op("VariableShape", input=input, out_type=out_type, name=name).outputs[0]


def resource_gather(resource, indices, dtype, batch_dims=0, validate_indices=True, name=None):
    """A `ResourceGather`: rows `indices` of the variable."""
    return apply_op("ResourceGather", resource=resource, indices=indices,
                    dtype=dtypes.as_dtype(dtype), batch_dims=batch_dims,
                    validate_indices=validate_indices, name=name).outputs[0]


def resource_scatter_add(resource, indices, updates, name=None):
    """A `ResourceScatterAdd` (returns the Operation)."""
    return apply_op("ResourceScatterAdd", resource=resource, indices=indices, updates=updates,
                    name=name)


def resource_scatter_sub(resource, indices, updates, name=None):
    """A `ResourceScatterSub` (returns the Operation)."""
    return apply_op("ResourceScatterSub", resource=resource, indices=indices, updates=updates,
                    name=name)


def _scatter_function(py_name, op_type, what):
    def fn(resource, indices, updates, name=None):
        return apply_op(op_type, resource=resource, indices=indices, updates=updates,
                        name=name)
    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = f"A `{op_type}`: {what} (returns the Operation)."
    return fn


resource_scatter_update = _scatter_function("resource_scatter_update", "ResourceScatterUpdate",
                                            "rows `indices` of the variable set to `updates`")
resource_scatter_mul = _scatter_function("resource_scatter_mul", "ResourceScatterMul",
                                         "rows `indices` of the variable *= `updates`")
resource_scatter_div = _scatter_function("resource_scatter_div", "ResourceScatterDiv",
                                         "rows `indices` of the variable /= `updates`")
resource_scatter_min = _scatter_function("resource_scatter_min", "ResourceScatterMin",
                                         "rows `indices` = min(rows, `updates`)")
resource_scatter_max = _scatter_function("resource_scatter_max", "ResourceScatterMax",
                                         "rows `indices` = max(rows, `updates`)")


def resource_count_up_to(resource, limit, T, name=None):  # noqa: N803 - TF's attr name
    """A `ResourceCountUpTo`: the value before incrementing the scalar int variable.

    Raises OutOfRangeError at run time once the value has reached `limit`."""
    return apply_op("ResourceCountUpTo", resource=resource, limit=limit,
                    T=dtypes.as_dtype(T), name=name).outputs[0]
