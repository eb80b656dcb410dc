"""`tf.audio.decode_wav` / `tf.audio.encode_wav` (DecodeWav, EncodeWav): 16-bit PCM WAV
files to float samples in [-1, 1) and back, with TensorFlow's header checks. TensorFlow
registers no gradient for either op."""
import collections
import struct

import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.ops.array.shape_util import dims_of, invalid_argument, shape_of, with_rank
from trainflow._src.ops.summary.media import encode_wav as _encode_wav_bytes

__all__ = ["decode_wav", "encode_wav"]

_INT32_MAX = 2 ** 31 - 1
_DecodeWavOutput = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])


class _Reader:
    """Reads little-endian fields off a WAV string, failing as TensorFlow's reader does."""

    def __init__(self, data):
        self.data, self.offset = data, 0

    def take(self, n):
        if self.offset + n > len(self.data):
            raise invalid_argument("Data too short when trying to read string")
        out = self.data[self.offset:self.offset + n]
        self.offset += n
        return out

    def value(self, fmt):
        size = struct.calcsize(fmt)
        if self.offset + size > len(self.data):
            raise invalid_argument("Data too short when trying to read value")
        return struct.unpack(fmt, self.take(size))[0]

    def expect(self, text):
        got = self.take(len(text))
        if got != text:
            raise invalid_argument(f"Header mismatch: Expected {text.decode()} but found "
                                   f"{got.decode('latin-1')}")


def _decode_lin16(data):
    """(samples [count * channels] float32, count, channels, rate) of a WAV string."""
    r = _Reader(data)
    r.expect(b"RIFF")
    r.value("<I")
    r.expect(b"WAVE")
    r.take(4)
    fmt_size = r.value("<I")
    if fmt_size not in (16, 18):
        raise invalid_argument(f"Bad format chunk size for WAV: Expected 16 or 18, but got"
                               f"{fmt_size}")
    audio_format = r.value("<H")
    if audio_format != 1:
        raise invalid_argument(f"Bad audio format for WAV: Expected 1 (PCM), but got"
                               f"{audio_format}")
    channels = r.value("<H")
    if channels < 1:
        raise invalid_argument(f"Bad number of channels for WAV: Expected at least 1, but got "
                               f"{channels}")
    rate = r.value("<I")
    bytes_per_second = r.value("<I")
    bytes_per_sample = r.value("<H")
    bits_per_sample = r.value("<H")
    if bits_per_sample != 16:
        raise invalid_argument(f"Can only read 16-bit WAV files, but received "
                               f"{bits_per_sample}")
    expected = (bits_per_sample * channels + 7) // 8
    if bytes_per_sample != expected:
        raise invalid_argument(f"Bad bytes per sample in WAV header: Expected {expected} but "
                               f"got {bytes_per_sample}")
    if bytes_per_second != bytes_per_sample * rate:
        raise invalid_argument(f"Bad bytes per second in WAV header: Expected "
                               f"{bytes_per_sample * rate} but got {bytes_per_second} "
                               f"(sample_rate={rate}, bytes_per_sample={bytes_per_sample})")
    if fmt_size == 18:
        r.offset += 2  # the unused extension size
    samples, count = None, 0
    while r.offset < len(data):
        chunk_id = r.take(4)
        chunk_size = r.value("<I")
        if chunk_size > _INT32_MAX:
            raise invalid_argument(f"WAV data chunk '{chunk_id.decode('latin-1')}' is too "
                                   f"large: {chunk_size} bytes, but the limit is {_INT32_MAX}")
        if chunk_id != b"data":
            r.offset += chunk_size
            continue
        if samples is not None:
            raise invalid_argument("More than one data chunk found in WAV")
        count = chunk_size // bytes_per_sample
        n = count * channels
        if r.offset + 2 * n > len(data):
            raise invalid_argument("Data too short when trying to read value")
        samples = np.frombuffer(data, "<i2", n, r.offset).astype(np.float32) / np.float32(32768)
        r.offset += 2 * n
    if samples is None:
        raise invalid_argument("No data chunk found in WAV")
    return samples, count, channels, rate


def _decode_kernel(contents, *, desired_channels, desired_samples):
    contents = np.asarray(contents, dtype=object)
    if contents.ndim != 0:
        raise invalid_argument(f"contents must be scalar, got shape {list(contents.shape)}")
    samples, count, channels, rate = _decode_lin16(bytes(contents[()]))
    out_channels = channels if desired_channels == -1 else desired_channels
    out_count = count if desired_samples == -1 else desired_samples
    wav = samples.reshape(count, channels)
    # more channels than the file has repeat its last one; more samples are zeros
    source = np.minimum(np.arange(out_channels), channels - 1)
    audio = np.zeros((out_count, out_channels), np.float32)
    rows = min(out_count, count)
    audio[:rows] = wav[:rows][:, source]
    return audio, np.int32(rate)


def _decode_shape(op):
    with_rank(dims_of(op.inputs[0]), 0)
    channels, samples = op._attrs["desired_channels"], op._attrs["desired_samples"]
    return [shape_of([None if samples == -1 else samples, None if channels == -1 else channels]),
            shape_of([])]


register_op("DecodeWav", inputs=["contents: string"],
            outputs=["audio: float", "sample_rate: int32"],
            attrs=["desired_channels: int = -1", "desired_samples: int = -1"],
            shape_fn=_decode_shape, kernel=_decode_kernel)


def _encode_kernel(audio, sample_rate):
    audio = np.asarray(audio, np.float32)
    if audio.ndim != 2:
        raise invalid_argument(f"audio must be 2-dimensional {list(audio.shape)}")
    if np.ndim(sample_rate) != 0:
        raise invalid_argument(f"Input sample_rate should be a scalar tensor, got "
                               f"{list(np.shape(sample_rate))} instead.")
    if audio.shape[1] >= 2 ** 16:
        raise invalid_argument(f"audio has too many channels: {audio.shape[1]}")
    return np.array(_encode_wav_bytes(audio, int(sample_rate)), dtype=object)


def _encode_shape(op):
    with_rank(dims_of(op.inputs[0]), 2)
    with_rank(dims_of(op.inputs[1]), 0)
    return [shape_of([])]


register_op("EncodeWav", inputs=["audio: float", "sample_rate: int32"],
            outputs=["contents: string"], shape_fn=_encode_shape, kernel=_encode_kernel)


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """(audio [samples, channels] float32 in [-1, 1), sample_rate int32) of a 16-bit PCM
    WAV string; `desired_channels` / `desired_samples` (when not -1) fix the output size,
    repeating the last channel or padding with zeros."""
    op = apply_op("DecodeWav", contents=contents, desired_channels=desired_channels,
                  desired_samples=desired_samples, name=name)
    return _DecodeWavOutput(*op.outputs)


def encode_wav(audio, sample_rate, name=None):
    """A 16-bit PCM WAV string of float `audio` [samples, channels] at `sample_rate`."""
    return apply_op("EncodeWav", audio=audio, sample_rate=sample_rate, name=name).outputs[0]
