"""Static values of tensors (`tf.get_static_value` / `constant_value`)."""
import numpy as np
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.numpy_conversion import to_numpy
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape

_CONSTANT_VALUE_FNS = {}
_PARTIAL_SHAPE_FNS = {}


def register_constant_value(op_type):
    """Decorator: `fn(op, output_index, partial) -> ndarray or None` computes the static
    value of an `op_type` output when its inputs are static."""
    def deco(fn):
        _CONSTANT_VALUE_FNS[op_type] = fn
        return fn
    return deco


def constant_value(tensor, partial=False):
    """The value of `tensor` if it can be computed without running the graph, else None."""
    if isinstance(tensor, np.ndarray):
        return tensor
    if not isinstance(tensor, Tensor):
        if isinstance(tensor, (int, float, bool, complex, np.generic, list, tuple)):
            try:
                return to_numpy(tensor)
            except (TypeError, ValueError):
                return None
        return None
    fn = _CONSTANT_VALUE_FNS.get(tensor.op.type)
    if fn is None:
        return None
    return fn(tensor.op, tensor.value_index, partial)


get_static_value = constant_value


def register_partial_shape(op_type):
    """Decorator: `fn(op, partial_shape_value) -> tuple or None` gives what is statically
    known of a shape vector computed by an `op_type` op (its family registers it)."""
    def deco(fn):
        _PARTIAL_SHAPE_FNS[op_type] = fn
        return fn
    return deco


def _static_int(tensor):
    value = constant_value(tensor)
    if value is None:
        return None
    value = np.asarray(value)
    return int(value) if value.ndim == 0 else None


def partial_shape_value(tensor):
    """What is statically known of the value of a 1-D int tensor used as a shape.

    Follows TF's partial evaluation of shape tensors: a constant gives its
    values (-1 becomes unknown), `Shape(x)` gives x's static dims, `Pack` of
    scalars gives each scalar's static value, `ConcatV2` joins its parts, a `Cast`
    keeps what it can, and op types registered with `register_partial_shape`
    (StridedSlice) add their rules.

    Returns:
      a tuple of ints/Nones, or None if not even the length is known.
    """
    value = constant_value(tensor)
    if value is not None:
        value = np.asarray(value)
        if value.ndim == 0:
            return None  # a scalar shape tensor (-1) stands for an unknown rank
        return tuple(None if int(d) == -1 else int(d) for d in value.reshape(-1))
    op = tensor.op
    kind = op.type
    if kind == "Shape":
        return op.inputs[0]._shape._dims
    if kind == "Cast":
        return partial_shape_value(op.inputs[0])
    if kind == "Pack" and op._attrs.get("axis", 0) == 0:
        out = []
        for t in op.inputs:
            v = _static_int(t)
            out.append(None if v is None or v < 0 else v)
        return tuple(out)
    if kind == "ConcatV2":
        out = []
        for t in op.inputs[:-1]:
            part = partial_shape_value(t)
            if part is None:
                return _length_only(tensor)
            out.extend(part)
        return tuple(out)
    fn = _PARTIAL_SHAPE_FNS.get(kind)
    if fn is not None:
        part = fn(op, partial_shape_value)
        if part is not None:
            return part
    return _length_only(tensor)


def _length_only(tensor):
    dims = tensor._shape._dims
    if dims is None or len(dims) != 1 or dims[0] is None:
        return None
    return (None,) * dims[0]


def constant_value_as_shape(tensor):
    """A TensorShape from a 1-D int tensor whose elements may be partly static."""
    shape = tensor.get_shape().with_rank(1)
    value = constant_value(tensor)
    if value is not None:
        return TensorShape([None if d == -1 else int(d) for d in value.tolist()])
    op = tensor.op
    if op.type == "Shape":
        return op.inputs[0].get_shape()
    if op.type == "Pack":
        dims = []
        for t in op.inputs:
            v = constant_value(t)
            dims.append(None if v is None or int(v) == -1 else int(v))
        return TensorShape(dims)
    if shape.dims and shape[0].value is not None:
        return unknown_shape(rank=shape[0].value)
    return unknown_shape()


@register_constant_value("Const")
def _const_value(op, index, partial):
    return op._attrs["value"]


@register_constant_value("Identity")
def _identity_value(op, index, partial):
    return constant_value(op.inputs[0], partial)
