"""Ref-variable ops: VariableV2, Assign, IsVariableInitialized (TF1 semantics).

A variable's value is a buffer in the session's resource manager. `VariableV2`
outputs the variable itself (a ref); consumers that take a plain value read the
buffer, and the assign kernels write into that buffer in place.
"""
__all__ = ["assign", "is_variable_initialized"]

import numpy as np

from trainflow.framework import errors
from trainflow.framework.op_builder import apply_op
from trainflow.framework.registry import register_op



def _variable_kernel(*, ctx):
    slot = ctx.state.get("slot")
    if slot is None:
        op = ctx.op
        slot = ctx.resources.variable(ctx.resource_name, op._attrs["dtype"], op._attrs["shape"])
        ctx.state["slot"] = slot
    return slot


register_op("VariableV2", outputs=["ref: Ref(dtype)"],
            attrs=["shape: shape", "dtype: type", "container: string = ''",
                   "shared_name: string = ''"],
            shape_fn=lambda op: [op._attrs["shape"]], kernel=_variable_kernel, stateful=True)


def _shapes_match(a, b):
    return a.shape == b.shape


def assign_into(slot, value, validate_shape=True, static_shape=None):
    """Writes `value` into the variable `slot` in place when shapes agree.

    Raises:
      InvalidArgumentError: if validate_shape and the shapes differ.
    """
    cur = slot.value
    value = np.asarray(value)
    if cur is not None and cur.shape == value.shape:
        np.copyto(cur, value, casting="unsafe")
        return slot
    if validate_shape:
        if cur is not None:
            raise errors.InvalidArgumentError(
                None, None, f"Assign requires shapes of both tensors to match. lhs shape= "
                            f"{list(cur.shape)} rhs shape= {list(value.shape)}")
        if static_shape is not None and static_shape._dims is not None and \
                not _dims_match(static_shape._dims, value.shape):
            raise errors.InvalidArgumentError(
                None, None, f"Assign requires shapes of both tensors to match. lhs shape= "
                            f"{static_shape.as_list()} rhs shape= {list(value.shape)}")
    dtype = slot.dtype.base_dtype.as_numpy_dtype if slot.dtype is not None else value.dtype
    slot.value = np.array(value, dtype=dtype, copy=True)
    return slot


def _dims_match(dims, shape):
    return len(dims) == len(shape) and all(d is None or d == s for d, s in zip(dims, shape))


def _assign_kernel(ref, value, *, validate_shape, ctx):
    return assign_into(ref, value, validate_shape, ctx.op._inputs[0]._shape)


def _assign_shape(op):
    if op._attrs.get("validate_shape", True):
        return [op._inputs[0]._shape.merge_with(op._inputs[1]._shape)]
    return [op._inputs[1]._shape]


register_op("Assign", inputs=["ref: Ref(T)", "value: T"], outputs=["output_ref: Ref(T)"],
            attrs=["T: type", "validate_shape: bool = true", "use_locking: bool = true"],
            shape_fn=_assign_shape, kernel=_assign_kernel, stateful=True)


def _is_initialized_kernel(ref):
    return np.bool_(ref.value is not None)


register_op("IsVariableInitialized", inputs=["ref: Ref(dtype)"], outputs=["is_initialized: bool"],
            attrs=["dtype: type"], shape_fn=lambda op: [()], kernel=_is_initialized_kernel)


def variable_op_v2(shape, dtype, name="Variable", container="", shared_name=""):
    """Creates a VariableV2 op; returns its ref tensor."""
    return apply_op("VariableV2", shape=shape, dtype=dtype, name=name, container=container,
                    shared_name=shared_name).outputs[0]


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """Assigns `value` to the variable `ref`; returns the ref after the assignment."""
    if getattr(ref, "_assign_via_variable", False):
        return ref.assign(value, use_locking=use_locking, name=name)
    kwargs = {}
    if validate_shape is not None:
        kwargs["validate_shape"] = validate_shape
    if use_locking is not None:
        kwargs["use_locking"] = use_locking
    return apply_op("Assign", ref=ref, value=value, name=name or "Assign", **kwargs).outputs[0]


def is_variable_initialized(ref, name=None):
    """A bool tensor: has the variable been initialized in the running session?"""
    if hasattr(ref, "is_initialized") and not hasattr(ref, "_op"):
        return ref.is_initialized(name=name)
    return apply_op("IsVariableInitialized", ref=ref, dtype=ref.dtype.base_dtype,
                    name=name).outputs[0]

