"""Optimizer apply ops (ApplyGradientDescent, ApplyAdam, ...): registrations and kernels.

Each kernel takes the variable and slots as refs, runs one rule from
ops/state/optimizer_rules.py on their buffers in place, and returns the variable ref.
"""
from trainflow.framework.op_builder import apply_op
from trainflow.framework.registry import register_op
from trainflow.ops.state import optimizer_rules as rules

_FLOAT_NUMBER = "{half, bfloat16, float, double, complex64, complex128, int32, int64, " \
                "uint8, int16, int8, uint16, uint32, uint64}"


def _var_shape(op):
    return [op.inputs[0].shape]


def register_apply(op_type, ref_inputs, value_inputs, rule, extra_attrs=(), locked=True):
    """Registers an Apply* op whose kernel runs `rule(*buffers, *values, **attrs)`.

    Args:
      op_type: TF's op type name.
      ref_inputs: names of the Ref(T) inputs (variable first, then slots).
      value_inputs: names of the T inputs (hyperparameters, then grad), in TF's order.
      rule: the update function from optimizer_rules.
      extra_attrs: attr specs beyond T and use_locking, whose values the rule takes.
    """
    attr_names = [a.split(":")[0].strip() for a in extra_attrs]
    n_refs = len(ref_inputs)

    def kernel(*args, ctx):
        refs = args[:n_refs]
        buffers = [r.get() for r in refs]
        kwargs = {a: ctx.op._attrs[a] for a in attr_names}
        if locked and ctx.op._attrs.get("use_locking"):
            with refs[0].lock:
                rule(*buffers, *args[n_refs:], **kwargs)
        else:
            rule(*buffers, *args[n_refs:], **kwargs)
        return refs[0]

    register_op(op_type,
                inputs=[f"{n}: Ref(T)" for n in ref_inputs] + [f"{n}: T" for n in value_inputs],
                outputs=["out: Ref(T)"],
                attrs=[f"T: {_FLOAT_NUMBER}", "use_locking: bool = false", *extra_attrs],
                shape_fn=_var_shape, kernel=kernel, stateful=True)


register_apply("ApplyGradientDescent", ["var"], ["alpha", "delta"], rules.gradient_descent)
register_apply("ApplyAdam", ["var", "m", "v"],
               ["beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"],
               rules.adam, extra_attrs=["use_nesterov: bool = false"])


def apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    """var -= alpha * delta; returns the var ref."""
    return apply_op("ApplyGradientDescent", var=var, alpha=alpha, delta=delta,
                    use_locking=use_locking, name=name).outputs[0]


def apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
               use_locking=False, use_nesterov=False, name=None):
    """One Adam step on var with slots m, v; returns the var ref."""
    return apply_op("ApplyAdam", var=var, m=m, v=v, beta1_power=beta1_power,
                    beta2_power=beta2_power, lr=lr, beta1=beta1, beta2=beta2, epsilon=epsilon,
                    grad=grad, use_locking=use_locking, use_nesterov=use_nesterov,
                    name=name).outputs[0]
