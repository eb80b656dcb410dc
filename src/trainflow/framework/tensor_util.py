"""Static values of tensors (`tf.get_static_value` / `constant_value`)."""
import numpy as np

_CONSTANT_VALUE_FNS = {}


def register_constant_value(op_type):
    """Decorator: `fn(op, output_index, partial) -> ndarray or None` computes the static
    value of an `op_type` output when its inputs are static."""
    def deco(fn):
        _CONSTANT_VALUE_FNS[op_type] = fn
        return fn
    return deco


def constant_value(tensor, partial=False):
    """The value of `tensor` if it can be computed without running the graph, else None."""
    from trainflow.framework.tensor import Tensor
    if isinstance(tensor, np.ndarray):
        return tensor
    if not isinstance(tensor, Tensor):
        if isinstance(tensor, (int, float, bool, complex, np.generic, list, tuple)):
            from trainflow.framework.numpy_conversion import to_numpy
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


def constant_value_as_shape(tensor):
    """A TensorShape from a 1-D int tensor whose elements may be partly static."""
    from trainflow.framework.tensor_shape import TensorShape, unknown_shape
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
