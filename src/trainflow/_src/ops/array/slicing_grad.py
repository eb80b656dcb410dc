"""Gradients of Slice and StridedSlice, and the StridedSliceGrad op.

Slice's gradient pads the incoming gradient with zeros back to the input's shape.
StridedSlice's gradient is a StridedSliceGrad op: zeros of the input's shape with
the gradient written into the slice's cells (a strided slice never picks a cell
twice, so writing is enough). The gradient of StridedSliceGrad is the same slice.

Imported at the end of `slicing`.
"""
import numpy as np

from trainflow._src.framework import tensor_util
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.array.shape_util import (
    as_index_list, dims_of, fmt_dims, invalid_argument, shape_from_shape_tensor, shape_of,
    with_rank)
from trainflow._src.ops.array.slicing import strided_slice, strided_slice_plan
from trainflow._src.ops.array.join import concat, stack
from trainflow._src.ops.array.layout import pad
from trainflow._src.ops.array.shape import rank, reshape, shape

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _mask_attrs(op):
    return {k: op._attrs[k] for k in _MASKS}


# -- StridedSliceGrad --------------------------------------------------------------------
def _strided_slice_grad_shape(op):
    with_rank(dims_of(op.inputs[0]), 1)
    return [shape_of(shape_from_shape_tensor(op.inputs[0]))]


_PLANS = {}  # (shape, spec, masks) -> (slice shape, index), as the forward kernel caches


def _grad_plan(dims, begin, end, strides, masks):
    key = (dims, begin.tobytes(), end.tobytes(), strides.tobytes(), begin.dtype, masks)
    plan = _PLANS.get(key)
    if plan is None:
        if not (begin.ndim == end.ndim == strides.ndim == 1 and
                begin.shape == end.shape == strides.shape):
            raise invalid_argument(
                "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                f"{fmt_dims(begin.shape)}, {fmt_dims(end.shape)}, and "
                f"{fmt_dims(strides.shape)} instead.")
        try:
            final, index = strided_slice_plan(dims, begin.tolist(), end.tolist(),
                                              strides.tolist(), *masks)
        except ValueError as e:
            raise invalid_argument(str(e)) from None
        plan = (tuple(final), index)
        if len(_PLANS) > 4096:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def _strided_slice_grad_kernel(shape, begin, end, strides, dy, *, begin_mask, end_mask,
                               ellipsis_mask, new_axis_mask, shrink_axis_mask):
    if shape.ndim != 1:
        raise invalid_argument(f"shape must be 1-D, got shape {fmt_dims(shape.shape)}")
    dims = tuple(as_index_list(shape))
    masks = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    final, index = _grad_plan(dims, begin, end, strides, masks)
    if dy.shape != final:
        raise invalid_argument(f"shape of dy was {fmt_dims(dy.shape)} instead of "
                               f"{fmt_dims(final)}")
    out = np.zeros(dims, dtype=dy.dtype)
    if dy.dtype == object:
        out.fill(b"")
    out[index] = dy.reshape(np.shape(out[index]))
    return out


register_op("StridedSliceGrad",
            inputs=["shape: Index", "begin: Index", "end: Index", "strides: Index", "dy: T"],
            outputs=["output: T"],
            attrs=["T: type", "Index: {int32, int64}", "begin_mask: int = 0",
                   "end_mask: int = 0", "ellipsis_mask: int = 0", "new_axis_mask: int = 0",
                   "shrink_axis_mask: int = 0"],
            shape_fn=_strided_slice_grad_shape, kernel=_strided_slice_grad_kernel)


def strided_slice_grad(shape, begin, end, strides, dy, name=None, **masks):
    """The StridedSliceGrad op: `dy` written into zeros of `shape` at the strided slice."""
    return apply_op("StridedSliceGrad", shape=shape, begin=begin, end=end, strides=strides,
                    dy=dy, name=name, **masks).outputs[0]


# -- gradients -------------------------------------------------------------------------------
@RegisterGradient("StridedSlice")
def _strided_slice_grad(op, grad):
    """Static shape and spec are passed as constants, so the result's shape is static."""
    begin, end, strides = op.inputs[1:4]
    parts = [shape(op.inputs[0], out_type=begin.dtype.base_dtype), begin, end, strides]
    parts = [_static_or_tensor(t) for t in parts]
    return (strided_slice_grad(*parts, grad, **_mask_attrs(op)), None, None, None)


def _static_or_tensor(t):
    value = tensor_util.constant_value(t)
    return t if value is None else value


@RegisterGradient("StridedSliceGrad")
def _strided_slice_grad_grad(op, grad):
    begin, end, strides = op.inputs[1:4]
    return None, None, None, None, strided_slice(grad, begin, end, strides, **_mask_attrs(op))


@RegisterGradient("Slice")
def _slice_grad(op, grad):
    """Pads the gradient with `begin` zeros before and the rest after, per dimension."""
    input_vec, begin_vec = op.inputs[0], op.inputs[1]
    index_dtype = begin_vec.dtype.base_dtype
    input_rank = rank(input_vec)
    slice_size = shape(op.outputs[0], out_type=index_dtype)
    pad_shape = stack([input_rank, 1])
    before_pad = reshape(begin_vec, pad_shape)
    after_pad = reshape(shape(input_vec, out_type=index_dtype) - slice_size - begin_vec,
                        pad_shape)
    paddings = concat([before_pad, after_pad], 1)
    return pad(grad, paddings), None, None
