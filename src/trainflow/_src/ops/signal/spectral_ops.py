"""Short-time transforms: `stft`, `inverse_stft` (+ `inverse_stft_window_fn`), `mdct`,
`inverse_mdct`, built from frame / window / RFFT / DCT-IV / overlap_and_add."""
import numpy as np

from trainflow._src.framework import constant_op
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array import cast as cast_ops
from trainflow._src.ops.array import create
from trainflow._src.ops.array import join
from trainflow._src.ops.array import layout
from trainflow._src.ops.array import shape as shape_ops
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions
from trainflow._src.ops.signal import dct_ops
from trainflow._src.ops.signal import fft_ops
from trainflow._src.ops.signal import shape_ops as signal_shape
from trainflow._src.ops.signal import window_ops

__all__ = ["stft", "inverse_stft", "inverse_stft_window_fn", "mdct", "inverse_mdct"]


def _enclosing_power_of_two(value):
    static = constant_value(value)
    if static is not None:
        return constant_op.constant(int(2 ** np.ceil(np.log(static) / np.log(2.0))),
                                    value.dtype)
    exponent = arith.ceil(arith.log(cast_ops.cast(value, dtypes.float32)) / np.log(2.0))
    return cast_ops.cast(arith.pow(2.0, exponent), value.dtype)


def _scalar(value, name):
    value = convert_to_tensor(value, name=name)
    value.shape.assert_has_rank(0)
    return value


def stft(signals, frame_length, frame_step, fft_length=None,
         window_fn=window_ops.hann_window, pad_end=False, name=None):
    """The short-time Fourier transform of [..., samples] real signals:
    [..., frames, fft_length // 2 + 1] (fft_length defaults to the power of two
    enclosing frame_length)."""
    with name_scope(name, "stft", [signals, frame_length, frame_step]):
        signals = convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length = _scalar(frame_length, "frame_length")
        frame_step = _scalar(frame_step, "frame_step")
        if fft_length is None:
            fft_length = _enclosing_power_of_two(frame_length)
        else:
            fft_length = convert_to_tensor(fft_length, name="fft_length")
        framed = signal_shape.frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed *= window_fn(frame_length, dtype=framed.dtype)
        return fft_ops.rfft(framed, [fft_length])


def inverse_stft_window_fn(frame_step, forward_window_fn=window_ops.hann_window, name=None):
    """A window_fn for `inverse_stft` that inverts `stft` with `forward_window_fn`
    (Griffin and Lim's equation 7: the window over the overlapped sum of its squares)."""
    def inverse_stft_window_fn_inner(frame_length, dtype):
        with name_scope(name, "inverse_stft_window_fn", [forward_window_fn]):
            step = _scalar(frame_step, "frame_step")
            length = _scalar(frame_length, "frame_length")
            forward = forward_window_fn(length, dtype=dtype)
            denom = arith.square(forward)
            overlaps = -(-length // step)
            denom = layout.pad(denom, [(0, overlaps * step - length)])
            denom = shape_ops.reshape(denom, [overlaps, step])
            denom = reductions.reduce_sum(denom, 0, keepdims=True)
            denom = layout.tile(denom, [overlaps, 1])
            denom = shape_ops.reshape(denom, [overlaps * step])
            return forward / denom[:length]
    return inverse_stft_window_fn_inner


def _fit_frames(real_frames, frame_length):
    """real_frames cut or zero-padded in the last axis to frame_length."""
    static = constant_value(frame_length)
    dims = real_frames.shape.as_list() if real_frames.shape.rank is not None else None
    if static is None or dims is None or dims[-1] is None:
        real_frames = real_frames[..., :frame_length]
        rank = shape_ops.rank(real_frames)
        shape = shape_ops.shape(real_frames)
        paddings = join.concat([create.zeros([rank - 1, 2], dtype=frame_length.dtype),
                                [[0, arith.maximum(0, frame_length - shape[-1])]]], 0)
        real_frames = layout.pad(real_frames, paddings)
    elif dims[-1] > static:
        real_frames = real_frames[..., :int(static)]
    elif dims[-1] < static:
        real_frames = layout.pad(real_frames, [[0, 0]] * (len(dims) - 1)
                                 + [[0, int(static) - dims[-1]]])
    if static is not None and real_frames.shape.ndims is not None:
        real_frames.set_shape([None] * (real_frames.shape.ndims - 1) + [int(static)])
    return real_frames


def inverse_stft(stfts, frame_length, frame_step, fft_length=None,
                 window_fn=window_ops.hann_window, name=None):
    """The inverse of `stft`: [..., frames, fft_length // 2 + 1] complex stfts to
    [..., samples] (exact with window_fn=inverse_stft_window_fn(frame_step))."""
    with name_scope(name, "inverse_stft", [stfts]):
        stfts = convert_to_tensor(stfts, name="stfts")
        stfts.shape.with_rank_at_least(2)
        frame_length = _scalar(frame_length, "frame_length")
        frame_step = _scalar(frame_step, "frame_step")
        if fft_length is None:
            fft_length = _enclosing_power_of_two(frame_length)
        else:
            fft_length = _scalar(fft_length, "fft_length")
        real_frames = _fit_frames(fft_ops.irfft(stfts, [fft_length]), frame_length)
        if window_fn is not None:
            real_frames *= window_fn(frame_length, dtype=stfts.dtype.real_dtype)
        return signal_shape.overlap_and_add(real_frames, frame_step)


def mdct(signals, frame_length, window_fn=window_ops.vorbis_window, pad_end=False,
         norm=None, name=None):
    """The modified DCT of [..., samples] signals in frames of frame_length (a multiple
    of 4) half overlapping: [..., frames, frame_length // 2].

    Raises:
      ValueError: if frame_length is statically known and not a multiple of 4.
    """
    with name_scope(name, "mdct", [signals, frame_length]):
        signals = convert_to_tensor(signals, name="signals")
        signals.shape.with_rank_at_least(1)
        frame_length = _scalar(frame_length, "frame_length")
        static = constant_value(frame_length)
        if static is not None:
            if static % 4 != 0:
                raise ValueError("The frame length must be a multiple of 4.")
            frame_step = convert_to_tensor(int(static) // 2, dtype=frame_length.dtype)
        else:
            frame_step = frame_length // 2
        framed = signal_shape.frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed *= window_fn(frame_length, dtype=framed.dtype)
        else:
            framed *= 1.0 / np.sqrt(2)
        a, b, c, d = join.split(framed, 4, axis=-1)
        first = -layout.reverse(c, [-1]) - d
        second = a - layout.reverse(b, [-1])
        return dct_ops.dct(join.concat((first, second), axis=-1), type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=window_ops.vorbis_window, norm=None, name=None):
    """The inverse of `mdct`: [..., frames, half] to [..., samples] by overlap-add."""
    with name_scope(name, "inverse_mdct", [mdcts]):
        mdcts = convert_to_tensor(mdcts, name="mdcts")
        mdcts.shape.with_rank_at_least(1)
        half_len = cast_ops.cast(mdcts.shape[-1], dtype=dtypes.int32)
        if norm is None:
            half_float = cast_ops.cast(half_len, dtype=mdcts.dtype)
            result = (0.5 / half_float) * dct_ops.dct(mdcts, type=4)
        elif norm == "ortho":
            result = dct_ops.dct(mdcts, type=4, norm="ortho")
        else:
            raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
        first, second = join.split(result, 2, axis=-1)
        real_frames = join.concat((second, -layout.reverse(second, [-1]),
                                   -layout.reverse(first, [-1]), -first), axis=-1)
        if window_fn is not None:
            real_frames *= window_fn(2 * half_len, dtype=mdcts.dtype)
        else:
            real_frames *= 1.0 / np.sqrt(2)
        return signal_shape.overlap_and_add(real_frames, half_len)
