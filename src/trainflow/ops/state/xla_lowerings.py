"""XLA lowerings of the variable updates: Assign, AssignAdd/AssignSub and the optimizers'
Apply ops, registered with the registry's "xla" backend; imported only when XLA is on.

Inside a traced segment a ref input is a `Ref` (runtime/backends/xla_backend.py): the
lowering reads ``ref.value`` and stores the new value with ``ref.set``; the segment
writes it back into the variable's buffer after the call. An Apply op's lowering is
built from a pure update rule ``rule(var, *slots, *hyperparameters, grad, **attrs) ->
(new var, *new slots)`` written with array operators and `jax.numpy`.
"""
import jax.numpy as jnp

from trainflow.framework import errors
from trainflow.framework.registry import register_kernel

XLA = "xla"


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
    def lower(ref, value, *, use_locking):
        ref.set(fn(ref.value, value))
        return ref
    return lower


def _scatter(kind):
    def lower(ref, indices, updates, *, use_locking, check):
        n = jnp.shape(ref.value)[0]
        check(jnp.any((indices < 0) | (indices >= n)), "indices out of range")
        at = ref.value.at[indices]
        ref.set(getattr(at, kind)(updates, mode="drop"))
        return ref
    return lower


def register_apply_lowering(op_type, n_refs, rule, attr_names=()):
    """Registers the lowering of an Apply op from a pure update rule.

    Args:
      op_type: TF's op type, e.g. "ApplyAdam".
      n_refs: how many leading inputs are refs (the variable, then its slots).
      rule: ``rule(*ref values, *other inputs, **attrs) -> new ref values`` (a tuple when
        n_refs > 1); arithmetic in the variable's dtype.
      attr_names: the op attrs (besides T and use_locking) the rule takes.
    """
    def lower(*args, op):
        refs = args[:n_refs]
        kwargs = {a: op._attrs[a] for a in attr_names}
        new = rule(*(r.value for r in refs), *args[n_refs:], **kwargs)
        for r, v in zip(refs, new if n_refs > 1 else (new,)):
            r.set(v)
        return refs[0]
    register_kernel(op_type, lower, backend=XLA)


def _cast_like(x, var):
    return jnp.asarray(x, jnp.result_type(var))


def gradient_descent(var, alpha, delta):
    """var - delta * alpha."""
    return var - delta * _cast_like(alpha, var)


def adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
         use_nesterov=False):
    """TF's ApplyAdam with the epsilon-hat formula (the order of TF's kernel)."""
    c = lambda x: _cast_like(x, var)  # noqa: E731
    one = c(1)
    beta1, beta2 = c(beta1), c(beta2)
    alpha = c(lr) * jnp.sqrt(one - c(beta2_power)) / (one - c(beta1_power))
    m = m + (grad - m) * (one - beta1)
    v = v + (jnp.square(grad) - v) * (one - beta2)
    if use_nesterov:
        var = var - ((grad * (one - beta1) + beta1 * m) * alpha) / (jnp.sqrt(v) + c(epsilon))
    else:
        var = var - (m * alpha) / (jnp.sqrt(v) + c(epsilon))
    return var, m, v


def register_all():
    """Registers the lowerings of this module (idempotent)."""
    register_kernel("Assign", _assign, backend=XLA)
    register_kernel("AssignAdd", _update(lambda a, b: a + b), backend=XLA)
    register_kernel("AssignSub", _update(lambda a, b: a - b), backend=XLA)
    for op_type, kind in (("ScatterAdd", "add"), ("ScatterSub", "subtract"),
                          ("ScatterUpdate", "set"), ("ScatterMul", "multiply"),
                          ("ScatterMax", "max"), ("ScatterMin", "min")):
        register_kernel(op_type, _scatter(kind), backend=XLA)
    register_apply_lowering("ApplyGradientDescent", 1, gradient_descent)
    register_apply_lowering("ApplyAdam", 3, adam, ["use_nesterov"])


register_all()
