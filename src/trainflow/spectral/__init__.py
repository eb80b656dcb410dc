"""`tf.spectral`: TF 1.x's name for the FFT and DCT part of `tf.signal`."""
from trainflow._src.ops.signal.dct_ops import dct, idct  # noqa: F401
from trainflow._src.ops.signal.fft_ops import (  # noqa: F401
    fft, fft2d, fft3d, ifft, ifft2d, ifft3d, irfft, irfft2d, irfft3d, rfft, rfft2d, rfft3d)

__all__ = ["dct", "fft", "fft2d", "fft3d", "idct", "ifft", "ifft2d", "ifft3d", "irfft",
           "irfft2d", "irfft3d", "rfft", "rfft2d", "rfft3d"]
