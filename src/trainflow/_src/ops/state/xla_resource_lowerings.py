"""XLA lowerings of the resource-variable ops (ReadVariableOp, AssignVariableOp,
AssignAdd/SubVariableOp, ResourceGather, ResourceScatter*, VarIsInitializedOp,
VariableShape), registered with the registry's "xla" backend.

Inside a segment a resource handle input arrives as the same `Ref` a ref variable does
(runtime/backends/xla_resources.py): a read is the Ref's current value (a jax array,
so a later update in the step never changes what was read: TF's copy-on-read), an
update sets it, and the segment writes the new value into the variable's slot after the
call. Each lowering carries ``takes_resources = True``, which lets its op take resource
inputs inside a segment; the optimizers' ResourceApply*/ResourceSparseApply* twins are
registered with the ref forms' lowerings in ops/state/xla_lowerings.py, which imports
this module.

What the NumPy kernel rejects on shapes, dtypes or an uninitialized variable (all known
while tracing) raises `NotLowerable`: the segment runs on NumPy for that signature,
whose kernel raises TensorFlow's error. Out-of-range indices are run-time checks.
"""
import jax
import jax.numpy as jnp
import numpy as np

from trainflow._src.framework.registry import register_kernel
from trainflow._src.ops.state.xla_lowering_util import (
    XLA, NotLowerable, occurrences, resource_lowering)


def _value(ref, op):
    """The variable's current value; NotLowerable when it has none (uninitialized) or
    is read with another dtype than its own."""
    if ref.value is None:
        raise NotLowerable(f"{op.name}: variable {op._inputs[0].name} is uninitialized")
    want = op._attrs.get("dtype")
    if want is not None and ref.dtype is not None and \
            np.dtype(ref.dtype) != want.base_dtype.as_numpy_dtype:
        raise NotLowerable(f"{op.name}: read as {want.name}, the variable is {ref.dtype}")
    return ref.value


@resource_lowering
def _read(ref, *, op):
    return _value(ref, op)


@resource_lowering
def _is_initialized(ref):
    return np.asarray(ref.value is not None)


@resource_lowering
def _variable_shape(ref, *, out_type, op):
    if ref.value is None:
        raise NotLowerable(f"{op.name}: variable {op._inputs[0].name} is uninitialized")
    return np.asarray(jnp.shape(ref.value), out_type.as_numpy_dtype)


def _declared_shape(op):
    src = op._inputs[0].op
    return src._attrs.get("shape") if src.type == "VarHandleOp" else None


@resource_lowering
def _assign(ref, value, *, validate_shape, op):
    want = op._attrs["dtype"].base_dtype.as_numpy_dtype
    if ref.dtype is not None and np.dtype(ref.dtype) != want:
        raise NotLowerable(f"{op.name}: assigns {want} to a {ref.dtype} variable")
    declared = _declared_shape(op)
    shape = jnp.shape(value)
    if validate_shape and declared is not None and declared._dims is not None and (
            len(declared._dims) != len(shape) or any(
                d is not None and d != s for d, s in zip(declared._dims, shape))):
        raise NotLowerable(f"{op.name}: value shape {shape} is not the variable's")
    ref.set(value)


def _update(fn):
    @resource_lowering
    def lower(ref, value, *, op):
        old = _value(ref, op)
        if jnp.shape(old) != jnp.shape(value):
            raise NotLowerable(f"{op.name}: update shape {jnp.shape(value)} is not "
                               f"{jnp.shape(old)}")
        ref.set(fn(old, value))
    return lower


def _rows_checked(op, old, indices, check):
    if jnp.ndim(old) < 1:
        raise NotLowerable(f"{op.name}: the variable is a scalar")
    flat = jnp.reshape(jnp.asarray(indices), (-1,))
    n = jnp.shape(old)[0]
    check(jnp.any((flat < 0) | (flat >= n)), "indices out of range")
    return flat


@resource_lowering
def _gather(ref, indices, *, batch_dims, op, check):
    old = _value(ref, op)
    if batch_dims != 0:
        raise NotLowerable(f"{op.name}: batch_dims={batch_dims}")
    flat = _rows_checked(op, old, indices, check)
    rows = jnp.take(old, flat, axis=0, mode="clip")
    return jnp.reshape(rows, jnp.shape(indices) + jnp.shape(old)[1:])


def _in_turn(combine):
    """A scatter that applies repeated indices one occurrence at a time, in order (as
    NumPy's kernel does): round k combines the k-th occurrences."""
    def scatter(old, flat, updates):
        rows = old.shape[0]
        occurrence = occurrences(flat)
        safe = jnp.clip(flat, 0, rows - 1)

        def one_round(k, buf):
            target = jnp.where(occurrence == k, flat, rows)  # others dropped
            return buf.at[target].set(combine(buf[safe], updates).astype(buf.dtype),
                                      mode="drop")
        return jax.lax.fori_loop(0, jnp.max(occurrence, initial=-1) + 1, one_round, old)
    return scatter


def _truncating_divide(a, b):
    """C++'s integer `/` (toward zero), as TF's integer kernels divide."""
    q = jnp.abs(a) // jnp.abs(b)
    return jnp.where((a < 0) != (b < 0), -q, q)


def _scatter_div(old, flat, updates, check):
    if jnp.issubdtype(old.dtype, jnp.integer):
        # x / a / b == x / (a * b) when truncating: combine the divisors first.
        check(jnp.any(updates == 0), "Integer division by zero in ScatterDiv")
        divisor = jnp.ones_like(old).at[flat].multiply(updates, mode="drop")
        touched = jnp.zeros(old.shape[0], bool).at[flat].set(True, mode="drop")
        touched = jnp.reshape(touched, (-1,) + (1,) * (old.ndim - 1))
        safe = jnp.where(divisor == 0, 1, divisor)
        return jnp.where(touched, _truncating_divide(old, safe), old).astype(old.dtype)
    return _in_turn(lambda rows, u: rows / u)(old, flat, updates)


_SCATTERS = {
    "ResourceScatterAdd": lambda old, flat, u, check: old.at[flat].add(u, mode="drop"),
    "ResourceScatterSub": lambda old, flat, u, check: old.at[flat].add(-u, mode="drop"),
    "ResourceScatterMul": lambda old, flat, u, check: old.at[flat].multiply(u, mode="drop"),
    "ResourceScatterMin": lambda old, flat, u, check: old.at[flat].min(u, mode="drop"),
    "ResourceScatterMax": lambda old, flat, u, check: old.at[flat].max(u, mode="drop"),
    "ResourceScatterDiv": _scatter_div,
    # With repeated indices the last update wins, as in the NumPy kernel.
    "ResourceScatterUpdate": lambda old, flat, u, check: _in_turn(lambda rows, v: v)(
        old, flat, u),
}


def _scatter(apply):
    @resource_lowering
    def lower(ref, indices, updates, *, op, check):
        old = _value(ref, op)
        flat = _rows_checked(op, old, indices, check)
        updates = jnp.asarray(updates, old.dtype)
        if jnp.ndim(updates) != 0:
            if jnp.size(updates) != flat.shape[0] * int(np.prod(jnp.shape(old)[1:])):
                raise NotLowerable(f"{op.name}: updates shape {jnp.shape(updates)}")
            updates = jnp.reshape(updates, (flat.shape[0],) + jnp.shape(old)[1:])
        else:
            updates = jnp.broadcast_to(updates, (flat.shape[0],) + jnp.shape(old)[1:])
        ref.set(apply(old, flat, updates, check))
    return lower


def register_all():
    """Registers the lowerings of this module (idempotent)."""
    register_kernel("ReadVariableOp", _read, backend=XLA)
    register_kernel("VarIsInitializedOp", _is_initialized, backend=XLA)
    register_kernel("VariableShape", _variable_shape, backend=XLA)
    register_kernel("AssignVariableOp", _assign, backend=XLA)
    register_kernel("AssignAddVariableOp", _update(lambda a, b: a + b), backend=XLA)
    register_kernel("AssignSubVariableOp", _update(lambda a, b: a - b), backend=XLA)
    register_kernel("ResourceGather", _gather, backend=XLA)
    for op_type, apply in _SCATTERS.items():
        register_kernel(op_type, _scatter(apply), backend=XLA)


register_all()
