"""Builds graph ops from their registered signatures (TF's op_def_library).

`apply_op(op_type, name=None, **kwargs)` converts the inputs to tensors, infers
type and length attrs from them, checks dtypes against the signature, fills in
attr defaults and adds the op to the graph of its inputs.
"""
from trainflow.framework import dtypes as dtypes_mod
from trainflow.framework import registry
from trainflow.framework.graph import _get_graph_from_inputs
from trainflow.framework.tensor import Tensor


def _flatten_inputs(values):
    out = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(v)
        else:
            out.append(v)
    return out


def _check_allowed(op_type, arg_name, attr, dtype):
    if attr is not None and attr.allowed is not None and dtype.base_dtype not in attr.allowed:
        allowed = ", ".join(a.name for a in attr.allowed)
        raise TypeError(f"Value passed to parameter '{arg_name}' has DataType "
                        f"{dtype.base_dtype.name} not in list of allowed values: {allowed}")


def _coerce_attr(op_type, attr, value):
    from trainflow.framework.tensor_shape import as_shape
    kind = attr.kind
    try:
        if kind == "type":
            value = dtypes_mod.as_dtype(value)
        elif kind == "list(type)":
            value = [dtypes_mod.as_dtype(v) for v in value]
        elif kind == "int":
            if isinstance(value, bool) or not isinstance(value, (int,)) and not hasattr(
                    value, "__index__"):
                raise TypeError(f"Expected int for argument '{attr.name}' not {value!r}.")
            value = int(value)
        elif kind == "float":
            value = float(value)
        elif kind == "bool":
            if not isinstance(value, (bool,)) and type(value).__name__ != "bool_":
                raise TypeError(f"Expected bool for argument '{attr.name}' not {value!r}.")
            value = bool(value)
        elif kind == "string":
            value = value.encode() if isinstance(value, str) else bytes(value)
        elif kind == "shape":
            value = as_shape(value)
        elif kind == "list(int)":
            value = [int(v) for v in value]
        elif kind == "list(float)":
            value = [float(v) for v in value]
        elif kind == "list(string)":
            value = [v.encode() if isinstance(v, str) else bytes(v) for v in value]
        elif kind == "list(shape)":
            value = [as_shape(v) for v in value]
    except (TypeError, ValueError) as e:
        raise TypeError(f"Bad value for attr '{attr.name}' of op '{op_type}': {e}") from None
    if attr.minimum is not None:
        n = len(value) if kind.startswith("list") else value
        if n < attr.minimum:
            raise ValueError(f"Attr '{attr.name}' of '{op_type}' Op passed {n} less than "
                             f"minimum {attr.minimum}.")
    if attr.allowed is not None and kind == "string" and value not in attr.allowed:
        raise ValueError(f"Attr '{attr.name}' of '{op_type}' Op passed string "
                         f"'{value.decode()}' not in: " +
                         ", ".join(f'"{a.decode()}"' for a in attr.allowed) + ".")
    return value


def output_dtypes(info, attrs):
    """The output DTypes of an op of `info`'s type given its attrs."""
    out = []
    for arg in info.op_def.outputs:
        if arg.type_list_attr is not None:
            types = list(attrs[arg.type_list_attr])
        else:
            t = arg.type if arg.type is not None else attrs[arg.type_attr]
            n = attrs[arg.number_attr] if arg.number_attr is not None else 1
            types = [t] * n if arg.number_attr is not None else [t]
        if arg.is_ref:
            types = [t._as_ref for t in types]
        out.extend(types)
    return out


def _convert(value, dtype, name, as_ref, preferred):
    from trainflow.framework.tensor_conversion import convert_to_tensor
    return convert_to_tensor(value, dtype=dtype, name=name, as_ref=as_ref,
                             preferred_dtype=preferred)


def apply_op(op_type, name=None, **kwargs):
    """Adds an op of type `op_type` with inputs and attrs from `kwargs`.

    Returns:
      the new Operation.

    Raises:
      TypeError: for inputs whose dtypes break the signature, naming the op and input.
      ValueError: for bad attrs or incompatible shapes.
    """
    info = registry.get(op_type)
    op_def = info.op_def
    input_values = [kwargs.pop(a.name) if a.name in kwargs else None for a in op_def.inputs]
    for a, v in zip(op_def.inputs, input_values):
        if v is None:
            raise TypeError(f"{op_type} missing required input '{a.name}'")
    g = _get_graph_from_inputs(_flatten_inputs(input_values))
    attrs = {}
    inferred_from = {}
    with g.as_default(), g.name_scope(name or op_type) as scope:
        for attr_name, attr in op_def.attrs.items():
            if attr_name in kwargs and attr.kind in ("type", "list(type)"):
                attrs[attr_name] = _coerce_attr(op_type, attr, kwargs.pop(attr_name))
        inputs = []
        for arg, value in zip(op_def.inputs, input_values):
            inputs.append(_convert_arg(op_type, op_def, arg, value, attrs, inferred_from))
        for attr_name, attr in op_def.attrs.items():
            if attr_name in attrs:
                continue
            if attr_name in kwargs:
                attrs[attr_name] = _coerce_attr(op_type, attr, kwargs.pop(attr_name))
            elif attr.has_default:
                attrs[attr_name] = attr.default
            else:
                raise TypeError(f"No argument for attr {attr_name} of op {op_type}")
        for key in list(kwargs):
            if key.startswith("_"):
                attrs[key] = kwargs.pop(key)
        if kwargs:
            raise TypeError(f"{op_type} got unexpected keyword arguments: "
                            f"{', '.join(sorted(kwargs))}")
        flat_inputs = []
        for arg, t in zip(op_def.inputs, inputs):
            if isinstance(t, list):
                flat_inputs.extend(t)
            else:
                flat_inputs.append(t)
        out_types = output_dtypes(info, attrs)
        return g._create_op_internal(op_type, flat_inputs, out_types, scope, attrs, info)


def _convert_arg(op_type, op_def, arg, value, attrs, inferred_from):
    """Converts one input argument and records the attrs it determines."""
    if arg.is_list:
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"Expected list for '{arg.name}' argument to '{op_type}' Op, not "
                            f"{value!r}.")
        if arg.number_attr is not None:
            n_attr = op_def.attrs[arg.number_attr]
            if arg.number_attr in attrs and attrs[arg.number_attr] != len(value):
                raise ValueError(f"List argument '{arg.name}' to '{op_type}' Op with length "
                                 f"{len(value)} must match length {attrs[arg.number_attr]} of "
                                 f"argument '{inferred_from.get(arg.number_attr)}'.")
            attrs[arg.number_attr] = _coerce_attr(op_type, n_attr, len(value))
            inferred_from[arg.number_attr] = arg.name
            dtype = arg.type or attrs.get(arg.type_attr)
            tensors = []
            if dtype is None:
                for v in value:
                    if isinstance(v, Tensor):
                        dtype = v.dtype.base_dtype
                        break
            for i, v in enumerate(value):
                t = _convert(v, dtype, f"{arg.name}_{i}" if len(value) > 1 else arg.name,
                             arg.is_ref, _default_type(op_def, arg))
                if dtype is None:
                    dtype = t.dtype.base_dtype
                elif t.dtype.base_dtype != dtype:
                    raise TypeError(f"Tensors in list passed to '{arg.name}' of '{op_type}' Op "
                                    f"have types [{', '.join(x.dtype.name for x in tensors + [t])}"
                                    "] that don't all match.")
                tensors.append(t)
            if arg.type_attr is not None and dtype is not None:
                _check_allowed(op_type, arg.name, op_def.attrs[arg.type_attr], dtype)
                attrs[arg.type_attr] = dtype
            return tensors
        tensors = [_convert(v, None, arg.name, arg.is_ref, None) for v in value]
        types = [t.dtype.base_dtype for t in tensors]
        if arg.type_list_attr in attrs and attrs[arg.type_list_attr] != types:
            raise TypeError(f"Input '{arg.name}' of '{op_type}' Op has type list of "
                            f"{', '.join(t.name for t in types)} that does not match type "
                            f"list {', '.join(t.name for t in attrs[arg.type_list_attr])} of "
                            f"argument '{inferred_from.get(arg.type_list_attr)}'.")
        attrs[arg.type_list_attr] = types
        inferred_from[arg.type_list_attr] = arg.name
        return tensors
    dtype = arg.type if arg.type is not None else attrs.get(arg.type_attr)
    try:
        t = _convert(value, dtype, arg.name, arg.is_ref, _default_type(op_def, arg))
    except (TypeError, ValueError) as err:
        if dtype is None or isinstance(value, Tensor):
            raise
        raise TypeError(f"Expected {dtype.name} passed to parameter '{arg.name}' of op "
                        f"'{op_type}', got {value!r} of type '{type(value).__name__}' "
                        f"instead. Error: {err}") from None
    if arg.is_ref and not t.dtype._is_ref_dtype:
        raise TypeError(f"'{op_type}' Op requires that input '{arg.name}' be a mutable tensor "
                        "(e.g.: a tf.Variable)")
    base = t.dtype.base_dtype
    if arg.type is not None:
        if base != arg.type:
            raise TypeError(f"Input '{arg.name}' of '{op_type}' Op has type {base.name} that "
                            f"does not match expected type of {arg.type.name}.")
    elif arg.type_attr in attrs:
        if base != attrs[arg.type_attr]:
            src = inferred_from.get(arg.type_attr)
            if src is None:
                raise TypeError(f"Input '{arg.name}' of '{op_type}' Op has type {base.name} "
                                f"that does not match expected type of "
                                f"{attrs[arg.type_attr].name}.")
            raise TypeError(f"Input '{arg.name}' of '{op_type}' Op has type {base.name} that "
                            f"does not match type {attrs[arg.type_attr].name} of argument "
                            f"'{src}'.")
    else:
        _check_allowed(op_type, arg.name, op_def.attrs[arg.type_attr], base)
        attrs[arg.type_attr] = base
        inferred_from[arg.type_attr] = arg.name
    return t


def _default_type(op_def, arg):
    if arg.type_attr is None:
        return None
    attr = op_def.attrs[arg.type_attr]
    return attr.default if attr.has_default else None
