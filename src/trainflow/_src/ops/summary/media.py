"""Pixels and samples for image and audio summaries, as TensorFlow's kernels make them.

Float images are scaled per image into uint8: with no negative pixel by
255 / max, otherwise by 127 / max(|min|, |max|) around 128; the arithmetic runs
in the image's own float type and is truncated to uint8. Pixels holding a
non-finite channel take `bad_color`, and are ignored for the range. Audio is
16-bit PCM WAV, samples rounded half away from zero from x * 32768 and clipped.
"""
import struct

import numpy as np

_ZERO_THRESHOLD = np.float32(1e-6)


def normalize_float_image(image, bad_color):
    """A uint8 [h, w, depth] image from one float [h, w, depth] image."""
    h, w, depth = image.shape
    if image.size == 0:
        return np.zeros(image.shape, np.uint8)
    pixels = image.reshape(h * w, depth)
    finite = np.isfinite(pixels).all(axis=1)
    good = pixels[finite].astype(np.float32)
    image_min = good.min() if good.size else np.float32(np.inf)
    image_max = good.max() if good.size else np.float32(-np.inf)
    ftype = pixels.dtype.type
    if image_min < 0:
        max_val = max(abs(image_min), abs(image_max))
        scale = ftype(0.0 if max_val < _ZERO_THRESHOLD else np.float32(127.0) / max_val)
        offset = ftype(128.0)
    else:
        scale = ftype(0.0 if image_max < _ZERO_THRESHOLD else np.float32(255.0) / image_max)
        offset = ftype(0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = (pixels * scale + offset).astype(np.uint8)
    if not finite.all():
        scaled[~finite] = np.asarray(bad_color, np.uint8)[:depth]
    return scaled.reshape(h, w, depth)


def float_to_int16(samples):
    """TF's FloatToInt16Sample: round(x * 32768) half away from zero, clipped to int16."""
    scaled = np.asarray(samples, np.float32) * np.float32(32768.0)
    wide = scaled.astype(np.float64)  # exact; adding 0.5 below cannot round
    rounded = np.copysign(np.floor(np.abs(wide) + 0.5), wide)
    rounded = np.nan_to_num(rounded, nan=0.0)
    return np.clip(rounded, -32768, 32767).astype("<i2")


def encode_wav(samples, sample_rate):
    """A 16-bit PCM WAV file of float `samples` [frames, channels] at `sample_rate` Hz.

    The rate in the header is `sample_rate` truncated to an integer, as in TF.
    """
    frames, channels = samples.shape
    data = float_to_int16(samples).tobytes()
    rate = int(sample_rate)
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16,
                         1, channels, rate, rate * channels * 2, channels * 2, 16, b"data",
                         len(data))
    return header + data
