"""`tf.audio`: WAV decoding and encoding."""
from trainflow._src.ops.audio.wav_ops import decode_wav, encode_wav  # noqa: F401
