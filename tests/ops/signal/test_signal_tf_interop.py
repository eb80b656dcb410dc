"""tf.signal / tf.spectral against TensorFlow: FFT ops and their gradients, fftshift,
frame and overlap_and_add, windows, STFT and its inverse, MDCT, DCT, mel matrix, MFCCs:
values, static shapes, op types (where ours are built the same way) and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
rs = np.random.RandomState(0)
x = tf.constant(rs.randn(2, 40).astype(np.float32))
x64 = tf.constant(rs.randn(3, 10))
m = tf.constant(rs.randn(2, 6, 5).astype(np.float32))
c = tf.complex(m, tf.reverse(m, [-1]))
c3 = tf.complex(tf.reshape(m[:, :4, :4], [2, 2, 2, 4]), tf.ones([2, 2, 2, 4]))
p = tf.placeholder_with_default(x, [2, None])
def grad(y, wrt):
    return tf.gradients(tf.reduce_sum(tf.abs(y) + tf.math.real(y) * 0.5), wrt)[0]
"""

FFT_EXPRESSIONS = [
    "tf.signal.fft(c)", "tf.signal.ifft(c)", "tf.signal.fft2d(c)", "tf.signal.ifft2d(c)",
    "tf.signal.fft3d(c3)", "tf.signal.ifft3d(c3)", "tf.fft(c)", "tf.ifft2d(c)",
    "tf.spectral.fft3d(c3)", "tf.signal.fft(tf.cast(c, tf.complex128))",
    "tf.signal.rfft(x)", "tf.signal.rfft(x64)", "tf.signal.rfft(x, [16])",
    "tf.signal.rfft(x, [64])", "tf.signal.rfft(x, [7])", "tf.signal.rfft(p)",
    "tf.signal.rfft2d(m)", "tf.signal.rfft2d(m, [4, 8])", "tf.signal.rfft3d(m)",
    "tf.signal.irfft(tf.signal.rfft(x))", "tf.signal.irfft(c)", "tf.signal.irfft(c, [9])",
    "tf.signal.irfft(c, [3])", "tf.signal.irfft2d(c)", "tf.signal.irfft2d(c, [8, 6])",
    "tf.signal.irfft3d(c3)", "tf.spectral.irfft(tf.spectral.rfft(x64))",
    "tf.signal.fft(x)", "tf.signal.rfft(c)", "tf.signal.rfft(3.0)", "tf.signal.fft2d(c[0, 0])",
    "tf.signal.fftshift(x)", "tf.signal.ifftshift(x)", "tf.signal.fftshift(m, axes=1)",
    "tf.signal.ifftshift(m, axes=[0, 2])", "tf.signal.fftshift(p)",
]

GRAD_EXPRESSIONS = [
    "grad(tf.signal.fft(c), c)", "grad(tf.signal.ifft(c), c)", "grad(tf.signal.fft2d(c), c)",
    "grad(tf.signal.ifft2d(c), c)", "grad(tf.signal.fft3d(c3), c3)",
    "grad(tf.signal.rfft(x), x)", "grad(tf.signal.rfft(m), m)",
    "grad(tf.signal.rfft(x, [64]), x)", "grad(tf.signal.rfft2d(m), m)",
    "grad(tf.signal.rfft2d(m, [8, 8]), m)", "grad(tf.signal.irfft(c), c)",
    "grad(tf.signal.irfft(c, [9]), c)", "grad(tf.signal.irfft2d(c), c)",
    "grad(tf.signal.stft(x, 16, 8), x)", "grad(tf.signal.mfccs_from_log_mel_spectrograms(x), x)",
]

SIGNAL_EXPRESSIONS = [
    "tf.signal.frame(x, 5, 3)", "tf.signal.frame(x, 5, 3, pad_end=True)",
    "tf.signal.frame(x, 5, 3, pad_end=True, pad_value=7.)", "tf.signal.frame(m, 2, 1, axis=1)",
    "tf.signal.frame(m, 4, 2, axis=-2, pad_end=True)", "tf.signal.frame(x, 50, 3)",
    "tf.signal.frame(p, 5, 3)", "tf.signal.overlap_and_add(m, 3)",
    "tf.signal.overlap_and_add(tf.reshape(x, [2, 5, 8]), 4)", "tf.signal.overlap_and_add(x, 1)",
    "tf.signal.hann_window(8)", "tf.signal.hann_window(7, periodic=False)",
    "tf.signal.hann_window(1)", "tf.signal.hamming_window(9)",
    "tf.signal.hamming_window(10, dtype=tf.float64)", "tf.signal.hann_window(8, dtype=tf.int32)",
    "tf.signal.vorbis_window(6)", "tf.signal.kaiser_window(7)", "tf.signal.kaiser_window(8, 3.)",
    "tf.signal.kaiser_window(1)", "tf.signal.kaiser_bessel_derived_window(8)",
    "tf.signal.kaiser_bessel_derived_window(10, beta=5., dtype=tf.float64)",
    "tf.signal.stft(x, 16, 8)", "tf.signal.stft(x, 10, 4, fft_length=12, pad_end=True)",
    "tf.signal.stft(x, 16, 8, window_fn=None)", "tf.signal.stft(x64, 4, 2)",
    "tf.signal.inverse_stft(tf.signal.stft(x, 16, 8), 16, 8)",
    "tf.signal.inverse_stft(tf.signal.stft(x, 16, 4), 16, 4, "
    "window_fn=tf.signal.inverse_stft_window_fn(4))",
    "tf.signal.inverse_stft(tf.signal.stft(x, 12, 4), 12, 4)",
    "tf.signal.inverse_stft(tf.signal.stft(x, 16, 8, fft_length=8), 16, 8, fft_length=8)",
    "tf.signal.inverse_stft_window_fn(3)(10, tf.float32)",
    "tf.signal.mdct(x, 8)", "tf.signal.mdct(x, 12, pad_end=True, norm='ortho')",
    "tf.signal.mdct(x, 8, window_fn=None)", "tf.signal.mdct(x, 6)",
    "tf.signal.inverse_mdct(tf.signal.mdct(x, 8))",
    "tf.signal.inverse_mdct(tf.signal.mdct(x, 8, norm='ortho'), norm='ortho')",
    "tf.signal.inverse_mdct(tf.signal.mdct(x, 16, "
    "window_fn=tf.signal.kaiser_bessel_derived_window), "
    "window_fn=tf.signal.kaiser_bessel_derived_window)",
]

DCT_EXPRESSIONS = [
    "tf.signal.dct(x, 1)", "tf.signal.dct(x)", "tf.signal.dct(x, 2, norm='ortho')",
    "tf.signal.dct(x, 3)", "tf.signal.dct(x, 3, norm='ortho')", "tf.signal.dct(x, 4)",
    "tf.signal.dct(x, 4, norm='ortho')", "tf.signal.dct(x64, 2, n=6)",
    "tf.signal.dct(x, 2, n=50)", "tf.signal.idct(x)", "tf.signal.idct(x, 2, norm='ortho')",
    "tf.signal.idct(x, 3)", "tf.signal.idct(x, 1)", "tf.signal.idct(x, 4, norm='ortho')",
    "tf.spectral.dct(x64, 3)", "tf.signal.dct(x, 5)", "tf.signal.dct(x, 1, norm='ortho')",
    "tf.signal.dct(x, norm='l2')", "tf.signal.dct(x, axis=0)", "tf.signal.dct(x, n=0)",
    "tf.signal.linear_to_mel_weight_matrix()",
    "tf.signal.linear_to_mel_weight_matrix(8, 33, 8000, 0., 4000., tf.float64)",
    "tf.signal.linear_to_mel_weight_matrix(0)",
    "tf.signal.linear_to_mel_weight_matrix(lower_edge_hertz=-1.)",
    "tf.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.)",
    "tf.signal.linear_to_mel_weight_matrix(dtype=tf.int32)",
    "tf.signal.mfccs_from_log_mel_spectrograms(x)",
    "tf.signal.mfccs_from_log_mel_spectrograms(m)",
    "tf.signal.mfccs_from_log_mel_spectrograms(x[:, :0])",
]

# Float32 Log differs from TF's (Eigen's) by an ulp here and there; near the filters'
# corners the slopes then differ by a few 1e-6.
MEL_EXPRESSIONS = ["tf.signal.linear_to_mel_weight_matrix(40, 257, 16000., 20., 7600.)"]

# Composites we build from other ops than TF's (gather for frame's strided reshapes,
# a segment sum for overlap-add, a twisted complex FFT for the DCT-IV ...).
_COMPOSITE = frozenset(SIGNAL_EXPRESSIONS)

test_fft_matches_tf = comparison_test(PRELUDE, FFT_EXPRESSIONS, rtol=2e-5,
                                      ops_differ=frozenset(["tf.signal.ifftshift(m, axes=[0, 2])"]))
test_mel_matches_tf = comparison_test(PRELUDE, MEL_EXPRESSIONS, rtol=1e-3,
                                      ops_differ=frozenset(MEL_EXPRESSIONS))
test_fft_gradients_match_tf = comparison_test(PRELUDE, GRAD_EXPRESSIONS, rtol=2e-5,
                                              ops_differ=frozenset(GRAD_EXPRESSIONS))
test_signal_matches_tf = comparison_test(PRELUDE, SIGNAL_EXPRESSIONS, rtol=2e-5,
                                         ops_differ=_COMPOSITE)
test_dct_mel_matches_tf = comparison_test(PRELUDE, DCT_EXPRESSIONS, rtol=2e-5,
                                          ops_differ=frozenset(DCT_EXPRESSIONS))
