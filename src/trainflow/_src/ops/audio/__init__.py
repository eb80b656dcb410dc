"""Audio ops: WAV decoding and encoding."""
