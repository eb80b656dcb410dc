"""Builds graph ops from their registered signatures (TF's op_def_library).

`apply_op(op_type, name=None, **kwargs)` converts the inputs to tensors, infers
type and length attrs from them, checks dtypes against the signature, fills in
attr defaults and adds the op to the graph of its inputs.
"""
import contextlib

import numpy as np

from trainflow._src.framework import dtypes as dtypes_mod, registry
from trainflow._src.framework.graph import _get_graph_from_inputs
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import as_shape
from trainflow._src.framework.tensor_conversion import _contains_tensor, convert_to_tensor
from trainflow._src.framework.numpy_conversion import to_numpy


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


def _make_type(attr_name, value):
    try:
        return dtypes_mod.as_dtype(value).base_dtype
    except TypeError:
        raise TypeError(f"Expected DataType for argument '{attr_name}' not {value!r}.") \
            from None


def _make_int(attr_name, value):
    if isinstance(value, (str, bytes)):
        raise TypeError(f"Expected int for argument '{attr_name}' not {value!r}.")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"Expected int for argument '{attr_name}' not {value!r}.") from None


def _make_float(attr_name, value):
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"Expected float for argument '{attr_name}' not {value!r}.") from None


def _make_bool(attr_name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"Expected bool for argument '{attr_name}' not {value!r}.")
    return bool(value)


def _make_str(attr_name, value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return value
    raise TypeError(f"Expected string for argument '{attr_name}' not {value!r}.")


def _make_shape(attr_name, value):
    try:
        return as_shape(value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"Error converting {attr_name} to a TensorShape: {e}.") from None


_MAKERS = {"type": _make_type, "int": _make_int, "float": _make_float, "bool": _make_bool,
           "string": _make_str, "shape": _make_shape}


def _coerce_attr(op_type, attr, value):
    """Converts the Python value of attr `attr` to its kind, checking TF's constraints.

    Raises:
      TypeError: for a value of the wrong kind, or a dtype outside the allowed set.
      ValueError: for a number or list below the minimum, or a string not allowed.
    """
    kind = attr.kind
    if kind.startswith("list("):
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"Expected list for attr {attr.name}, obtained "
                            f"{type(value).__name__} instead.")
        maker = _MAKERS.get(kind[5:-1])
        if maker is not None:
            value = [maker(attr.name, v) for v in value]
        else:
            value = list(value)
        if attr.minimum is not None and len(value) < attr.minimum:
            raise ValueError(f"Attr '{attr.name}' of '{op_type}' Op passed list of length "
                             f"{len(value)} less than minimum {attr.minimum}.")
        if kind == "list(type)" and attr.allowed is not None:
            for dt in value:
                _check_allowed(op_type, attr.name, attr, dt)
        return value
    maker = _MAKERS.get(kind)
    if maker is not None:
        value = maker(attr.name, value)
    if kind == "int" and attr.minimum is not None and value < attr.minimum:
        raise ValueError(f"Attr '{attr.name}' of '{op_type}' Op passed {value} less than "
                         f"minimum {attr.minimum}.")
    if kind == "type":
        _check_allowed(op_type, attr.name, attr, value)
    elif attr.allowed is not None and kind == "string" and value not in attr.allowed:
        raise ValueError(f"Attr '{attr.name}' of '{op_type}' Op passed string "
                         f"'{value.decode()}' not in: " +
                         ", ".join(f'"{a.decode()}"' for a in attr.allowed) + ".")
    return value


def output_dtypes(info, attrs):
    """The output DTypes of an op of `info`'s type given its attrs."""
    return info.op_def.output_dtypes(attrs)


def _convert(value, dtype, name, as_ref, preferred):
    return convert_to_tensor(value, dtype=dtype, name=name, as_ref=as_ref,
                             preferred_dtype=preferred)


_MISSING = object()


def _is_tensor_like(value):
    return isinstance(value, Tensor) or hasattr(value, "_as_graph_element") or \
        getattr(value, "_is_tensor_like", False)


def _dtype_hints(op_def, input_values):
    """Type attr -> dtype of the first tensor-like input that carries it, so that a
    Python value given before that tensor converts to the tensor's dtype
    (apply_op("AddV2", x=1, y=float_tensor) gives a float32 x)."""
    hints = {}
    for arg, value in zip(op_def.inputs, input_values):
        attr = arg.type_attr
        if attr is None or attr in hints:
            continue
        items = value if arg.is_list and isinstance(value, (list, tuple)) else [value]
        for v in items:
            if _is_tensor_like(v):
                dt = getattr(v, "dtype", None)
                if isinstance(dt, dtypes_mod.DType):
                    hints[attr] = dt.base_dtype
                    break
    return hints


def apply_op(op_type, name=None, **kwargs):
    """Adds an op of type `op_type` with inputs and attrs from `kwargs`.

    Inputs are converted to tensors: a Python or NumPy value takes the dtype that the
    op's other inputs fix for its type attr (from any input, earlier or later), else
    the attr's default, else its own natural dtype. Type and length attrs are
    inferred from the inputs; other attrs come from `kwargs` or their defaults.
    Keyword arguments starting with "_" become extra attrs (e.g. "_class").

    Returns:
      the new Operation.

    Raises:
      TypeError: for inputs whose dtypes break the signature, naming the op and input,
        and for attrs of the wrong kind.
      ValueError: for None inputs, bad attr values, or incompatible shapes.
    """
    info = registry.get(op_type)
    op_def = info.op_def
    input_values = [kwargs.pop(a.name, _MISSING) for a in op_def.inputs]
    for a, v in zip(op_def.inputs, input_values):
        if v is _MISSING:
            raise TypeError(f"{op_type} missing required input '{a.name}'")
        if v is None:
            raise ValueError(f"Tried to convert '{a.name}' to a tensor and failed. Error: "
                             "None values not supported.")
    g = _get_graph_from_inputs(_flatten_inputs(input_values))
    attrs = {}
    inferred_from = {}
    with g.as_default(), g.name_scope(name or op_type) as scope:
        for attr_name, attr in op_def.attrs.items():
            if attr_name in kwargs and attr.kind in ("type", "list(type)"):
                attrs[attr_name] = _coerce_attr(op_type, attr, kwargs.pop(attr_name))
        hints = _dtype_hints(op_def, input_values)
        inputs = []
        for arg, value in zip(op_def.inputs, input_values):
            inputs.append(_convert_arg(op_type, op_def, arg, value, attrs, inferred_from,
                                       hints))
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
        for t in inputs:
            if isinstance(t, list):
                flat_inputs.extend(t)
            else:
                flat_inputs.append(t)
        out_types = output_dtypes(info, attrs)
        ref_inputs = [t for arg, t in zip(op_def.inputs, inputs) if arg.is_ref]
        if not ref_inputs:
            return g._create_op_internal(op_type, flat_inputs, out_types, scope, attrs, info)
        # Ops that update a variable live with it (TF colocates them with ref inputs).
        with contextlib.ExitStack() as stack:
            for t in ref_inputs:
                for ref in (t if isinstance(t, list) else [t]):
                    stack.enter_context(g.colocate_with(ref.op))
            return g._create_op_internal(op_type, flat_inputs, out_types, scope, attrs, info)


def _natural_dtype(value):
    """The dtype a Python/NumPy value converts to on its own, or None if it can't."""
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        return None
    try:
        return dtypes_mod.as_dtype(to_numpy(value).dtype)
    except (TypeError, ValueError, NotImplementedError):
        return None


def _convert_one(op_type, arg, value, dtype, name, preferred, allowed=None):
    """Converts one input value; Python/NumPy values get `dtype` when it is known."""
    if _is_tensor_like(value):
        return _convert(value, None, name, arg.is_ref, None)
    try:
        if dtype is None and preferred is not None:
            # TF 2.x converts Python/NumPy values by their own dtype first; the attr's
            # default serves values whose own dtype is not allowed (e.g. [] is float32)
            # or that have none (e.g. lists of Dimensions).
            natural = _natural_dtype(value)
            if natural is not None and (allowed is None or natural in allowed):
                return _convert(value, None, name, arg.is_ref, None)
        return _convert(value, dtype, name, arg.is_ref, preferred)
    except (TypeError, ValueError) as err:
        if dtype is None:
            raise
        raise TypeError(f"Expected {dtype.name} passed to parameter '{arg.name}' of op "
                        f"'{op_type}', got {value!r} of type '{type(value).__name__}' "
                        f"instead. Error: {err}") from None


def _check_against_attr(op_type, arg, base, attrs, inferred_from):
    """Checks dtype `base` of input `arg` against its fixed type or known type attr, or
    records it as the type attr's value."""
    if arg.type is not None:
        if base != arg.type:
            raise TypeError(f"Input '{arg.name}' of '{op_type}' Op has type {base.name} that "
                            f"does not match expected type of {arg.type.name}.")
    elif arg.type_attr in attrs:
        want = attrs[arg.type_attr]
        if base != want:
            src = inferred_from.get(arg.type_attr)
            if src is None:
                raise TypeError(f"Input '{arg.name}' of '{op_type}' Op has type {base.name} "
                                f"that does not match expected type of {want.name}.")
            raise TypeError(f"Input '{arg.name}' of '{op_type}' Op has type {base.name} that "
                            f"does not match type {want.name} of argument '{src}'.")
    elif arg.type_attr is not None:
        attrs[arg.type_attr] = base
        inferred_from[arg.type_attr] = arg.name


def _convert_arg(op_type, op_def, arg, value, attrs, inferred_from, hints):
    """Converts one input argument and records the attrs it determines."""
    if arg.is_list:
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"Expected list for '{arg.name}' argument to '{op_type}' Op, not "
                            f"{value!r}.")
        if arg.number_attr is not None:
            return _convert_number_list(op_type, op_def, arg, value, attrs, inferred_from,
                                        hints)
        want = attrs.get(arg.type_list_attr)
        if want is not None and len(want) != len(value):
            want = None
        tensors = [_convert_one(op_type, arg, v, None if want is None else want[i],
                                f"{arg.name}_{i}", None) for i, v in enumerate(value)]
        types = [t.dtype.base_dtype for t in tensors]
        if arg.type_list_attr in attrs and attrs[arg.type_list_attr] != types:
            raise TypeError(f"Input '{arg.name}' of '{op_type}' Op has type list of "
                            f"{', '.join(t.name for t in types)} that does not match type "
                            f"list {', '.join(t.name for t in attrs[arg.type_list_attr])} of "
                            f"argument '{inferred_from.get(arg.type_list_attr, arg.name)}'.")
        attrs[arg.type_list_attr] = types
        inferred_from[arg.type_list_attr] = arg.name
        return tensors
    dtype = arg.type or attrs.get(arg.type_attr) or hints.get(arg.type_attr)
    allowed = op_def.attrs[arg.type_attr].allowed if arg.type_attr is not None else None
    t = _convert_one(op_type, arg, value, dtype, arg.name, _default_type(op_def, arg),
                     allowed)
    if arg.is_ref and not t.dtype._is_ref_dtype:
        raise TypeError(f"'{op_type}' Op requires that input '{arg.name}' be a mutable tensor "
                        "(e.g.: a tf.Variable)")
    base = t.dtype.base_dtype
    if arg.type is None and arg.type_attr not in attrs:
        _check_allowed(op_type, arg.name, op_def.attrs[arg.type_attr], base)
    _check_against_attr(op_type, arg, base, attrs, inferred_from)
    return t


def _convert_number_list(op_type, op_def, arg, value, attrs, inferred_from, hints):
    """Converts an ``N * T`` list input, inferring N (and T)."""
    n_attr = op_def.attrs[arg.number_attr]
    if arg.number_attr in attrs:
        if attrs[arg.number_attr] != len(value):
            raise ValueError(f"List argument '{arg.name}' to '{op_type}' Op with length "
                             f"{len(value)} must match length {attrs[arg.number_attr]} of "
                             f"argument '{inferred_from.get(arg.number_attr)}'.")
    else:
        if n_attr.minimum is not None and len(value) < n_attr.minimum:
            raise ValueError(f"List argument '{arg.name}' to '{op_type}' Op with length "
                             f"{len(value)} shorter than minimum length {n_attr.minimum}.")
        attrs[arg.number_attr] = len(value)
        inferred_from[arg.number_attr] = arg.name
    dtype = arg.type or attrs.get(arg.type_attr) or hints.get(arg.type_attr)
    preferred = _default_type(op_def, arg)
    tensors = []
    for i, v in enumerate(value):
        name = f"{arg.name}_{i}"
        tensors.append(_convert_one(op_type, arg, v, dtype, name, preferred,
                                    op_def.attrs[arg.type_attr].allowed
                                    if arg.type_attr is not None else None))
    types = [t.dtype.base_dtype for t in tensors]
    if any(tp != types[0] for tp in types):
        raise TypeError(f"Tensors in list passed to '{arg.name}' of '{op_type}' Op have types "
                        f"[{', '.join(tp.name for tp in types)}] that don't all match.")
    if not types:
        if arg.type is None and arg.type_attr not in attrs:
            if preferred is None:
                raise TypeError("Don't know how to infer type variable from empty input list "
                                f"passed to input '{arg.name}' of '{op_type}' Op.")
            attrs[arg.type_attr] = preferred
        return tensors
    if arg.type is None and arg.type_attr not in attrs:
        _check_allowed(op_type, arg.name, op_def.attrs[arg.type_attr], types[0])
    _check_against_attr(op_type, arg, types[0], attrs, inferred_from)
    return tensors


def _default_type(op_def, arg):
    if arg.type_attr is None:
        return None
    attr = op_def.attrs[arg.type_attr]
    return attr.default if attr.has_default else None
