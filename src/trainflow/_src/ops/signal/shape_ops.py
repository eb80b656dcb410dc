"""`tf.signal.frame` and `tf.signal.overlap_and_add`: a signal cut into (overlapping)
frames along an axis, and frames added back into a signal."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather as gather_ops
from trainflow._src.ops.array import join
from trainflow._src.ops.array import layout
from trainflow._src.ops.array import shape as shape_ops
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import segment

__all__ = ["frame", "overlap_and_add"]


def _static_int(t):
    value = constant_value(t)
    return None if value is None else int(value)


def _num_frames(length, frame_length, frame_step, pad_end):
    if pad_end:
        return -(-length // frame_step)
    return max(0, 1 + (length - frame_length) // frame_step)


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Frames of `frame_length` samples, `frame_step` apart, along `axis`: the axis
    becomes [num_frames, frame_length]. With `pad_end`, the end is padded with
    `pad_value` so that every sample is in a frame.

    Raises:
      ValueError: if frame_length, frame_step or axis is not a scalar, or signal is a
        scalar.
    """
    with name_scope(name, "frame", [signal, frame_length, frame_step, pad_value]):
        signal = convert_to_tensor(signal, name="signal")
        frame_length = convert_to_tensor(frame_length, name="frame_length")
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        axis = convert_to_tensor(axis, name="axis")
        signal.shape.with_rank_at_least(1)
        for t in (frame_length, frame_step, axis):
            t.shape.assert_has_rank(0)
        ndims = signal.shape.ndims
        if ndims is None:
            raise ValueError("frame needs a signal of known rank")
        ax = int(constant_value(axis)) % ndims
        dims = signal.shape.as_list()
        length_s, fl_s, fs_s = dims[ax], _static_int(frame_length), _static_int(frame_step)
        length = dims[ax] if dims[ax] is not None else shape_ops.shape(signal)[ax]
        if pad_end:
            frames = -(-length // frame_step)
            padded = (frames - 1) * frame_step + frame_length
            extra = arith.maximum(0, padded - length)
            paddings = join.stack([create.zeros([ndims], dtypes.int32), join.concat(
                [create.zeros([ax], dtypes.int32), [extra],
                 create.zeros([ndims - ax - 1], dtypes.int32)], 0)], 1)
            pad_value = convert_to_tensor(pad_value, signal.dtype, name="pad_value")
            signal = layout.pad(signal, paddings, constant_values=pad_value)
        else:
            frames = arith.maximum(0, 1 + (length - frame_length) // frame_step)
        starts = create.range(frames) * frame_step
        offsets = create.range(frame_length)
        indices = starts[:, None] + offsets[None, :]
        out = gather_ops.gather(signal, indices, axis=ax)
        if None not in (fl_s, fs_s):
            n = None if length_s is None else _num_frames(length_s, fl_s, fs_s, pad_end)
            out.set_shape(dims[:ax] + [n, fl_s] + dims[ax + 1:])
        return out


def overlap_and_add(signal, frame_step, name=None):
    """Adds the frames of [..., frames, frame_length] `signal`, `frame_step` apart, into
    a [..., output_size] signal, output_size = (frames - 1) * frame_step + frame_length.

    Raises:
      ValueError: if signal's rank is below 2 or frame_step is not an integer scalar.
    """
    with name_scope(name, "overlap_and_add", [signal, frame_step]):
        signal = convert_to_tensor(signal, name="signal")
        signal.shape.with_rank_at_least(2)
        frame_step = convert_to_tensor(frame_step, name="frame_step")
        frame_step.shape.assert_has_rank(0)
        if not frame_step.dtype.is_integer:
            raise ValueError(f"frame_step must be an integer. Got {frame_step.dtype}")
        ndims = signal.shape.ndims
        dims = signal.shape.as_list()
        shape = shape_ops.shape(signal)
        frames = dims[-2] if dims[-2] is not None else shape[-2]
        frame_length = dims[-1] if dims[-1] is not None else shape[-1]
        output_size = (frames - 1) * frame_step + frame_length
        perm = [ndims - 2, ndims - 1] + list(range(ndims - 2))
        moved = layout.transpose(signal, perm)
        flat = shape_ops.reshape(moved, join.concat([[-1], shape[:-2]], 0))
        ids = create.range(frames)[:, None] * frame_step + create.range(frame_length)[None, :]
        summed = segment.unsorted_segment_sum(flat, shape_ops.reshape(ids, [-1]),
                                              arith.maximum(output_size, 0))
        out = layout.transpose(summed, list(range(1, ndims - 1)) + [0])
        step = _static_int(frame_step)
        if None not in (dims[-2], dims[-1], step):
            out.set_shape(dims[:-2] + [max(0, (dims[-2] - 1) * step + dims[-1])])
        return out


del np
