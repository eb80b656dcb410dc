"""Ref-variable ops of TF1: VariableV2, Assign, AssignAdd/Sub, Scatter*, ScatterNd*,
CountUpTo and IsVariableInitialized, with their graph-building functions.

A variable's value is a buffer in the session's resource manager (a
`VariableSlot`). `VariableV2` outputs the slot itself (a ref); consumers that
take a plain value get the buffer, and the update kernels write into that buffer
in place (contract 5 of docs/architecture.md), so reads see updates made earlier in
the same step.
An update takes the slot's lock only when its `use_locking` attr is set, as in
TensorFlow: parallel steps then never interleave their updates of one variable.
"""
__all__ = ["assign", "assign_add", "assign_sub", "count_up_to", "is_variable_initialized",
           "scatter_add", "scatter_div", "scatter_max", "scatter_min", "scatter_mul",
           "scatter_nd_add", "scatter_nd_sub", "scatter_nd_update", "scatter_sub",
           "scatter_update"]

import contextlib

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.shape_util import fmt_dims, invalid_argument, merge_dims

_NO_LOCK = contextlib.nullcontext()
_NUMBER_TYPES = "{float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, " \
                "qint32, bfloat16, uint16, complex128, half, uint32, uint64}"
_MINMAX_TYPES = "{half, bfloat16, float, double, int32, int64}"


def _lock(slot, use_locking):
    return slot.lock if use_locking else _NO_LOCK


def merge_shapes(a, b):
    """Merges two TensorShapes, raising ValueError with TF's C++ shape-inference wording
    ("Dimension 0 in both shapes must be equal, but are 4 and 2. Shapes are [4] and [2].").
    """
    if a._dims is None:
        return b
    if b._dims is None:
        return a
    return TensorShape(merge_dims(a._dims, b._dims))


# -- VariableV2 --------------------------------------------------------------------------
def _variable_kernel(*, ctx):
    slot = ctx.state.get("slot")
    if slot is None or slot.dropped:  # dropped: its container was reset
        op = ctx.op
        slot = ctx.resources.variable(ctx.resource_name, op._attrs["dtype"], op._attrs["shape"])
        ctx.state["slot"] = slot
    return slot


register_op("VariableV2", outputs=["ref: Ref(dtype)"],
            attrs=["shape: shape", "dtype: type", "container: string = ''",
                   "shared_name: string = ''"],
            shape_fn=lambda op: [op._attrs["shape"]], kernel=_variable_kernel, stateful=True)


# -- Assign ----------------------------------------------------------------------------------
def _dims_match(dims, shape):
    return len(dims) == len(shape) and all(d is None or d == s for d, s in zip(dims, shape))


def assign_into(slot, value, validate_shape=True, static_shape=None):
    """Writes `value` into the variable `slot`: in place when the shapes agree, else
    (first assignment, or validate_shape=False) by installing a new buffer.

    Returns:
      the slot.

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
            raise invalid_argument(f"Assign requires shapes of both tensors to match. lhs shape= "
                                   f"{list(cur.shape)} rhs shape= {list(value.shape)}")
        if static_shape is not None and static_shape._dims is not None and \
                not _dims_match(static_shape._dims, value.shape):
            raise invalid_argument(f"Assign requires shapes of both tensors to match. lhs shape= "
                                   f"{static_shape.as_list()} rhs shape= {list(value.shape)}")
    dtype = slot.dtype.base_dtype.as_numpy_dtype if slot.dtype is not None else value.dtype
    slot.value = np.array(value, dtype=dtype, copy=True)
    return slot


def _assign_kernel(ref, value, *, validate_shape, use_locking, ctx):
    with _lock(ref, use_locking):
        return assign_into(ref, value, validate_shape, ctx.op._inputs[0]._shape)


def _assign_shape(op):
    if op._attrs.get("validate_shape", True):
        return [merge_shapes(op._inputs[0]._shape, op._inputs[1]._shape)]
    return [op._inputs[1]._shape]


register_op("Assign", inputs=["ref: Ref(T)", "value: T"], outputs=["output_ref: Ref(T)"],
            attrs=["T: type", "validate_shape: bool = true", "use_locking: bool = true"],
            shape_fn=_assign_shape, kernel=_assign_kernel, stateful=True)
# TF marks the updates below not differentiable (their inputs get None); VariableV2,
# ScatterUpdate, ScatterMin/Max, CountUpTo and IsVariableInitialized have no gradient at
# all there (a LookupError if a gradient path crosses them), and none here either.
NotDifferentiable("Assign")


# -- AssignAdd / AssignSub -----------------------------------------------------------------
def _dense_update_kernel(ufunc):
    def kernel(ref, value, *, use_locking):
        with _lock(ref, use_locking):
            buf = ref.get()
            if buf.shape != np.shape(value):
                raise invalid_argument("Parameters and update must be the same size: variable "
                                       f"shape {fmt_dims(buf.shape)}, update shape "
                                       f"{fmt_dims(np.shape(value))}")
            ufunc(buf, value, out=buf, casting="unsafe")
        return ref
    return kernel


def _dense_update_shape(op):
    return [merge_shapes(op._inputs[0]._shape, op._inputs[1]._shape)]


for _op_type, _ufunc in (("AssignAdd", np.add), ("AssignSub", np.subtract)):
    register_op(_op_type, inputs=["ref: Ref(T)", "value: T"], outputs=["output_ref: Ref(T)"],
                attrs=[f"T: {_NUMBER_TYPES}", "use_locking: bool = false"],
                shape_fn=_dense_update_shape, kernel=_dense_update_kernel(_ufunc),
                stateful=True)
    NotDifferentiable(_op_type)


# -- Scatter* and ScatterNd* ---------------------------------------------------------------
def _trunc_divide(a, b):
    """Integer division rounding toward zero (C++'s `/`), as TF's integer kernels do."""
    if np.any(b == 0):
        raise invalid_argument("Integer division by zero in ScatterDiv")
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q).astype(a.dtype, copy=False)


def scatter_div_into(params, idx, updates):
    """params[idx] /= updates in place, duplicates applied in turn (TF's ScatterDiv)."""
    if params.dtype.kind in "iu":
        # x / a / b == x / (a*b) for truncating integer division: combine duplicates first.
        divisor = np.ones((params.shape[0],) + params.shape[1:], dtype=params.dtype)
        np.multiply.at(divisor, idx, updates)
        rows = np.unique(idx)
        params[rows] = _trunc_divide(params[rows], divisor[rows])
    else:
        np.divide.at(params, idx, updates)


def _scatter_update(params, idx, updates):
    params[idx] = updates  # with repeated indices the last update wins


def _check_scatter(params, indices, updates):
    """Validates a Scatter* call; returns (flat indices, updates shaped to match)."""
    if params.ndim < 1:
        raise invalid_argument(f"params must be at least 1-D, got shape {fmt_dims(params.shape)}")
    expected = indices.shape + params.shape[1:]
    if updates.ndim != 0 and updates.shape != expected:
        raise invalid_argument("Must have updates.shape = indices.shape + params.shape[1:] or "
                               f"updates.shape = [], got updates.shape {fmt_dims(updates.shape)}, "
                               f"indices.shape {fmt_dims(indices.shape)}, params.shape "
                               f"{fmt_dims(params.shape)}")
    flat = indices.reshape(-1)
    limit = params.shape[0]
    bad = (flat < 0) | (flat >= limit)
    if bad.any():
        i = int(np.argmax(bad))
        raise invalid_argument(f"indices[{i}] = {int(flat[i])} is not in [0, {limit})")
    if updates.ndim == 0:
        updates = np.broadcast_to(updates, (flat.size,) + params.shape[1:])
    else:
        updates = updates.reshape((flat.size,) + params.shape[1:])
    return flat, updates


def _check_scatter_nd(params, indices, updates):
    """Validates a ScatterNd* call; returns (index tuple, updates flattened to match)."""
    if indices.ndim < 1:
        raise invalid_argument(
            f"Indices must be at least 1-D, got shape {fmt_dims(indices.shape)}")
    k = indices.shape[-1]
    if k > params.ndim:
        raise invalid_argument(f"The last dimension of indices ({k}) must be at most the rank "
                               f"of the variable ({params.ndim})")
    expected = indices.shape[:-1] + params.shape[k:]
    if updates.shape != expected:
        raise invalid_argument("Must have updates.shape = indices.shape[:-1] + params.shape[K:] "
                               f"with K = {k}, got updates.shape {fmt_dims(updates.shape)}, "
                               f"indices.shape {fmt_dims(indices.shape)}, params.shape "
                               f"{fmt_dims(params.shape)}")
    flat = indices.reshape(-1, k)
    limits = np.asarray(params.shape[:k])
    bad = ((flat < 0) | (flat >= limits)).any(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        raise invalid_argument(f"indices[{i}] = [{', '.join(str(int(x)) for x in flat[i])}] "
                               f"does not index into shape {fmt_dims(params.shape)}")
    return tuple(flat.T), updates.reshape((flat.shape[0],) + params.shape[k:])


def _scatter_kernel(check, rule):
    """A Scatter*/ScatterNd* kernel: `check` validates and reshapes, `rule` applies the
    (non-empty) update to the variable's buffer in place."""
    def kernel(ref, indices, updates, *, use_locking):
        with _lock(ref, use_locking):
            params = ref.get()
            idx, upd = check(params, np.asarray(indices), np.asarray(updates))
            if upd.shape[0]:
                rule(params, idx, upd)
        return ref
    return kernel


def _scatter_shape(op):
    var, indices, updates = (t._shape for t in op._inputs)
    if var._dims is not None and len(var._dims) == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if updates._dims is None or len(updates._dims) != 0:
        sub = TensorShape(None) if var._dims is None else TensorShape(var._dims[1:])
        merge_shapes(updates, indices.concatenate(sub))
    return [var]


def _scatter_nd_shape(op):
    var, indices, updates = (t._shape for t in op._inputs)
    if indices._dims is not None and var._dims is not None and indices._dims and \
            indices._dims[-1] is not None:
        k = indices._dims[-1]
        if k > len(var._dims):
            raise ValueError(f"The last dimension of indices ({k}) must be at most the rank "
                             f"of the variable ({len(var._dims)})")
        merge_shapes(updates, TensorShape(indices._dims[:-1] + var._dims[k:]))
    return [var]


# (op type, update rule, T, use_locking default, marked NotDifferentiable).
_SCATTER_OPS = (
    ("ScatterUpdate", _scatter_update, "type", "true", False),
    ("ScatterAdd", np.add.at, _NUMBER_TYPES, "false", True),
    ("ScatterSub", np.subtract.at, _NUMBER_TYPES, "false", True),
    ("ScatterMul", np.multiply.at, _NUMBER_TYPES, "false", True),
    ("ScatterDiv", scatter_div_into, _NUMBER_TYPES, "false", True),
    ("ScatterMin", np.minimum.at, _MINMAX_TYPES, "false", False),
    ("ScatterMax", np.maximum.at, _MINMAX_TYPES, "false", False),
    ("ScatterNdUpdate", _scatter_update, "type", "true", True),
    ("ScatterNdAdd", np.add.at, _NUMBER_TYPES, "false", True),
    ("ScatterNdSub", np.subtract.at, _NUMBER_TYPES, "false", True),
)

for _op_type, _rule, _types, _locking, _not_differentiable in _SCATTER_OPS:
    _nd = _op_type.startswith("ScatterNd")
    register_op(_op_type, inputs=["ref: Ref(T)", "indices: Tindices", "updates: T"],
                outputs=["output_ref: Ref(T)"],
                attrs=[f"T: {_types}", "Tindices: {int32, int64}",
                       f"use_locking: bool = {_locking}"],
                shape_fn=_scatter_nd_shape if _nd else _scatter_shape,
                kernel=_scatter_kernel(_check_scatter_nd if _nd else _check_scatter, _rule),
                stateful=True)
    if _not_differentiable:
        NotDifferentiable(_op_type)


# -- CountUpTo / IsVariableInitialized -------------------------------------------------------
def _count_up_to_kernel(ref, *, limit):
    with ref.lock:
        buf = ref.get()
        before = buf.copy()
        if before >= limit:
            raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
        buf += 1
    return before


def _count_up_to_shape(op):
    shape = op._inputs[0]._shape
    if shape._dims is not None and len(shape._dims) != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {len(shape._dims)}")
    return [TensorShape([])]


register_op("CountUpTo", inputs=["ref: Ref(T)"], outputs=["output: T"],
            attrs=["limit: int", "T: {int32, int64}"], shape_fn=_count_up_to_shape,
            kernel=_count_up_to_kernel, stateful=True)


def _is_initialized_kernel(ref):
    return np.bool_(ref.value is not None)


register_op("IsVariableInitialized", inputs=["ref: Ref(dtype)"], outputs=["is_initialized: bool"],
            attrs=["dtype: type"], shape_fn=lambda op: [TensorShape([])],
            kernel=_is_initialized_kernel, stateful=True)


# -- graph-building functions ------------------------------------------------------------------
def variable_op_v2(shape, dtype, name="Variable", container="", shared_name=""):
    """Creates a VariableV2 op; returns its ref tensor."""
    return apply_op("VariableV2", shape=shape, dtype=dtype, name=name, container=container,
                    shared_name=shared_name).outputs[0]


def _is_ref(ref):
    return getattr(getattr(ref, "dtype", None), "_is_ref_dtype", False)


def _locking_kwargs(use_locking, validate_shape=None):
    kwargs = {}
    if use_locking is not None:
        kwargs["use_locking"] = use_locking
    if validate_shape is not None:
        kwargs["validate_shape"] = validate_shape
    return kwargs


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """Assigns `value` to the variable `ref` (`tf.assign`).

    Args:
      ref: a Variable or ref tensor.
      value: the new value, with the variable's dtype (and shape if validate_shape).
      validate_shape: require the shapes to match (default True).
      use_locking: lock the variable while writing (default True).
      name: the op name (default "Assign").

    Returns:
      the variable's ref, holding the new value once the op has run.
    """
    if not _is_ref(ref) and hasattr(ref, "assign"):
        return ref.assign(value, name=name)
    return apply_op("Assign", ref=ref, value=value, name=name or "Assign",
                    **_locking_kwargs(use_locking, validate_shape)).outputs[0]


def assign_add(ref, value, use_locking=None, name=None):
    """Adds `value` to the variable `ref` in place (`tf.assign_add`); returns the ref."""
    if not _is_ref(ref) and hasattr(ref, "assign_add"):
        return ref.assign_add(value)
    return apply_op("AssignAdd", ref=ref, value=value, name=name,
                    **_locking_kwargs(use_locking)).outputs[0]


def assign_sub(ref, value, use_locking=None, name=None):
    """Subtracts `value` from the variable `ref` in place (`tf.assign_sub`); returns the ref."""
    if not _is_ref(ref) and hasattr(ref, "assign_sub"):
        return ref.assign_sub(value)
    return apply_op("AssignSub", ref=ref, value=value, name=name,
                    **_locking_kwargs(use_locking)).outputs[0]


def _scatter_fn(fn_name, op_type, default_locking, doc):
    """The graph-building function of a Scatter*/ScatterNd* op; returns the ref."""
    def fn(ref, indices, updates, use_locking=default_locking, name=None):
        if getattr(ref, "_is_resource_variable", False):
            return ref._scatter_op(op_type, indices, updates, name=name)
        return apply_op(op_type, ref=ref, indices=indices, updates=updates, name=name,
                        **_locking_kwargs(use_locking)).outputs[0]
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = doc
    return fn


scatter_update = _scatter_fn("scatter_update", "ScatterUpdate", True, """\
ref[indices, ...] = updates, in place; with repeated indices the last update wins.

    Args:
      ref: a Variable or ref tensor of rank >= 1.
      indices: int32/int64 indices into the first dimension.
      updates: values of shape indices.shape + ref.shape[1:], or a scalar.

    Returns:
      the ref after the update.

    Raises:
      InvalidArgumentError (at run time): for an index outside [0, ref.shape[0]).
    """)
scatter_add = _scatter_fn("scatter_add", "ScatterAdd", False,
                          "ref[indices, ...] += updates in place; repeated indices accumulate.")
scatter_sub = _scatter_fn("scatter_sub", "ScatterSub", False,
                          "ref[indices, ...] -= updates in place; repeated indices accumulate.")
scatter_mul = _scatter_fn("scatter_mul", "ScatterMul", False, "ref[indices, ...] *= updates "
                          "in place; repeated indices multiply together.")
scatter_div = _scatter_fn("scatter_div", "ScatterDiv", False,
                          "ref[indices, ...] /= updates in place (integers round toward zero).")
scatter_min = _scatter_fn("scatter_min", "ScatterMin", False,
                          "ref[indices, ...] = min(ref[indices, ...], updates) in place.")
scatter_max = _scatter_fn("scatter_max", "ScatterMax", False,
                          "ref[indices, ...] = max(ref[indices, ...], updates) in place.")
scatter_nd_update = _scatter_fn("scatter_nd_update", "ScatterNdUpdate", True, "Writes "
                                "`updates` at the index tuples in `indices` (shape [..., K]) "
                                "of `ref`.")
scatter_nd_add = _scatter_fn("scatter_nd_add", "ScatterNdAdd", False, "Adds `updates` at the "
                             "index tuples in `indices` (shape [..., K]) of `ref`.")
scatter_nd_sub = _scatter_fn("scatter_nd_sub", "ScatterNdSub", False, "Subtracts `updates` at "
                             "the index tuples in `indices` (shape [..., K]) of `ref`.")


def count_up_to(ref, limit, name=None):
    """Increments the scalar int variable `ref` until it reaches `limit` (`tf.count_up_to`).

    Returns:
      a tensor with the value before the increment.

    Raises:
      OutOfRangeError (at run time): "Reached limit of N" once the value is `limit`.
    """
    if getattr(ref, "_is_resource_variable", False):
        # lazy: an upward call; resource_variable_ops builds on this module.
        from trainflow._src.ops.state import resource_variable_ops
        return resource_variable_ops.resource_count_up_to(ref.handle, limit, ref.dtype,
                                                          name=name)
    return apply_op("CountUpTo", ref=ref, limit=limit, name=name).outputs[0]


def is_variable_initialized(ref, name=None):
    """A bool tensor: has the variable been initialized in the running session?"""
    if not _is_ref(ref) and hasattr(ref, "is_initialized"):
        return ref.is_initialized(name=name)
    return apply_op("IsVariableInitialized", ref=ref, dtype=ref.dtype.base_dtype,
                    name=name).outputs[0]
