"""trainflow._src.ops.signal: tf.signal / tf.spectral (FFTs, frames, windows, STFT, mel
and MFCC, DCT and MDCT)."""
