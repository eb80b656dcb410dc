"""Slicing: Slice, StridedSlice (all five masks) and `Tensor.__getitem__`. Their
gradients (and the StridedSliceGrad op) are in `slicing_grad`."""
import builtins
import numbers

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework import tensor_util
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import Dimension
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, fmt_dims, invalid_argument, merge_dims, partial_shape_value, shape_of,
    static_value, with_rank)
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import _get_graph_from_inputs
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.create import ones_like
from trainflow._src.ops.array.gather import boolean_mask
from trainflow._src.ops.array.join import stack

__all__ = ["slice", "strided_slice", "newaxis"]

newaxis = None
_NEW_AXIS = -1
_PySlice = builtins.slice  # this module defines tf.slice
_SHRINK_AXIS = -2


# -- the strided-slice specification -------------------------------------------------
class _DenseSpec:
    """One slice spec expanded to every input dimension (ellipsis resolved)."""

    __slots__ = ("begin", "end", "strides", "begin_mask", "end_mask", "shrink_mask",
                 "final_gather")

    def __init__(self, rank):
        self.begin = [0] * rank
        self.end = [0] * rank
        self.strides = [1] * rank
        self.begin_mask = self.end_mask = self.shrink_mask = 0
        self.final_gather = []


def _dense_spec(rank, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                shrink_axis_mask):
    """Expands a sparse spec (the op's inputs and masks) over `rank` input dims."""
    if ellipsis_mask & (ellipsis_mask - 1):
        raise ValueError("Multiple ellipses in slice spec not allowed")
    n = len(strides)
    after_ellipsis = 0
    seen = False
    for i in range(n):
        if seen and (new_axis_mask >> i) & 1:
            after_ellipsis += 1
        if (ellipsis_mask >> i) & 1:
            seen = True
    if not seen:
        ellipsis_mask |= 1 << n
        n += 1
    dense = _DenseSpec(rank)
    full = 0
    for i in range(n):
        bit = 1 << i
        if ellipsis_mask & bit:
            stop = min(rank - (n - i) + 1 + after_ellipsis, rank)
            while full < stop:
                dense.begin_mask |= 1 << full
                dense.end_mask |= 1 << full
                dense.final_gather.append(full)
                full += 1
        elif new_axis_mask & bit:
            dense.final_gather.append(_NEW_AXIS)
        else:
            if full == rank:
                raise ValueError(f"Index out of range using input dim {full}; input has only "
                                 f"{rank} dims")
            if begin is not None:
                dense.begin[full] = begin[i]
                dense.end[full] = end[i]
            dense.strides[full] = strides[i]
            if begin_mask & bit:
                dense.begin_mask |= 1 << full
            if end_mask & bit:
                dense.end_mask |= 1 << full
            if shrink_axis_mask & bit:
                dense.final_gather.append(_SHRINK_AXIS)
                dense.shrink_mask |= 1 << full
            else:
                dense.final_gather.append(full)
            full += 1
    return dense


def strided_slice_plan(dims, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                       new_axis_mask=0, shrink_axis_mask=0):
    """Validates a strided slice and computes its result (TF's ValidateStridedSliceOp).

    Args:
      dims: the input dims (ints, or None for unknown sizes).
      begin, end: lists of ints, or None when their values are unknown.
      strides: list of ints.
      *_mask: the op's mask attrs.

    Returns:
      (final_dims, index): the output dims (None where unknown) and, when every
      input size and begin/end are known, a tuple of slices and ints that NumPy
      indexing applies (else None).

    Raises:
      ValueError: with TF's messages for bad specs.
    """
    dense = _dense_spec(len(dims), begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                        new_axis_mask, shrink_axis_mask)
    known = begin is not None
    processing = []
    index = [] if known else None
    for i, dim in enumerate(dims):
        stride = dense.strides[i]
        if stride == 0:
            raise ValueError(f"strides[{i}] must be non-zero")
        shrink = (dense.shrink_mask >> i) & 1
        if dim is None:
            processing.append(1 if shrink else None)
            index = None
            continue
        b_masked = (dense.begin_mask >> i) & 1
        e_masked = (dense.end_mask >> i) & 1
        if shrink and stride <= 0:
            raise ValueError("only stride 1 allowed on non-range indexing.")
        if known:
            b, e = dense.begin[i], dense.end[i]
            if shrink:
                b = b + dim if b < 0 else b
                if b < 0 or b >= dim:
                    raise ValueError(f"slice index {b} of dimension {i} out of bounds.")
                e = b + 1
            else:
                lo, hi = (0, dim) if stride > 0 else (-1, dim - 1)
                b = (lo if stride > 0 else hi) if b_masked else min(max(b + dim if b < 0 else b,
                                                                        lo), hi)
                e = (hi if stride > 0 else lo) if e_masked else min(max(e + dim if e < 0 else e,
                                                                        lo), hi)
            length = e - b
        elif shrink:
            length = 1
        elif b_masked and e_masked:
            length = dim if stride > 0 else -dim
        else:
            processing.append(None)
            index = None
            continue
        if length == 0 or (length < 0) != (stride < 0):
            size = 0
        else:
            size = length // stride + (length % stride != 0)
        processing.append(size)
        if index is not None:
            if shrink:
                index.append(b)
            elif size == 0:
                index.append(_PySlice(0, 0))
            else:
                index.append(_PySlice(b, e if e >= 0 else None, stride))
    final = []
    for g in dense.final_gather:
        if g >= 0:
            final.append(processing[g])
        elif g == _NEW_AXIS:
            final.append(1)
    return final, (None if index is None else tuple(index))


def _masks(op):
    a = op._attrs
    return dict(begin_mask=a["begin_mask"], end_mask=a["end_mask"],
                ellipsis_mask=a["ellipsis_mask"], new_axis_mask=a["new_axis_mask"],
                shrink_axis_mask=a["shrink_axis_mask"])


def _strided_slice_shape(op):
    x, b, e, s = (dims_of(t) for t in op.inputs)
    spec = merge_dims(merge_dims(with_rank(b, 1), with_rank(e, 1)), with_rank(s, 1))
    strides = static_value(op.inputs[3])
    if x is None or spec[0] is None or strides is None:
        return [UNKNOWN]
    begin = static_value(op.inputs[1])
    end = static_value(op.inputs[2])
    if begin is None or end is None:
        begin = end = None
    else:
        begin, end = begin.tolist(), end.tolist()
    final, _ = strided_slice_plan(x, begin, end, strides.tolist(), **_masks(op))
    return [shape_of(final)]


_PLANS = {}  # (shape, spec, masks) -> (final shape, index); a step reuses its plans


def _strided_slice_kernel(x, begin, end, strides, *, begin_mask, end_mask, ellipsis_mask,
                          new_axis_mask, shrink_axis_mask):
    key = (x.shape, begin.shape, begin.tobytes(), end.tobytes(), strides.tobytes(), begin.dtype,
           begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _plan_for_kernel(x, begin, end, strides, begin_mask, end_mask, ellipsis_mask,
                                new_axis_mask, shrink_axis_mask)
        if len(_PLANS) > 4096:
            _PLANS.clear()
        _PLANS[key] = plan
    final, index = plan
    out = x[index]
    if not isinstance(out, np.ndarray):
        out = np.asarray(out)
    if out.shape != final:
        out = out.reshape(final)
    return out


def _plan_for_kernel(x, begin, end, strides, begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                     shrink_axis_mask):
    if not (begin.ndim == end.ndim == strides.ndim == 1 and
            begin.shape == end.shape == strides.shape):
        raise invalid_argument(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"{fmt_dims(begin.shape)}, {fmt_dims(end.shape)}, and {fmt_dims(strides.shape)} "
            "instead.")
    try:
        final, index = strided_slice_plan(x.shape, begin.tolist(), end.tolist(),
                                          strides.tolist(), begin_mask, end_mask, ellipsis_mask,
                                          new_axis_mask, shrink_axis_mask)
    except ValueError as e:
        raise invalid_argument(str(e)) from None
    return tuple(final), index


register_op("StridedSlice", inputs=["input: T", "begin: Index", "end: Index", "strides: Index"],
            outputs=["output: T"],
            attrs=["T: type", "Index: {int16, int32, int64}", "begin_mask: int = 0",
                   "end_mask: int = 0", "ellipsis_mask: int = 0", "new_axis_mask: int = 0",
                   "shrink_axis_mask: int = 0"],
            shape_fn=_strided_slice_shape, kernel=_strided_slice_kernel,
            output_aliases_input=True)


def slice_partial_vector(op, values):
    """Applies StridedSlice `op` to a vector whose elements are `values` (ints or None).

    Returns:
      the selected elements as a tuple, or None when the slice is not a static
      1-D slice of a vector.
    """
    spec = [static_value(t) for t in op.inputs[1:]]
    if any(v is None for v in spec):
        return None
    try:
        final, index = strided_slice_plan((len(values),), *(v.tolist() for v in spec),
                                          **_masks(op))
    except ValueError:
        return None
    if len(final) != 1 or index is None:
        return None
    return tuple(np.asarray(values, dtype=object)[index].tolist())


@tensor_util.register_partial_shape("StridedSlice")
def _strided_slice_partial_shape(op, partial_shape_value):
    part = partial_shape_value(op.inputs[0])
    return None if part is None else slice_partial_vector(op, part)


@tensor_util.register_constant_value("StridedSlice")
def _strided_slice_value(op, index, partial):
    spec = [static_value(t) for t in op.inputs[1:]]
    if any(v is None for v in spec):
        return None
    source = op.inputs[0]
    value = static_value(source)
    if value is not None:
        try:
            return _strided_slice_kernel(value, *spec, **_masks(op))
        except Exception:  # noqa: BLE001 - a bad slice just has no static value
            return None
    # The slice of a partially known shape vector is static if it picks known sizes only.
    src_dims = dims_of(source)
    if src_dims is None or len(src_dims) != 1 or not source.dtype.is_integer:
        return None
    part = partial_shape_value(source)
    if part is None:
        return None
    try:
        final, idx = strided_slice_plan((len(part),), *(v.tolist() for v in spec),
                                        **_masks(op))
    except ValueError:
        return None
    if idx is None:
        return None
    picked = np.asarray(part, dtype=object)[idx]
    flat = np.asarray(picked).reshape(-1).tolist()
    if any(v is None for v in flat):
        return None
    return np.array(flat, dtype=source.dtype.base_dtype.as_numpy_dtype).reshape(final)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """Extracts a strided slice of a tensor (`tf.strided_slice`).

    Args:
      input_: the tensor to slice.
      begin, end, strides: 1-D int tensors of equal length (strides defaults to ones).
      begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask: bit
        masks with TensorFlow's meaning.
      var: unused here (variables slice through their own helper).
      name: op name.

    Returns:
      the sliced Tensor.
    """
    del var
    if strides is None:
        strides = ones_like(begin)
    return apply_op("StridedSlice", input=input_, begin=begin, end=end, strides=strides,
                    begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                    new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask,
                    name=name).outputs[0]


# -- Slice ---------------------------------------------------------------------------
def _slice_shape(op):
    x = dims_of(op.inputs[0])
    b = with_rank(dims_of(op.inputs[1]), 1)
    s = with_rank(dims_of(op.inputs[2]), 1)
    n = merge_dims(b, s)[0]
    if x is not None:
        if n is not None and n != len(x):
            raise ValueError(f"Shape must be rank {n} but is rank {len(x)}")
        n = len(x)
    begin = partial_shape_value(op.inputs[1]) if n is not None else None
    sizes = static_value(op.inputs[2])
    if sizes is not None:
        sizes = sizes.reshape(-1).tolist()
        x = with_rank(x, len(sizes))
        out = []
        for i, size in enumerate(sizes):
            if size == -1:
                b_i = None if begin is None else begin[i]
                out.append(None if x[i] is None or b_i is None else x[i] - b_i)
            elif size < -1:
                raise ValueError(f"Invalid value in tensor used for shape: {size}")
            else:
                out.append(size)
        return [shape_of(out)]
    if n is None:
        return [UNKNOWN]
    part = partial_shape_value(op.inputs[2])
    return [shape_of(part if part is not None and len(part) == n else (None,) * n)]


def _slice_kernel(x, begin, size):
    rank = x.ndim
    if begin.ndim != 1 or size.ndim != 1 or begin.size != rank or size.size != rank:
        raise invalid_argument(
            f"Expected begin and size arguments to be 1-D tensors of size {rank}, but got "
            f"shapes {fmt_dims(begin.shape)} and {fmt_dims(size.shape)} instead.")
    index = []
    for i, (b, s) in enumerate(zip(begin.tolist(), size.tolist())):
        dim = x.shape[i]
        if s == -1:
            s = dim - b
        if not 0 <= b <= dim:
            raise invalid_argument(f"Expected begin[{i}] in [0, {dim}], but got {b}")
        if not 0 <= s <= dim - b:
            raise invalid_argument(f"Expected size[{i}] in [0, {dim - b}], but got {s}")
        index.append(_PySlice(b, b + s))
    return x[tuple(index)]


register_op("Slice", inputs=["input: T", "begin: Index", "size: Index"], outputs=["output: T"],
            attrs=["T: type", "Index: {int32, int64}"], shape_fn=_slice_shape,
            kernel=_slice_kernel, output_aliases_input=True)


def slice(input_, begin, size, name=None):  # noqa: A001 - TF's name
    """Extracts `size` elements starting at `begin` (`tf.slice`); a size of -1 takes
    everything to the end of that dimension."""
    return apply_op("Slice", input=input_, begin=begin, size=size, name=name).outputs[0]


# -- Tensor.__getitem__ --------------------------------------------------------------------
_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")
_INDEX_DTYPES = (dtypes.int16, dtypes.int32, dtypes.int64)


def _check_index(idx):
    if isinstance(idx, (numbers.Integral, Dimension)):
        return
    dtype = getattr(idx, "dtype", None)
    bad = dtype is None
    if not bad:
        try:
            bad = dtypes.as_dtype(dtype).base_dtype not in _INDEX_DTYPES
        except TypeError:
            bad = True
    if not bad:
        shape = idx.shape
        rank = shape.rank if hasattr(shape, "rank") else len(shape)
        bad = rank is not None and rank == 1
    if bad:
        raise TypeError(_SLICE_TYPE_ERROR + f", got {idx!r}")


def _undefined_dim(d):
    return isinstance(d, Dimension) and d.value is None


def _int_or_tensor(v):
    if isinstance(v, Dimension):
        return v.value
    if isinstance(v, (np.integer, numbers.Integral)) and not isinstance(v, bool):
        return int(v)
    return v


def _const(value, dtype):
    return constant(value, dtype=dtype)


def _slice_helper(tensor, slice_spec, var=None):
    """`tensor[slice_spec]` as TensorFlow builds it: one StridedSlice op.

    Raises:
      TypeError: for index types other than ints, slices, Ellipsis, None and
        scalar int tensors.
    """
    tensor = convert_to_tensor(tensor)
    if isinstance(slice_spec, bool) or \
            (isinstance(slice_spec, Tensor) and slice_spec.dtype.base_dtype == dtypes.bool) or \
            (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool):
        return boolean_mask(tensor=tensor, mask=slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    begin_mask = end_mask = ellipsis_mask = new_axis_mask = shrink_axis_mask = 0
    for index, s in enumerate(slice_spec):
        bit = 1 << index
        if isinstance(s, type(Ellipsis)):
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= bit
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= bit
        elif isinstance(s, _PySlice):
            # Missing parts take the dtype of the tensors among start/stop/step.
            dtype = None
            for t in (s.start, s.stop, s.step):
                if isinstance(t, Tensor):
                    kind = t.dtype.base_dtype
                    if kind == dtypes.int64:
                        dtype = dtypes.int64
                    elif kind == dtypes.int32 and dtype != dtypes.int64:
                        dtype = dtypes.int32
                    elif kind == dtypes.int16 and dtype is None:
                        dtype = dtypes.int16
            for part, default, out, mask_name in ((s.start, 0, begin, "begin"),
                                                  (s.stop, 0, end, "end"),
                                                  (s.step, 1, strides, None)):
                if part is not None and not _undefined_dim(part):
                    _check_index(part)
                    out.append(_int_or_tensor(part))
                    continue
                out.append(default if dtype is None else _const(default, dtype))
                if mask_name == "begin":
                    begin_mask |= bit
                elif mask_name == "end":
                    end_mask |= bit
        else:
            _check_index(s)
            s = _int_or_tensor(s)
            begin.append(s)
            end.append(s + 1)
            if isinstance(s, Tensor) and s.dtype.base_dtype in (dtypes.int16, dtypes.int64):
                strides.append(_const(1, s.dtype.base_dtype))
            else:
                strides.append(1)
            shrink_axis_mask |= bit
    graph = _get_graph_from_inputs([tensor])  # inside a function body: that body's graph
    with graph.as_default(), graph.name_scope("strided_slice") as name:
        if begin:
            packed = [stack(begin), stack(end), stack(strides)]
            if any(p.dtype.base_dtype == dtypes.int64 for p in packed):
                packed = [p if p.dtype.base_dtype == dtypes.int64 else
                          apply_op("Cast", x=p, DstT=dtypes.int64).outputs[0] for p in packed]
        else:
            empty = constant([], dtype=dtypes.int32)
            packed = [empty, empty, empty]
        return strided_slice(tensor, packed[0], packed[1], packed[2], begin_mask=begin_mask,
                             end_mask=end_mask, shrink_axis_mask=shrink_axis_mask,
                             new_axis_mask=new_axis_mask, ellipsis_mask=ellipsis_mask, var=var,
                             name=name)


Tensor._override_operator("__getitem__", _slice_helper)
