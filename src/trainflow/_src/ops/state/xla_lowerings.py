"""XLA lowerings of the variable updates: Assign, AssignAdd/AssignSub and the optimizers'
Apply ops, registered with the registry's "xla" backend; imported only when XLA is on.

Inside a traced segment a ref input is a `Ref` (runtime/backends/xla_donation.py): the
lowering reads ``ref.value`` and stores the new value with ``ref.set``; the segment
writes it back into the variable's buffer after the call.

Every Apply*/SparseApply* op of ops/state/training_ops.py is lowered from its pure rule
in ops/state/optimizer_rules.py, the very function the NumPy kernel runs, rebound so
that its `np` calls are jax.numpy's. A SparseApply op gathers the rows, runs the rule
and scatters the results back, in rounds so that a repeated index is updated once per
occurrence, as TF's kernel does. A rule that branches in Python on a hyperparameter
(`l1 > 0`, `lr_power == -0.5`) needs that hyperparameter to be known while tracing (a
constant, as the tf.train optimizers make it); fed or computed, the segment runs on NumPy.
The ResourceApply*/ResourceSparseApply* twins are registered with the very same
lowerings: their resource inputs arrive as the same Refs (resource-variable ops:
ops/state/xla_resource_lowerings.py).
"""
import types

import jax
import jax.numpy as jnp
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.registry import register_kernel
# xla_resource_lowerings: the resource-variable ops (reads, assignments, gather, scatters).
from trainflow._src.ops.state import (  # noqa: F401
    optimizer_rules, training_ops, xla_resource_lowerings)
from trainflow._src.ops.state.apply_kernels import GRAD_NAMES
from trainflow._src.ops.state.xla_lowering_util import (
    XLA, NotLowerable, occurrences, resource_lowering)



def _assign(ref, value, *, validate_shape, use_locking, op):
    lhs = jnp.shape(ref.value) if ref.value is not None else None
    if lhs is None and op._inputs[0].shape.is_fully_defined():
        lhs = tuple(op._inputs[0].shape.as_list())  # an uninitialized variable's shape
    if validate_shape and lhs is not None and tuple(lhs) != jnp.shape(value):
        raise errors.InvalidArgumentError(
            None, op, "Assign requires shapes of both tensors to match. lhs shape= "
                      f"{list(lhs)} rhs shape= {list(jnp.shape(value))}")
    ref.set(value)
    return ref


def _update(fn):
    def lower(ref, value, *, use_locking, op):
        _initialized(op, [ref.value])
        ref.set(fn(ref.value, value))
        return ref
    return lower


def _scatter(kind):
    def lower(ref, indices, updates, *, use_locking, check, op):
        _initialized(op, [ref.value])
        n = jnp.shape(ref.value)[0]
        check(jnp.any((indices < 0) | (indices >= n)), "indices out of range")
        at = ref.value.at[indices]
        ref.set(getattr(at, kind)(updates, mode="drop"))
        return ref
    return lower


class _NumpyAsJnp:
    """`np` for the optimizer rules when they are traced: jax.numpy's function where it
    has one, NumPy's otherwise (dtypes, constants)."""

    def __getattr__(self, name):
        return getattr(jnp, name) if hasattr(jnp, name) else getattr(np, name)


def _traced_rules():
    """The functions of ops/state/optimizer_rules.py rebound to `_NumpyAsJnp`: the same
    rules, term by term, evaluated with jax.numpy (one source for both backends)."""
    namespace = dict(vars(optimizer_rules))
    namespace["np"] = _NumpyAsJnp()
    for name, value in list(namespace.items()):
        if isinstance(value, types.FunctionType) and \
                value.__module__ == optimizer_rules.__name__:
            fn = types.FunctionType(value.__code__, namespace, value.__name__,
                                    value.__defaults__, value.__closure__)
            fn.__kwdefaults__ = value.__kwdefaults__
            namespace[name] = fn
    return namespace


def _initialized(op, values):
    if any(v is None for v in values):
        raise NotLowerable(f"{op.name}: a variable is uninitialized")


def _check_dense(op, refs, values, value_names):
    shape = jnp.shape(refs[0])
    for ref in refs[1:]:
        if jnp.shape(ref) != shape:
            raise NotLowerable(f"{op.name}: slot shape {jnp.shape(ref)} is not {shape}")
    for name, value in zip(value_names, values):
        want = shape if name in GRAD_NAMES else ()
        if jnp.shape(value) != want:
            raise NotLowerable(f"{op.name}: {name} has shape {jnp.shape(value)}")


def register_apply_lowering(op_type, ref_names, value_names, rule, attr_names=()):
    """Registers the lowering of a dense Apply op and of its ResourceApply twin from
    their pure update rule.

    Args:
      op_type: TF's op type, e.g. "ApplyAdam" (its twin: "ResourceApplyAdam").
      ref_names: the Ref (or resource) inputs: the variable, then its slots.
      value_names: the other inputs in TF's order.
      rule: ``rule(*ref values, *other inputs, **attrs) -> tuple of new ref values``,
        written with array operators and `np` (see `_traced_rules`).
      attr_names: the op attrs (besides T and use_locking) the rule takes.
    """
    n_refs = len(ref_names)

    def lower(*args, op):
        refs = args[:n_refs]
        old = [r.value for r in refs]
        _initialized(op, old)
        values = [jnp.asarray(v) if isinstance(v, (int, float)) else v
                  for v in args[n_refs:]]
        _check_dense(op, old, values, value_names)
        kwargs = {a: op._attrs[a] for a in attr_names}
        for r, v in zip(refs, rule(*old, *values, **kwargs)):
            r.set(v)
        return refs[0]
    for name in (op_type, "Resource" + op_type):
        register_kernel(name, resource_lowering(lower), backend=XLA)


def register_sparse_apply_lowering(op_type, ref_names, value_names, rule, attr_names=()):
    """Registers the lowering of a SparseApply op (and its ResourceSparseApply twin): the
    rule runs on the gathered rows and the results are scattered back. As in TF's kernel
    (and the NumPy one), a repeated index is updated once per occurrence: round k
    updates the k-th occurrences."""
    n_refs = len(ref_names)
    idx_pos = value_names.index("indices")
    grad_pos = value_names.index("grad")

    def lower(*args, op, check):
        refs = args[:n_refs]
        old = [r.value for r in refs]
        _initialized(op, old)
        values = list(args[n_refs:])
        indices, grad = jnp.asarray(values[idx_pos]), jnp.asarray(values[grad_pos])
        rows = jnp.shape(old[0])[0] if jnp.ndim(old[0]) else 0
        if (jnp.ndim(indices) != 1 or jnp.ndim(grad) < 1 or
                jnp.shape(grad)[0] != jnp.shape(indices)[0] or
                jnp.shape(grad)[1:] != jnp.shape(old[0])[1:] or
                any(jnp.shape(r) != jnp.shape(old[0]) for r in old[1:])):
            raise NotLowerable(f"{op.name}: shapes do not suit a sparse update")
        hyper = [v for i, v in enumerate(values) if i not in (idx_pos, grad_pos)]
        if any(jnp.ndim(v) != 0 for v in hyper):
            raise NotLowerable(f"{op.name}: a hyperparameter is not a scalar")
        check(jnp.any((indices < 0) | (indices >= rows)), "indices out of range")
        kwargs = {a: op._attrs[a] for a in attr_names}
        at_grad = grad_pos - (1 if idx_pos < grad_pos else 0)
        occurrence = occurrences(indices)
        rounds = jnp.max(occurrence, initial=-1) + 1

        def one_round(k, buffers):
            # Rows outside round k point past the end: their results are dropped.
            target = jnp.where(occurrence == k, indices, rows)
            safe = jnp.clip(indices, 0, max(rows - 1, 0))
            rule_args = hyper[:at_grad] + [grad] + hyper[at_grad:]
            new = rule(*(b[safe] for b in buffers), *rule_args, **kwargs)
            return [b.at[target].set(v.astype(b.dtype), mode="drop")
                    for b, v in zip(buffers, new)]
        for r, v in zip(refs, jax.lax.fori_loop(0, rounds, one_round, old)):
            r.set(v)
        return refs[0]
    for name in (op_type, "Resource" + op_type):
        register_kernel(name, resource_lowering(lower), backend=XLA)


def register_all():
    """Registers the lowerings of this module (idempotent)."""
    register_kernel("Assign", _assign, backend=XLA)
    register_kernel("AssignAdd", _update(lambda a, b: a + b), backend=XLA)
    register_kernel("AssignSub", _update(lambda a, b: a - b), backend=XLA)
    for op_type, kind in (("ScatterAdd", "add"), ("ScatterSub", "subtract"),
                          ("ScatterUpdate", "set"), ("ScatterMul", "multiply"),
                          ("ScatterMax", "max"), ("ScatterMin", "min")):
        register_kernel(op_type, _scatter(kind), backend=XLA)
    rules = _traced_rules()
    for _, op_type, refs, values, rule, attrs in training_ops._OPS:
        rule = rules[rule.__name__]
        names = [a.split(":")[0].strip() for a in attrs]
        register_apply_lowering("Apply" + op_type, refs, values, rule, names)
        if op_type not in training_ops._DENSE_ONLY:
            register_sparse_apply_lowering("SparseApply" + op_type, refs,
                                           training_ops._sparse_inputs(values), rule, names)


register_all()
