"""`tf.signal`: FFTs (complex and real, 1-3 dimensions), fftshift, framing and
overlap-add, windows, STFT and its inverse, MDCT, DCT, mel filter banks and MFCCs.

Importing this package registers the FFT op types (FFT ... IRFFT3D) and BesselI0e /
BesselI1e with their kernels, shape functions and gradients.
"""
from trainflow._src.ops.signal.dct_ops import dct, idct  # noqa: F401
from trainflow._src.ops.signal.fft_ops import (  # noqa: F401
    fft, fft2d, fft3d, fftshift, ifft, ifft2d, ifft3d, ifftshift, irfft, irfft2d, irfft3d, rfft,
    rfft2d, rfft3d)
from trainflow._src.ops.signal.fftnd_ops import fftnd, ifftnd, irfftnd, rfftnd  # noqa: F401
from trainflow._src.ops.signal.mel_ops import (  # noqa: F401
    linear_to_mel_weight_matrix, mfccs_from_log_mel_spectrograms)
from trainflow._src.ops.signal.shape_ops import frame, overlap_and_add  # noqa: F401
from trainflow._src.ops.signal.spectral_ops import (  # noqa: F401
    inverse_mdct, inverse_stft, inverse_stft_window_fn, mdct, stft)
from trainflow._src.ops.signal.window_ops import (  # noqa: F401
    hamming_window, hann_window, kaiser_bessel_derived_window, kaiser_window, vorbis_window)

__all__ = [
    "dct", "fft", "fft2d", "fft3d", "fftnd", "fftshift", "frame", "hamming_window",
    "hann_window", "idct", "ifft", "ifft2d", "ifft3d", "ifftnd", "ifftshift", "inverse_mdct",
    "inverse_stft", "inverse_stft_window_fn", "irfft", "irfft2d", "irfft3d", "irfftnd",
    "kaiser_bessel_derived_window", "kaiser_window", "linear_to_mel_weight_matrix", "mdct",
    "mfccs_from_log_mel_spectrograms", "overlap_and_add", "rfft", "rfft2d", "rfft3d", "rfftnd",
    "stft", "vorbis_window"]
