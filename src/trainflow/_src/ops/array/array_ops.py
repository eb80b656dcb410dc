"""Array ops: the public `tf.*` array functions.

The ops live in modules by concern and are re-exported here:
shape (Shape, Reshape, Squeeze, ExpandDims, broadcasting), create
(Fill, zeros/ones, Range, LinSpace, OneHot), diag (Diag, MatrixDiag...),
join (ConcatV2, Pack, Unpack, Split), layout (Tile, Pad, Transpose,
ReverseV2), slicing (Slice, StridedSlice, `Tensor.__getitem__`), gather
(GatherV2, GatherNd, ScatterNd, Where, Select, Unique), cast (Cast,
StopGradient, IdentityN) and ops/sparse/sparse_ops (SparseToDense, sparse_placeholder).
Identity and list autopacking are defined here.
"""
from trainflow._src.framework import dtypes as _dtypes
from trainflow._src.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.shape_inference import unchanged_shape
from trainflow._src.framework.sparse_tensor import SparseTensor, SparseTensorValue
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import (
    _contains_tensor, register_tensor_conversion_function)
# The concern modules under private names: their public functions (shape, gather ...)
# are star-imported below under the same names.
from trainflow._src.ops.array import (
    cast as _cast, create as _create, diag as _diag, gather as _gather, join as _join,
    layout as _layout, shape as _shape, slicing as _slicing)
from trainflow._src.ops.sparse import sparse_ops as _sparse_ops
from trainflow._src.ops.array.cast import *  # noqa: F401,F403
from trainflow._src.ops.array.cast import prevent_gradient  # noqa: F401
from trainflow._src.ops.array.create import *  # noqa: F401,F403
from trainflow._src.ops.array.diag import *  # noqa: F401,F403
from trainflow._src.ops.array.gather import *  # noqa: F401,F403
from trainflow._src.ops.array.join import *  # noqa: F401,F403
from trainflow._src.ops.array.layout import *  # noqa: F401,F403
from trainflow._src.ops.array.shape import *  # noqa: F401,F403
from trainflow._src.ops.array.shape import shape_internal  # noqa: F401
from trainflow._src.ops.array.slicing import *  # noqa: F401,F403
from trainflow._src.ops.array.slicing import _slice_helper, newaxis  # noqa: F401
from trainflow._src.ops.sparse.sparse_ops import *  # noqa: F401,F403

__all__ = (["identity", "IndexedSlices", "IndexedSlicesValue", "SparseTensor",
            "SparseTensorValue", "newaxis"] +
           _cast.__all__ + _create.__all__ + _diag.__all__ + _gather.__all__ + _join.__all__ +
           _layout.__all__ + _shape.__all__ +
           [n for n in _slicing.__all__ if n != "newaxis"] + _sparse_ops.__all__)


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
            callable(getattr(input, "value")):
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
    from trainflow._src.ops.array.cast import cast
    out = []
    for v in values:
        if isinstance(v, Tensor) and v.dtype.base_dtype != dtype:
            v = cast(v, dtype)
        elif isinstance(v, (list, tuple)):
            v = _cast_nested(v, dtype)
        out.append(v)
    return out


def _pack_nested(values, dtype, name):
    from trainflow._src.framework.graph import get_default_graph
    from trainflow._src.framework.constant_op import constant
    graph = get_default_graph()
    for v in values:
        if isinstance(v, Tensor):
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
