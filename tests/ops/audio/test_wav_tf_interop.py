"""tf.audio.decode_wav / encode_wav against TensorFlow: the bytes written, the samples read
back (channel and sample padding), header errors and files TensorFlow wrote (cases from
TF's decode_wav_op_test / encode_wav_op_test and wav_io_test)."""
import struct

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf


def _wav(samples, channels=1, rate=8000, fmt_size=16, audio_format=1, bits=16,
         bytes_per_sample=None, extra=b""):
    data = struct.pack(f"<{len(samples)}h", *samples)
    bps = bytes_per_sample if bytes_per_sample is not None else channels * 2
    fmt = struct.pack("<HHIIHH", audio_format, channels, rate, rate * bps, bps, bits)
    if fmt_size == 18:
        fmt += b"\0\0"
    body = b"WAVE" + b"fmt " + struct.pack("<I", fmt_size) + fmt + extra + b"data" + \
        struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


FILES = {
    "mono": _wav([0, 1, -1, 16384, -32768, 32767]),
    "stereo": _wav([0, 100, -200, 300, 32767, -32768], channels=2, rate=44100),
    "fmt18": _wav([5, -5], fmt_size=18),
    "list_chunk": _wav([7, 8, 9], extra=b"LIST" + struct.pack("<I", 4) + b"abcd"),
    "bad_format": _wav([1], audio_format=3),
    "bad_bits": _wav([1], bits=8),
    "bad_bps": _wav([1], bytes_per_sample=4),
    "truncated": _wav([1, 2, 3, 4])[:-3],
    "no_data": _wav([])[:36],
    "not_riff": b"RIFX" + _wav([1])[4:],
}

PRELUDE = "files = {%s}\n" % ", ".join(f"{k!r}: {v!r}" for k, v in FILES.items()) + """
enc = tf.constant([[0., 0.5], [-0.5, 1.], [1.5, -1.5], [0.25, -0.0001]])
"""

EXPRESSIONS = [
    "tf.audio.decode_wav(files['mono'])", "tf.audio.decode_wav(files['stereo'])",
    "tf.audio.decode_wav(files['mono'], desired_channels=2)",
    "tf.audio.decode_wav(files['stereo'], desired_channels=1, desired_samples=5)",
    "tf.audio.decode_wav(files['stereo'], desired_samples=2, name='wav')",
    "tf.audio.decode_wav(tf.placeholder_with_default(files['mono'], []), desired_samples=3)",
    "tf.audio.decode_wav(files['fmt18'])", "tf.audio.decode_wav(files['list_chunk'])",
    "tf.audio.decode_wav(files['bad_format'])", "tf.audio.decode_wav(files['bad_bits'])",
    "tf.audio.decode_wav(files['bad_bps'])", "tf.audio.decode_wav(files['truncated'])",
    "tf.audio.decode_wav(files['no_data'])", "tf.audio.decode_wav(files['not_riff'])",
    "tf.audio.decode_wav([files['mono']])",
    "tf.audio.decode_wav(tf.placeholder_with_default([files['mono']], [None]))",
    "tf.audio.decode_wav(files['mono']).audio", "tf.audio.decode_wav(files['mono']).sample_rate",
    "tf.io.decode_raw(tf.audio.encode_wav(enc, 16000), tf.uint8)",
    "tf.io.decode_raw(tf.audio.encode_wav(enc[:, :1], 44100, name='e'), tf.uint8)",
    "tf.io.decode_raw(tf.audio.encode_wav(tf.zeros([0, 3]), 8000), tf.uint8)",
    "tf.audio.encode_wav(enc, 16000).shape.as_list()",
    "tf.audio.decode_wav(tf.audio.encode_wav(enc, 22050))",
    "tf.audio.encode_wav(enc[0], 8000)",
    "tf.audio.encode_wav(tf.placeholder_with_default(enc[0], None), 8000)",
    "tf.constant([g is None for g in"
    " tf.gradients(tf.audio.decode_wav(tf.audio.encode_wav(enc, 8000)).audio, enc)])",
]

test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
