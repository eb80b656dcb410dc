"""The optimizer ops of TF1 (ApplyMomentum, SparseApplyMomentum, ApplyAdam, ...): their
registrations and graph functions (TF's `gen_training_ops` names and signatures).

Each op's math is one pure rule in ops/state/optimizer_rules.py, with its in-place form
of the same name in ops/state/optimizer_inplace.py; `register_apply` and
`register_sparse_apply` turn them into an op whose kernel writes the results into the
variable and slot buffers in place (ops/state/apply_kernels.py).

`register_resource_apply` / `register_resource_sparse_apply` make the ResourceApply* /
ResourceSparseApply* twins from the same rules: `var: resource` inputs and no output.
The ref graph functions (`apply_adam`, ...) build the twin when handed resource
variables, which is how every optimizer works on them with TF's op types.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.ops.state import apply_kernels
from trainflow._src.ops.state import optimizer_inplace
from trainflow._src.ops.state import optimizer_rules as rules
from trainflow._src.ops.state import resource_variable_ops

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


def _is_resource(value):
    return getattr(value, "_is_resource_variable", False) or (
        getattr(value, "dtype", None) is not None and
        getattr(value.dtype, "base_dtype", None) is dtypes.resource)


def _graph_function(op_type, ref_inputs, value_inputs, attr_defaults, twin=None):
    inputs = list(ref_inputs) + list(value_inputs)

    def fn(*args, use_locking=False, name=None, **kwargs):
        first = args[0] if args else kwargs.get(ref_inputs[0])
        if twin is not None and _is_resource(first):
            return twin(*args, use_locking=use_locking, name=name, **kwargs)
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
        if op_type.startswith("Resource"):
            for n in ref_inputs:
                feed[n] = getattr(feed[n], "handle", feed[n])
            return apply_op(op_type, use_locking=use_locking, name=name, **feed, **attrs)
        return apply_op(op_type, use_locking=use_locking, name=name, **feed,
                        **attrs).outputs[0]
    what = "returns the Operation" if op_type.startswith("Resource") else "returns its ref"
    fn.__doc__ = (f"Adds a `{op_type}` op updating `{ref_inputs[0]}` in place; {what}.\n\n"
                  f"Inputs: {', '.join(inputs)}; attrs: use_locking"
                  + "".join(f", {a}" for a in attr_defaults) + ".")
    return fn


def register_apply(op_type, ref_inputs, value_inputs, rule, extra_attrs=(), twin=None,
                   form=None):
    """Registers a dense Apply* op whose kernel runs `rule` and writes its results in place.

    Args:
      op_type: TF's op type name.
      ref_inputs: names of the Ref(T) inputs (variable first, then slots).
      value_inputs: the other inputs in TF's order (hyperparameters and `grad`/`delta`).
      rule: the pure update function from optimizer_rules.
      extra_attrs: attr specs beyond T and use_locking; their values go to the rule.
      twin: the graph function of the op's ResourceApply twin, built instead when the
        variable passed is a resource variable.
      form: the rule's in-place form (optimizer_inplace), the kernel's fast path; None
        runs `rule` alone.

    Returns:
      the op's graph function.
    """
    return _register(op_type, ref_inputs, value_inputs, rule, extra_attrs, False, twin, form)


def register_sparse_apply(op_type, ref_inputs, value_inputs, rule, extra_attrs=(), twin=None,
                          form=None):
    """Registers a SparseApply* op: like `register_apply`, with `grad` rows applied at
    `indices` (an int32/int64 input among `value_inputs`) one occurrence at a time."""
    return _register(op_type, ref_inputs, value_inputs, rule, extra_attrs, True, twin, form)


def register_resource_apply(op_type, ref_inputs, value_inputs, rule, extra_attrs=(), form=None):
    """Registers a ResourceApply* op (`var: resource` inputs, no output) from `rule`."""
    return _register(op_type, ref_inputs, value_inputs, rule, extra_attrs, False, None,
                     form)


def register_resource_sparse_apply(op_type, ref_inputs, value_inputs, rule, extra_attrs=(),
                                   form=None):
    """Registers a ResourceSparseApply* op from `rule` (see `register_sparse_apply`)."""
    return _register(op_type, ref_inputs, value_inputs, rule, extra_attrs, True, None,
                     form)


def _resource_kernel(kernel):
    def run(*args, ctx):
        kernel(*(resource_variable_ops.slot_of(a) for a in args), ctx=ctx)
    return run


def _register(op_type, ref_inputs, value_inputs, rule, extra_attrs, sparse, twin, form):
    attr_names = [a.split(":")[0].strip() for a in extra_attrs]
    make = apply_kernels.sparse_kernel if sparse else apply_kernels.dense_kernel
    attrs = [f"T: {_FLOAT_NUMBER}"]
    if sparse:
        attrs.append("Tindices: {int32, int64}")
    attrs += ["use_locking: bool = false", *extra_attrs]
    kernel = make(ref_inputs, value_inputs, rule, attr_names, form)
    if op_type.startswith("Resource"):
        register_op(op_type,
                    inputs=[f"{n}: resource" for n in ref_inputs] + _input_specs(value_inputs),
                    attrs=attrs, shape_fn=apply_kernels.resource_shape_fn(value_inputs),
                    kernel=_resource_kernel(kernel), stateful=True)
    else:
        register_op(op_type,
                    inputs=[f"{n}: Ref(T)" for n in ref_inputs] + _input_specs(value_inputs),
                    outputs=["out: Ref(T)"], attrs=attrs,
                    shape_fn=apply_kernels.shape_fn(ref_inputs, value_inputs, sparse),
                    kernel=kernel, stateful=True)
    NotDifferentiable(op_type)
    defaults = {}
    for spec in extra_attrs:
        name, rest = spec.split(":", 1)
        default = rest.split("=", 1)[1].strip()
        defaults[name.strip()] = {"false": False, "true": True}[default]
    return _graph_function(op_type, ref_inputs, value_inputs, defaults, twin)


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
    _form = getattr(optimizer_inplace, _name)
    _twin = register_resource_apply("ResourceApply" + _type, _refs, _values, _rule, _attrs,
                                    _form)
    _export("resource_apply_" + _name, _twin)
    _export("apply_" + _name,
            register_apply("Apply" + _type, _refs, _values, _rule, _attrs, _twin, _form))
    if _type not in _DENSE_ONLY:
        _sparse = _sparse_inputs(_values)
        _twin = register_resource_sparse_apply("ResourceSparseApply" + _type, _refs, _sparse,
                                               _rule, _attrs, _form)
        _export("resource_sparse_apply_" + _name, _twin)
        _export("sparse_apply_" + _name, register_sparse_apply(
            "SparseApply" + _type, _refs, _sparse, _rule, _attrs, _twin, _form))
del _name, _type, _refs, _values, _rule, _attrs, _twin, _form
