"""`tf.signal.linear_to_mel_weight_matrix` (HTK's mel scale) and
`tf.signal.mfccs_from_log_mel_spectrograms`."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array import cast as cast_ops
from trainflow._src.ops.array import create
from trainflow._src.ops.array import join
from trainflow._src.ops.array import layout
from trainflow._src.ops.array import shape as shape_ops
from trainflow._src.ops.math import arith
from trainflow._src.ops.signal import dct_ops
from trainflow._src.ops.signal import shape_ops as signal_shape

__all__ = ["linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms"]

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(frequencies_hertz):
    return _MEL_HIGH_FREQUENCY_Q * arith.log(1.0 + (frequencies_hertz
                                                    / _MEL_BREAK_FREQUENCY_HERTZ))


def _validate(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype):
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError("lower_edge_hertz %.1f >= upper_edge_hertz %.1f"
                         % (lower_edge_hertz, upper_edge_hertz))
    if not isinstance(sample_rate, Tensor):
        if sample_rate <= 0.0:
            raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError("upper_edge_hertz must not be larger than the Nyquist frequency "
                             f"(sample_rate / 2). Got {upper_edge_hertz} for sample_rate: "
                             f"{sample_rate}")
    if not dtypes.as_dtype(dtype).is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=dtypes.float32, name=None):
    """A [num_spectrogram_bins, num_mel_bins] matrix of triangular mel filters (HTK's
    mel scale; the DC bin's row is zero) that takes a linear spectrogram to a mel one.

    Raises:
      ValueError: for num_mel_bins <= 0, negative or crossed edges, a non-positive
        sample_rate, an upper edge above Nyquist or a non-float dtype.
    """
    with name_scope(name, "linear_to_mel_weight_matrix") as scope:
        if isinstance(sample_rate, Tensor):
            static = constant_value(sample_rate)
            if static is not None:
                sample_rate = static
        _validate(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype)
        dtype = dtypes.as_dtype(dtype)
        sample_rate = cast_ops.cast(sample_rate, dtype, name="sample_rate")
        lower = convert_to_tensor(lower_edge_hertz, dtype, name="lower_edge_hertz")
        upper = convert_to_tensor(upper_edge_hertz, dtype, name="upper_edge_hertz")
        zero = convert_to_tensor(0.0, dtype)
        bands_to_zero = 1
        nyquist = sample_rate / 2.0
        linear = create.linspace(zero, nyquist, num_spectrogram_bins)[bands_to_zero:]
        bins_mel = shape_ops.expand_dims(_hertz_to_mel(linear), 1)
        edges = signal_shape.frame(
            create.linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), num_mel_bins + 2),
            frame_length=3, frame_step=1)
        lower_mel, center_mel, upper_mel = (shape_ops.reshape(t, [1, num_mel_bins])
                                            for t in join.split(edges, 3, axis=1))
        lower_slopes = (bins_mel - lower_mel) / (center_mel - lower_mel)
        upper_slopes = (upper_mel - bins_mel) / (upper_mel - center_mel)
        weights = arith.maximum(zero, arith.minimum(lower_slopes, upper_slopes))
        return layout.pad(weights, [[bands_to_zero, 0], [0, 0]], name=scope)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs: the orthonormal DCT-II of [..., num_mel_bins] log-mel spectrograms (HTK's
    scaling).

    Raises:
      ValueError: if the last dimension is statically 0.
    """
    with name_scope(name, "mfccs_from_log_mel_spectrograms", [log_mel_spectrograms]):
        spectrograms = convert_to_tensor(log_mel_spectrograms, name="log_mel_spectrograms")
        dims = spectrograms.shape.as_list() if spectrograms.shape.ndims else None
        if dims and dims[-1] is not None:
            num_mel_bins = dims[-1]
            if num_mel_bins == 0:
                raise ValueError(f"num_mel_bins must be positive. Got: {spectrograms}")
        else:
            num_mel_bins = shape_ops.shape(spectrograms)[-1]
        dct2 = dct_ops.dct(spectrograms, type=2)
        return dct2 * arith.rsqrt(cast_ops.cast(num_mel_bins, dct2.dtype) * 2.0)
