"""Gradients of the joining and splitting ops (ConcatV2, Concat, Pack, Unpack, Split,
SplitV) and the ConcatOffset op that the concat gradient uses.

A concat's gradient is cut back into the inputs' pieces: ConcatOffset gives each
piece's start and Slice takes it (Split past 16 inputs). An IndexedSlices gradient
stays sparse: along axis 0 each input keeps the rows that fall in its range, along
another axis each input keeps every row and its columns of the values.

Imported at the end of `join`.
"""
import numpy as np

from trainflow._src.framework import dtypes, tensor_util
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.tensor import Tensor
from trainflow._src.ops.array.join import concat, split, stack, unstack
from trainflow._src.ops.array.shape_util import fmt_dims, invalid_argument
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import zeros
from trainflow._src.ops.array.gather import gather, where
from trainflow._src.ops.array.shape import expand_dims, rank, shape, shape_n, squeeze
from trainflow._src.ops.array.slicing import slice as slice_
from trainflow._src.ops.math import arith


# -- ConcatOffset ------------------------------------------------------------------------
def concat_offsets(concat_dim, shapes):
    """Where each of `shapes` (lists of ints) starts in their concatenation along
    `concat_dim`: one offset vector per shape, zero except along the axis.

    Raises:
      InvalidArgumentError: for an axis out of range or shapes that cannot be joined.
    """
    first = shapes[0]
    rank = len(first)
    axis = concat_dim + rank if concat_dim < 0 else concat_dim
    if not 0 <= axis < rank:
        raise invalid_argument(f"Concat dim is out of range: {concat_dim} vs. {rank}")
    offsets, start = [], 0
    for i, s in enumerate(shapes):
        if len(s) != rank:
            raise invalid_argument(f"input {i} should contain {rank} elements, but got "
                                   f"{len(s)}")
        if any(a != b for j, (a, b) in enumerate(zip(s, first)) if j != axis):
            raise invalid_argument(f"All dimensions except {axis} must match. Input {i} has "
                                   f"shape {fmt_dims(s)} and doesn't match input 0 with shape "
                                   f"{fmt_dims(first)}.")
        offset = [0] * rank
        offset[axis] = start
        offsets.append(offset)
        start += s[axis]
    return offsets


def _concat_offset_kernel(concat_dim, shape):
    for i, s in enumerate(shape):
        if s.ndim != 1:
            raise invalid_argument(f"input {i} should be a vector, got shape "
                                   f"{fmt_dims(s.shape)}")
    offsets = concat_offsets(int(concat_dim), [s.tolist() for s in shape])
    out = tuple(np.array(o, dtype=s.dtype) for o, s in zip(offsets, shape))
    return out[0] if len(out) == 1 else out


register_op("ConcatOffset", inputs=["concat_dim: int32", "shape: N * shape_type"],
            outputs=["offset: N * shape_type"],
            attrs=["N: int >= 2", "shape_type: {int32, int64} = DT_INT32"],
            shape_fn=lambda op: [t.shape for t in op.inputs[1:]],
            kernel=_concat_offset_kernel)
NotDifferentiable("ConcatOffset")


@tensor_util.register_constant_value("ConcatOffset")
def _concat_offset_value(op, index, partial):
    parts = [tensor_util.constant_value(t) for t in op.inputs]
    if any(p is None for p in parts):
        return None
    try:
        offsets = concat_offsets(int(parts[0]), [p.tolist() for p in parts[1:]])
    except Exception:  # noqa: BLE001 - a bad concat has no static offsets
        return None
    return np.array(offsets[index], dtype=parts[index + 1].dtype)


def concat_offset(concat_dim, shape, name=None):
    """The ConcatOffset op: the start of each input in a concatenation along `concat_dim`."""
    return apply_op("ConcatOffset", concat_dim=concat_dim, shape=list(shape),
                    name=name).outputs


# -- the concat gradient --------------------------------------------------------------------
def _input_shapes(values):
    """Each input's shape: constants when all are static, else one ShapeN op."""
    sizes = []
    for x in values:
        s = shape(x)
        if not isinstance(s, Tensor) or s.op.type != "Const":
            return shape_n(values)
        sizes.append(s)
    return sizes


def _dense_concat_grad(grad, values, concat_dim):
    non_neg_dim = concat_dim % rank(values[0])
    sizes = _input_shapes(values)
    if len(sizes) > 16:
        # One Split beats many Slices for long lists.
        sizes = squeeze(slice_(stack(sizes, axis=1), [non_neg_dim, 0], [1, -1]))
        return split(grad, sizes, non_neg_dim)
    offsets = concat_offset(non_neg_dim, sizes)
    return [slice_(grad, begin, size) for begin, size in zip(offsets, sizes)]


def _dense_mask_and_begin(sizes, concat_dim):
    """A vector with 1 at the concat axis and zeros elsewhere, and a zero vector."""
    shape_of_shape = shape(sizes[0])
    mask = concat([zeros(expand_dims(concat_dim, 0), dtype=dtypes.int32), [1],
                   zeros(shape_of_shape - concat_dim - 1, dtype=dtypes.int32)], 0)
    begin = zeros(shape_of_shape, dtype=dtypes.int32)
    return mask, begin


def _sparse_concat_grad(grad, values, concat_dim):
    """Per-input IndexedSlices gradients of an IndexedSlices `grad`.

    Raises:
      ValueError: if the concat axis (or, for a negative one, the rank) is not static.
    """
    non_neg_dim = concat_dim % rank(values[0])
    static_dim = tensor_util.constant_value(concat_dim)
    if static_dim is None:
        raise ValueError("Can only compute IndexedSlices gradient with statically-known "
                         f"concat_dim (op input {concat_dim.name})")
    static_dim = int(static_dim)
    if static_dim < 0:
        static_rank = tensor_util.constant_value(rank(values[0]))
        if static_rank is None:
            raise ValueError("Can only compute IndexedSlices gradient with negative concat_dim "
                             "when first value rank is statically-known.")
        static_dim %= int(static_rank)
    sizes = [shape(x) for x in values]
    out = []
    if static_dim > 0:
        mask, begin = _dense_mask_and_begin(sizes, non_neg_dim)
        for size in sizes:
            new_values = slice_(grad.values, begin, concat([[-1], slice_(size, [1], [-1])], 0))
            out.append(IndexedSlices(new_values, grad.indices, size))
            begin = arith.add(begin, size * mask)
        return out
    index_dtype = grad.indices.dtype.base_dtype
    start = constant(0, dtype=index_dtype)
    for size in sizes:
        size_concat_dim = gather(size, non_neg_dim)
        if size_concat_dim.dtype.base_dtype != index_dtype:
            size_concat_dim = cast(size_concat_dim, index_dtype)
        end = start + size_concat_dim
        selected = squeeze(where(arith.logical_and(grad.indices >= start,
                                                      grad.indices < end)), axis=[1])
        new_indices = gather(grad.indices, selected) - start
        new_values = gather(grad.values, selected)
        out.append(IndexedSlices(new_values, new_indices, size))
        start = end
    return out


def _concat_grad(op, grad, values, concat_dim, axis_last):
    if len(values) == 1:
        out = [grad]
    else:
        if concat_dim.dtype.base_dtype != dtypes.int32:
            concat_dim = cast(concat_dim, dtypes.int32)
        if isinstance(grad, Tensor):
            out = _dense_concat_grad(grad, values, concat_dim)
        elif isinstance(grad, IndexedSlices):
            out = _sparse_concat_grad(grad, values, concat_dim)
        else:
            raise TypeError(f"Expected Tensor or IndexedSlices, got {type(grad).__name__} "
                            f"(gradient of {op.name})")
    return out + [None] if axis_last else [None] + out


@RegisterGradient("ConcatV2")
def _concat_v2_grad(op, grad):
    return _concat_grad(op, grad, op.inputs[:-1], op.inputs[-1], axis_last=True)


@RegisterGradient("Concat")
def _concat_v1_grad(op, grad):
    return _concat_grad(op, grad, op.inputs[1:], op.inputs[0], axis_last=False)


# -- stacking and splitting ------------------------------------------------------------------
@RegisterGradient("Pack")
def _pack_grad(op, grad):
    return unstack(grad, num=op._attrs["N"], axis=op._attrs["axis"])


@RegisterGradient("Unpack")
def _unpack_grad(op, *grads):
    return stack(list(grads), axis=op._attrs["axis"])


@RegisterGradient("Split")
def _split_grad(op, *grads):
    return None, concat(list(grads), op.inputs[0])


@RegisterGradient("SplitV")
def _split_v_grad(op, *grads):
    return concat(list(grads), op.inputs[2]), None, None

