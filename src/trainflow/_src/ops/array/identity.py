"""Identity (and its gradient, shared by PlaceholderWithDefault and RefIdentity) and
list autopacking: a list holding tensors converts to one Pack op, as in TF."""
from trainflow._src.framework import dtypes as _dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.shape_inference import unchanged_shape
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import (
    _contains_tensor, register_tensor_conversion_function)
from trainflow._src.ops.array.cast import cast

__all__ = ["identity"]


def _identity_kernel(x):
    return x


register_op("Identity", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
            shape_fn=unchanged_shape, kernel=_identity_kernel, output_aliases_input=True)


def _identity_grad(op, grad):
    """Identity-like ops pass the gradient through unchanged (dense or IndexedSlices)."""
    return grad


# PlaceholderWithDefault (constant_op) and RefIdentity are identities too, as in TF.
for _op_type in ("Identity", "PlaceholderWithDefault", "RefIdentity"):
    RegisterGradient(_op_type)(_identity_grad)
NotDifferentiable("Const")


def identity(input, name=None):  # noqa: A002 - TF's name
    """Returns a tensor with the same value as `input` (`tf.identity`)."""
    if hasattr(input, "_as_graph_element") and hasattr(input, "value") and \
            callable(input.value):
        input = input.value()
    return apply_op("Identity", input=input, name=name).outputs[0]


# -- autopacking: lists holding tensors become Pack ops (used by convert_to_tensor) -------
def _dtype_of_nested(values):
    """The dtype of the first tensor in a nested list, or None."""
    stack = [values]
    while stack:
        v = stack.pop(0)
        if isinstance(v, Tensor):
            return v.dtype.base_dtype
        if isinstance(v, (list, tuple)):
            stack = list(v) + stack
    return None


def _autopacking_helper(values, dtype, name):
    """Packs a (nested) list holding tensors into one tensor as TF names it: a Pack op
    called `name`, with Python elements as constants named by their position.

    As in TF's conversion function, an explicit `dtype` casts the tensors that have
    another dtype; without one, every tensor must have the first tensor's dtype.

    Args:
      values: a list or tuple, possibly nested, with at least one Tensor.
      dtype: the element DType, or None to take the first tensor's.
      name: the Pack op's name.

    Raises:
      TypeError: if a tensor's dtype differs from the first tensor's.
    """
    inferred = _dtype_of_nested(values)
    if dtype is None:
        dtype = inferred
    else:
        dtype = _dtypes.as_dtype(dtype).base_dtype
        if inferred is not None and inferred != dtype:
            values = _cast_nested(values, dtype)
    return _pack_nested(values, dtype, name)


def _cast_nested(values, dtype):
    out = []
    for v in values:
        if isinstance(v, Tensor) and v.dtype.base_dtype != dtype:
            v = cast(v, dtype)
        elif isinstance(v, (list, tuple)):
            v = _cast_nested(v, dtype)
        out.append(v)
    return out


def _encloses(outer, graph):
    """True if `graph` is `outer` or a function graph built inside it."""
    while graph is not None:
        if graph is outer:
            return True
        graph = getattr(graph, "outer_graph", None)
    return False


def _pack_nested(values, dtype, name):
    graph = get_default_graph()
    for v in values:
        if isinstance(v, Tensor):
            # In a function body the pack belongs to the body (outer tensors are captured).
            if not _encloses(v.graph, graph):
                graph = v.graph
            break
    must_pack = False
    converted = []
    with graph.as_default(), graph.name_scope(name) as scope:
        for i, elem in enumerate(values):
            if isinstance(elem, Tensor):
                if dtype is not None and elem.dtype.base_dtype != dtype:
                    raise TypeError(f"Cannot convert a list containing a tensor of dtype "
                                    f"{elem.dtype} to {dtype} (Tensor is: {elem!r})")
                converted.append(elem)
                must_pack = True
            elif isinstance(elem, (list, tuple)):
                sub = _pack_nested(elem, dtype, str(i))
                must_pack = must_pack or isinstance(sub, Tensor)
                converted.append(sub)
            else:
                converted.append(elem)
        if not must_pack:
            return converted
        tensors = [elem if isinstance(elem, Tensor) else constant(elem, dtype=dtype, name=str(i))
                   for i, elem in enumerate(converted)]
        return apply_op("Pack", values=tensors, axis=0, name=scope).outputs[0]


def _autopacking_conversion(value, dtype=None, name=None, as_ref=False):
    """Conversion of a list or tuple holding tensors: one Pack (TF's autopacking)."""
    del as_ref
    if not _contains_tensor(value):
        return NotImplemented
    return _autopacking_helper(value, dtype, name or "packed")


register_tensor_conversion_function((list, tuple), _autopacking_conversion, 99)


def stack_nested(values, dtype, name):
    """Packs a nested list holding tensors into one tensor (see `_autopacking_helper`)."""
    return _autopacking_helper(values, dtype, name)
