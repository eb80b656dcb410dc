"""The optimizer ops of TF1 (ApplyMomentum, SparseApplyMomentum, ApplyAdam, ...): their
registrations and graph functions (TF's `gen_training_ops` names and signatures).

Each op's math is one pure rule in ops/state/optimizer_rules.py; `register_apply` and
`register_sparse_apply` turn a rule into an op whose kernel writes the rule's results
into the variable and slot buffers in place (ops/state/apply_kernels.py).
"""
from trainflow.framework.op_builder import apply_op
from trainflow.framework.registry import NotDifferentiable, register_op
from trainflow.ops.state import apply_kernels
from trainflow.ops.state import optimizer_rules as rules

_FLOAT_NUMBER = "{half, bfloat16, float, double, complex64, complex128, int32, int64, " \
                "uint8, int16, int8, uint16, uint32, uint64}"


def _input_specs(value_inputs):
    specs = []
    for n in value_inputs:
        if n == "indices":
            specs.append("indices: Tindices")
        elif n == "global_step":
            specs.append("global_step: int64")
        else:
            specs.append(f"{n}: T")
    return specs


def _graph_function(op_type, ref_inputs, value_inputs, attr_defaults):
    inputs = list(ref_inputs) + list(value_inputs)

    def fn(*args, use_locking=False, name=None, **kwargs):
        if len(args) > len(inputs):
            raise TypeError(f"{fn.__name__}() takes {len(inputs)} inputs, got {len(args)}")
        feed = dict(zip(inputs, args))
        for key in list(kwargs):
            if key in inputs:
                feed[key] = kwargs.pop(key)
        missing = [n for n in inputs if n not in feed]
        if missing:
            raise TypeError(f"{fn.__name__}() missing required inputs: {missing}")
        unknown = set(kwargs) - set(attr_defaults)
        if unknown:
            raise TypeError(f"{fn.__name__}() got unexpected keyword arguments {sorted(unknown)}")
        attrs = {**attr_defaults, **kwargs}
        return apply_op(op_type, use_locking=use_locking, name=name, **feed,
                        **attrs).outputs[0]
    fn.__doc__ = (f"Adds a `{op_type}` op updating `{ref_inputs[0]}` in place; returns its ref.\n\n"
                  f"Inputs: {', '.join(inputs)}; attrs: use_locking"
                  + "".join(f", {a}" for a in attr_defaults) + ".")
    return fn


def register_apply(op_type, ref_inputs, value_inputs, rule, extra_attrs=()):
    """Registers a dense Apply* op whose kernel runs `rule` and writes its results in place.

    Args:
      op_type: TF's op type name.
      ref_inputs: names of the Ref(T) inputs (variable first, then slots).
      value_inputs: the other inputs in TF's order (hyperparameters and `grad`/`delta`).
      rule: the pure update function from optimizer_rules.
      extra_attrs: attr specs beyond T and use_locking; their values go to the rule.

    Returns:
      the op's graph function.
    """
    return _register(op_type, ref_inputs, value_inputs, rule, extra_attrs, sparse=False)


def register_sparse_apply(op_type, ref_inputs, value_inputs, rule, extra_attrs=()):
    """Registers a SparseApply* op: like `register_apply`, with `grad` rows applied at
    `indices` (an int32/int64 input among `value_inputs`) one occurrence at a time."""
    return _register(op_type, ref_inputs, value_inputs, rule, extra_attrs, sparse=True)


def _register(op_type, ref_inputs, value_inputs, rule, extra_attrs, sparse):
    attr_names = [a.split(":")[0].strip() for a in extra_attrs]
    make = apply_kernels.sparse_kernel if sparse else apply_kernels.dense_kernel
    attrs = [f"T: {_FLOAT_NUMBER}"]
    if sparse:
        attrs.append("Tindices: {int32, int64}")
    attrs += ["use_locking: bool = false", *extra_attrs]
    register_op(op_type,
                inputs=[f"{n}: Ref(T)" for n in ref_inputs] + _input_specs(value_inputs),
                outputs=["out: Ref(T)"], attrs=attrs,
                shape_fn=apply_kernels.shape_fn(ref_inputs, value_inputs, sparse),
                kernel=make(ref_inputs, value_inputs, rule, attr_names), stateful=True)
    NotDifferentiable(op_type)
    defaults = {}
    for spec in extra_attrs:
        name, rest = spec.split(":", 1)
        default = rest.split("=", 1)[1].strip()
        defaults[name.strip()] = {"false": False, "true": True}[default]
    return _graph_function(op_type, ref_inputs, value_inputs, defaults)


_NESTEROV = ["use_nesterov: bool = false"]
_UPDATE_SLOTS = ["update_slots: bool = true"]
_LINEAR_BY_LR = ["multiply_linear_by_lr: bool = false"]

# (python name, op type, refs, dense value inputs, rule, extra attrs); the sparse twin
# takes `indices` right after `grad`.
_OPS = (
    ("gradient_descent", "GradientDescent", ["var"], ["alpha", "delta"],
     rules.gradient_descent, []),
    ("momentum", "Momentum", ["var", "accum"], ["lr", "grad", "momentum"], rules.momentum,
     _NESTEROV),
    ("adagrad", "Adagrad", ["var", "accum"], ["lr", "grad"], rules.adagrad, _UPDATE_SLOTS),
    ("adagrad_v2", "AdagradV2", ["var", "accum"], ["lr", "epsilon", "grad"], rules.adagrad_v2,
     _UPDATE_SLOTS),
    ("adagrad_da", "AdagradDA", ["var", "gradient_accumulator", "gradient_squared_accumulator"],
     ["grad", "lr", "l1", "l2", "global_step"], rules.adagrad_da, []),
    ("adadelta", "Adadelta", ["var", "accum", "accum_update"],
     ["lr", "rho", "epsilon", "grad"], rules.adadelta, []),
    ("ftrl", "Ftrl", ["var", "accum", "linear"], ["grad", "lr", "l1", "l2", "lr_power"],
     rules.ftrl, _LINEAR_BY_LR),
    ("ftrl_v2", "FtrlV2", ["var", "accum", "linear"],
     ["grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"], rules.ftrl_v2, _LINEAR_BY_LR),
    ("proximal_gradient_descent", "ProximalGradientDescent", ["var"],
     ["alpha", "l1", "l2", "delta"], rules.proximal_gradient_descent, []),
    ("proximal_adagrad", "ProximalAdagrad", ["var", "accum"], ["lr", "l1", "l2", "grad"],
     rules.proximal_adagrad, []),
    ("rms_prop", "RMSProp", ["var", "ms", "mom"],
     ["lr", "rho", "momentum", "epsilon", "grad"], rules.rms_prop, []),
    ("centered_rms_prop", "CenteredRMSProp", ["var", "mg", "ms", "mom"],
     ["lr", "rho", "momentum", "epsilon", "grad"], rules.centered_rms_prop, []),
    ("adam", "Adam", ["var", "m", "v"],
     ["beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"], rules.adam,
     _NESTEROV),
    ("ada_max", "AdaMax", ["var", "m", "v"],
     ["beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"], rules.ada_max, []),
    ("add_sign", "AddSign", ["var", "m"], ["lr", "alpha", "sign_decay", "beta", "grad"],
     rules.add_sign, []),
    ("power_sign", "PowerSign", ["var", "m"], ["lr", "logbase", "sign_decay", "beta", "grad"],
     rules.power_sign, []),
)
# TF has no sparse twin of these.
_DENSE_ONLY = ("GradientDescent", "Adam", "AdaMax", "AddSign", "PowerSign")


def _sparse_inputs(values):
    values = ["grad" if v == "delta" else v for v in values]
    at = values.index("grad") + 1
    return values[:at] + ["indices"] + values[at:]


def _export(py_name, fn):
    fn.__name__ = fn.__qualname__ = py_name
    globals()[py_name] = fn


for _name, _type, _refs, _values, _rule, _attrs in _OPS:
    _export("apply_" + _name, register_apply("Apply" + _type, _refs, _values, _rule, _attrs))
    if _type not in _DENSE_ONLY:
        _export("sparse_apply_" + _name, register_sparse_apply(
            "SparseApply" + _type, _refs, _sparse_inputs(_values), _rule, _attrs))
del _name, _type, _refs, _values, _rule, _attrs
