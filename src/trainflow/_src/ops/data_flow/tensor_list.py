"""TensorList ops: immutable lists of tensors passed as `variant` values (TensorFlow 2's
list_ops), the storage of `tf.TensorArray`.

A list value is a `TensorListValue`: a tuple of element arrays (None for an
element never written), the element dtype and the (partially known) element
shape. Every op returns a new value, so the kernels are pure and a list can be a
`while_loop` variable like any tensor. A gradient that never reached a list is
a ZerosLike of it: any non-list value reads as a list of zeros of any length.
Gradients: `tensor_list_grad`.
"""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.ops.array.shape_util import invalid_argument, partial_shape_value
from trainflow._src.framework.tensor_util import constant_value


class TensorListValue:
    """The run-time value of a TensorList (a `variant` tensor)."""

    __slots__ = ("items", "element_dtype", "element_shape")
    # A variant value is a scalar of Python objects to shape- and dtype-generic kernels
    # (ZerosLike of a list is then an object scalar: a list of zeros).
    shape = ()
    dtype = np.dtype(object)
    ndim = 0

    def __init__(self, items, element_dtype, element_shape):
        self.items = tuple(items)
        self.element_dtype = np.dtype(element_dtype)
        self.element_shape = element_shape  # tuple of ints/-1, or None (unknown rank)

    def __len__(self):
        return len(self.items)

    def replace(self, items):
        return TensorListValue(items, self.element_dtype, self.element_shape)

    def __add__(self, other):
        # Gradient aggregation (AddN of two list gradients): element-wise sums.
        if not isinstance(other, TensorListValue):
            return self
        if len(other) != len(self):
            raise invalid_argument(f"Trying to add two lists of unequal lengths: {len(self)} "
                                   f"vs. {len(other)}")
        items = [b if a is None else a if b is None else a + b
                 for a, b in zip(self.items, other.items)]
        return self.replace(items)

    __radd__ = __add__

    def __repr__(self):
        return f"TensorListValue(len={len(self)}, dtype={self.element_dtype})"


def _shape_value(shape):
    """An element_shape input (-1 scalar = unknown rank; -1 entries = unknown dims)."""
    s = np.asarray(shape)
    if s.ndim == 0:
        return None if int(s) == -1 else ()
    return tuple(int(d) for d in s.reshape(-1))


def _merge(known, shape):
    if known is None:
        return tuple(shape)
    if len(known) != len(shape) or any(k not in (-1, d) for k, d in zip(known, shape)):
        raise invalid_argument(f"Incompatible shapes during merge: "
                               f"[{','.join(map(str, known))}] vs. "
                               f"[{','.join(map(str, shape))}]")
    return tuple(shape)


def _zeros_for(shape, dtype, what):
    if shape is None or any(d < 0 for d in shape):
        raise invalid_argument(f"Trying to read an uninitialized tensor with a not fully "
                               f"defined element_shape in {what}")
    return np.zeros(shape, dtype)


def _as_list(handle, element_dtype, element_shape=None):
    if isinstance(handle, TensorListValue):
        return handle
    # A ZerosLike of a list: no items, read as zeros.
    return TensorListValue((), element_dtype.as_numpy_dtype, element_shape)


def _element(lst, i, shape_hint, what):
    item = lst.items[i] if isinstance(lst, TensorListValue) and i < len(lst) else None
    if item is not None:
        return item
    shape = shape_hint
    if shape is None or any(d < 0 for d in shape):
        shape = lst.element_shape if lst.element_shape is not None else shape
    return _zeros_for(shape, lst.element_dtype, what)


def _read_shape(lst, hint):
    """The element shape for reading: `hint` (or the list's), completed as TF does from
    the initialized elements when not fully defined, so unwritten ones read as zeros."""
    shape = hint if hint is not None and all(d >= 0 for d in hint) else (
        lst.element_shape if isinstance(lst, TensorListValue) and
        lst.element_shape is not None else hint)
    if shape is not None and all(d >= 0 for d in shape):
        return shape
    for item in getattr(lst, "items", ()):
        if item is not None:
            return _merge(shape, np.shape(item))
    return shape


def _check_index(i, n, what):
    if i < 0 or i >= n:
        raise invalid_argument(f"{what}: index {i} out of range [0, {n})")


def _is_zero_list(handle):
    return not isinstance(handle, TensorListValue)


# -- kernels -------------------------------------------------------------------------------
def _reserve(element_shape, num_elements, *, element_dtype):
    n = int(num_elements)
    if n < 0:
        raise invalid_argument(f"The num_elements to reserve must be a non negative number, "
                               f"but got {n}")
    return TensorListValue((None,) * n, element_dtype.as_numpy_dtype,
                           _shape_value(element_shape))


def _empty(element_shape, max_num_elements, *, element_dtype):
    return TensorListValue((), element_dtype.as_numpy_dtype, _shape_value(element_shape))


def _from_tensor(tensor, element_shape, *, element_dtype):
    t = np.asarray(tensor)
    if t.ndim < 1:
        raise invalid_argument("Tensor must be at least a vector, but saw shape: []")
    known = _shape_value(element_shape)
    shape = _merge(known, t.shape[1:]) if known is not None else t.shape[1:]
    return TensorListValue([np.array(r) for r in t], t.dtype, shape)


def _set_item(input_handle, index, item, *, element_dtype, resize_if_index_out_of_bounds):
    i = int(index)
    item = np.asarray(item)
    if _is_zero_list(input_handle):
        if np.any(item):
            raise invalid_argument("TensorListSetItem: writing into a zero gradient list")
        return input_handle
    lst = input_handle
    items = list(lst.items)
    if i >= len(items):
        if not resize_if_index_out_of_bounds:
            raise invalid_argument(f"Trying to modify element {i} in a list with "
                                   f"{len(items)} elements.")
        items.extend([None] * (i + 1 - len(items)))
    if i < 0:
        raise invalid_argument(f"Trying to modify element {i} in a list with {len(items)} "
                               "elements.")
    shape = lst.element_shape
    if shape is not None:
        _merge(shape, item.shape)
    items[i] = item.astype(lst.element_dtype, copy=False)
    return TensorListValue(items, lst.element_dtype, shape)


def _get_item(input_handle, index, element_shape, *, element_dtype):
    lst = _as_list(input_handle, element_dtype)
    i = int(index)
    if not _is_zero_list(input_handle):
        _check_index(i, len(lst), "Trying to access element")
    return _element(lst, i, _shape_value(element_shape), "TensorListGetItem")


def _stack(input_handle, element_shape, *, element_dtype, num_elements):
    lst = _as_list(input_handle, element_dtype)
    hint = _shape_value(element_shape)
    if num_elements != -1 and len(lst) != num_elements and not _is_zero_list(input_handle):
        raise invalid_argument(f"Operation expected a list with {num_elements} elements but "
                               f"got a list with {len(lst)} elements.")
    n = len(lst) if not _is_zero_list(input_handle) else max(num_elements, 0)
    if n == 0:
        shape = hint if hint is not None else lst.element_shape
        return np.zeros((0,) + tuple(_zeros_for(shape, lst.element_dtype,
                                                "TensorListStack").shape), lst.element_dtype)
    hint = _read_shape(lst, hint)
    rows = [_element(lst, i, hint, "TensorListStack") for i in range(n)]
    return np.stack(rows).astype(lst.element_dtype, copy=False)


def _gather(input_handle, indices, element_shape, *, element_dtype):
    lst = _as_list(input_handle, element_dtype)
    hint = _shape_value(element_shape)
    idx = [int(i) for i in np.asarray(indices).reshape(-1)]
    if not _is_zero_list(input_handle):
        for i in idx:
            _check_index(i, len(lst), "TensorListGather")
    if not idx:
        return np.zeros((0,) + _zeros_for(hint if hint is not None else lst.element_shape,
                                          lst.element_dtype, "TensorListGather").shape,
                        lst.element_dtype)
    hint = _read_shape(lst, hint)
    rows = [_element(lst, i, hint, "TensorListGather") for i in idx]
    return np.stack(rows).reshape(np.shape(indices) + rows[0].shape)


def _scatter_into(input_handle, tensor, indices, *, element_dtype):
    t = np.asarray(tensor)
    idx = [int(i) for i in np.asarray(indices).reshape(-1)]
    if len(idx) != (t.shape[0] if t.ndim else 0):
        raise invalid_argument(f"Invalid number of rows in input tensor. Expected: {len(idx)} "
                               f"Actual: {t.shape[0] if t.ndim else 0}")
    if _is_zero_list(input_handle):
        if np.any(t):
            raise invalid_argument("TensorListScatter: writing into a zero gradient list")
        return input_handle
    items = list(input_handle.items)
    for row, i in zip(t, idx):
        if i < 0:
            raise invalid_argument(f"Indices in TensorListScatter must all be non-negative. "
                                   f"Got {i}")
        if i >= len(items):
            items.extend([None] * (i + 1 - len(items)))
        items[i] = np.array(row)
    shape = input_handle.element_shape
    if shape is not None and t.ndim:
        shape = _merge(shape, t.shape[1:])
    return TensorListValue(items, input_handle.element_dtype, shape)


def _scatter_v2(tensor, indices, element_shape, num_elements, *, element_dtype):
    t = np.asarray(tensor)
    idx = [int(i) for i in np.asarray(indices).reshape(-1)]
    n = max(int(num_elements), max(idx) + 1 if idx else 0)
    base = TensorListValue((None,) * n, t.dtype, _shape_value(element_shape))
    return _scatter_into(base, t, indices, element_dtype=element_dtype)


def _split(tensor, element_shape, lengths):
    t = np.asarray(tensor)
    if t.ndim < 1:
        raise invalid_argument("Tensor must be at least a vector, but saw shape: []")
    sizes = [int(v) for v in np.asarray(lengths).reshape(-1)]
    if sum(sizes) != t.shape[0]:
        raise invalid_argument(f"Unable to split tensor of shape {list(t.shape)} into pieces "
                               f"of lengths {sizes}: the lengths sum to {sum(sizes)}")
    bounds = np.cumsum([0] + sizes)
    items = [t[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    shape = _shape_value(element_shape)
    return TensorListValue(items, t.dtype, None if shape is None else (-1,) + tuple(shape[1:]))


def _concat_v2(input_handle, element_shape, leading_dims, *, element_dtype):
    lst = _as_list(input_handle, element_dtype)
    if _is_zero_list(input_handle):
        sizes = [int(v) for v in np.asarray(leading_dims).reshape(-1)]
        hint = _shape_value(element_shape)
        rows = [np.zeros((n,) + tuple(hint[1:]), lst.element_dtype) for n in sizes]
    else:
        sizes = [int(v) for v in np.asarray(leading_dims).reshape(-1)]
        hint = _shape_value(element_shape)
        rows = []
        for i, item in enumerate(lst.items):
            if item is None:
                # Unwritten: zeros, when leading_dims and the element shape say how many.
                if len(sizes) != len(lst) or hint is None or any(d < 0 for d in hint[1:]):
                    raise invalid_argument(f"TensorListConcat: element {i} was never written")
                item = np.zeros((sizes[i],) + tuple(hint[1:]), lst.element_dtype)
            rows.append(item)
    if not rows:
        hint = _shape_value(element_shape)
        return (np.zeros((0,) + tuple(hint[1:] if hint else ()), lst.element_dtype),
                np.zeros((0,), np.int64))
    lengths = np.array([r.shape[0] for r in rows], np.int64)
    return np.concatenate(rows).astype(lst.element_dtype, copy=False), lengths


def _push_back(input_handle, tensor, *, element_dtype):
    t = np.asarray(tensor)
    if _is_zero_list(input_handle):
        if np.any(t):
            raise invalid_argument("TensorListPushBack: pushing onto a zero gradient list")
        return input_handle
    shape = input_handle.element_shape
    if shape is not None:
        _merge(shape, t.shape)
    return input_handle.replace(input_handle.items + (t.astype(input_handle.element_dtype),))


def _pop_back(input_handle, element_shape, *, element_dtype):
    hint = _shape_value(element_shape)
    if _is_zero_list(input_handle):
        return input_handle, _zeros_for(hint, element_dtype.as_numpy_dtype,
                                        "TensorListPopBack")
    if not len(input_handle):
        raise invalid_argument("Trying to pop from an empty list.")
    item = _element(input_handle, len(input_handle) - 1, hint, "TensorListPopBack")
    return input_handle.replace(input_handle.items[:-1]), item


def _length(input_handle):
    if _is_zero_list(input_handle):
        raise invalid_argument("TensorListLength of a zero gradient list")
    return np.int32(len(input_handle))


def _element_shape(input_handle, *, shape_type):
    shape = input_handle.element_shape if isinstance(input_handle, TensorListValue) else None
    if shape is None:
        return np.array(-1, shape_type.as_numpy_dtype)
    return np.array(shape, shape_type.as_numpy_dtype)


# -- shape functions -----------------------------------------------------------------------
def _scalar(op):
    return [TensorShape([])]


def element_shape_of(tensor):
    """The static element shape named by an element_shape input (a TensorShape)."""
    value = constant_value(tensor)
    if value is not None and np.ndim(value) == 0:
        return unknown_shape() if int(value) == -1 else TensorShape([])
    dims = partial_shape_value(tensor)
    return unknown_shape() if dims is None else TensorShape(list(dims))


def _element_read_shape(op):
    return [element_shape_of(op.inputs[2])]


def _stack_shape(op):
    shape = element_shape_of(op.inputs[1])
    n = op._attrs.get("num_elements", -1)
    if shape.rank is None:
        return [unknown_shape()]
    return [TensorShape([None if n == -1 else n] + shape.as_list())]


def _gather_shape(op):
    shape = element_shape_of(op.inputs[2])
    idx = op.inputs[1].shape
    if shape.rank is None or idx.rank is None:
        return [unknown_shape()]
    return [TensorShape(idx.as_list() + shape.as_list())]


def _concat_shape(op):
    shape = element_shape_of(op.inputs[1])
    if shape.rank is None:
        return [unknown_shape(), TensorShape([None])]
    return [TensorShape([None] + shape.as_list()[1:]), TensorShape([None])]


_DT = "element_dtype: type"
_ST = "shape_type: {int32, int64}"
register_op("TensorListReserve", inputs=["element_shape: shape_type", "num_elements: int32"],
            outputs=["handle: variant"], attrs=[_DT, _ST], shape_fn=_scalar, kernel=_reserve)
register_op("EmptyTensorList", inputs=["element_shape: shape_type",
                                       "max_num_elements: int32"],
            outputs=["handle: variant"], attrs=[_DT, _ST], shape_fn=_scalar, kernel=_empty)
register_op("TensorListFromTensor", inputs=["tensor: element_dtype",
                                            "element_shape: shape_type"],
            outputs=["output_handle: variant"], attrs=[_DT, _ST], shape_fn=_scalar,
            kernel=_from_tensor)
register_op("TensorListSetItem", inputs=["input_handle: variant", "index: int32",
                                         "item: element_dtype"],
            outputs=["output_handle: variant"],
            attrs=[_DT, "resize_if_index_out_of_bounds: bool = false"], shape_fn=_scalar,
            kernel=_set_item)
register_op("TensorListGetItem", inputs=["input_handle: variant", "index: int32",
                                         "element_shape: int32"],
            outputs=["item: element_dtype"], attrs=[_DT], shape_fn=_element_read_shape,
            kernel=_get_item)
register_op("TensorListStack", inputs=["input_handle: variant", "element_shape: int32"],
            outputs=["tensor: element_dtype"], attrs=[_DT, "num_elements: int = -1"],
            shape_fn=_stack_shape, kernel=_stack)
register_op("TensorListGather", inputs=["input_handle: variant", "indices: int32",
                                        "element_shape: int32"],
            outputs=["values: element_dtype"], attrs=[_DT], shape_fn=_gather_shape,
            kernel=_gather)
register_op("TensorListScatterIntoExistingList",
            inputs=["input_handle: variant", "tensor: element_dtype", "indices: int32"],
            outputs=["output_handle: variant"], attrs=[_DT], shape_fn=_scalar,
            kernel=_scatter_into)
register_op("TensorListScatterV2", inputs=["tensor: element_dtype", "indices: int32",
                                           "element_shape: shape_type",
                                           "num_elements: int32"],
            outputs=["output_handle: variant"], attrs=[_DT, _ST], shape_fn=_scalar,
            kernel=_scatter_v2)
register_op("TensorListSplit", inputs=["tensor: element_dtype", "element_shape: shape_type",
                                       "lengths: int64"],
            outputs=["output_handle: variant"], attrs=[_DT, _ST], shape_fn=_scalar,
            kernel=_split)
register_op("TensorListConcatV2", inputs=["input_handle: variant",
                                          "element_shape: shape_type",
                                          "leading_dims: int64"],
            outputs=["tensor: element_dtype", "lengths: int64"], attrs=[_DT, _ST],
            shape_fn=_concat_shape, kernel=_concat_v2)
register_op("TensorListPushBack", inputs=["input_handle: variant", "tensor: element_dtype"],
            outputs=["output_handle: variant"], attrs=[_DT], shape_fn=_scalar,
            kernel=_push_back)
register_op("TensorListPopBack", inputs=["input_handle: variant", "element_shape: int32"],
            outputs=["output_handle: variant", "tensor: element_dtype"], attrs=[_DT],
            shape_fn=lambda op: [TensorShape([]), element_shape_of(op.inputs[1])],
            kernel=_pop_back)
register_op("TensorListLength", inputs=["input_handle: variant"], outputs=["length: int32"],
            shape_fn=_scalar, kernel=_length)
register_op("TensorListElementShape", inputs=["input_handle: variant"],
            outputs=["element_shape: shape_type"], attrs=[_ST],
            shape_fn=lambda op: [unknown_shape()], kernel=_element_shape)
for _op_type in ("TensorListLength", "TensorListElementShape", "TensorListReserve",
                 "EmptyTensorList"):
    NotDifferentiable(_op_type)

VARIANT = dtypes.variant
