"""tf.signal without TensorFlow: FFT kernels against NumPy, DCTs against their defining
sums, round trips (irfft of rfft, inverse_stft with the inverse window, inverse_mdct of
mdct, idct of dct), the gradients against finite differences, BesselI0e/I1e against
NumPy's i0, and the static shapes and errors of the builders."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.math import bessel

R = np.random.RandomState(1)
X = R.randn(3, 16)
X32 = X.astype(np.float32)
Z = (R.randn(2, 4, 6) + 1j * R.randn(2, 4, 6)).astype(np.complex64)


def _run(fetch):
    with tf.Session() as sess:
        return sess.run(fetch)


def _dct_ref(x, kind):
    n = x.shape[-1]
    k = np.arange(n)[:, None]
    i = np.arange(n)[None, :]
    if kind == 1:
        m = np.cos(np.pi * i * k / (n - 1))
        m[:, 1:-1] *= 2
        return x @ m.T
    if kind == 2:
        return 2 * x @ np.cos(np.pi * (i + 0.5) * k / n).T
    if kind == 3:
        m = 2 * np.cos(np.pi * i * (k + 0.5) / n)
        m[:, 0] = 1
        return x @ m.T
    return 2 * x @ np.cos(np.pi * (i + 0.5) * (k + 0.5) / n).T


KERNEL_CASES = [  # name, build, reference
    ("fft", lambda: tf.signal.fft(Z), lambda: np.fft.fft(Z)),
    ("ifft2d", lambda: tf.signal.ifft2d(Z), lambda: np.fft.ifft2(Z)),
    ("fft3d", lambda: tf.signal.fft3d(Z), lambda: np.fft.fftn(Z)),
    ("rfft", lambda: tf.signal.rfft(X32), lambda: np.fft.rfft(X32)),
    ("rfft_crop", lambda: tf.signal.rfft(X32, [10]), lambda: np.fft.rfft(X32, 10)),
    ("rfft_pad", lambda: tf.signal.rfft(X32, [20]), lambda: np.fft.rfft(X32, 20)),
    ("rfft2d", lambda: tf.signal.rfft2d(X), lambda: np.fft.rfft2(X)),
    ("irfft", lambda: tf.signal.irfft(Z, [10]), lambda: np.fft.irfft(Z, 10)),
    ("irfft2d", lambda: tf.signal.irfft2d(Z), lambda: np.fft.irfft2(Z, (4, 10))),
    # TF 2.21 has no CPU kernels for the ND ops: NumPy is the reference.
    ("fftnd", lambda: tf.signal.fftnd(Z), lambda: np.fft.fftn(Z)),
    ("fftnd_axes", lambda: tf.signal.fftnd(Z, [3, 8], [0, 2]),
     lambda: np.fft.fftn(Z, [3, 8], [0, 2])),
    ("ifftnd_ortho", lambda: tf.signal.ifftnd(Z, norm="ortho"),
     lambda: np.fft.ifftn(Z, norm="ortho")),
    ("rfftnd", lambda: tf.signal.rfftnd(X32, [16], axes=[1]),
     lambda: np.fft.rfftn(X32, axes=[1])),
    ("rfftnd_forward", lambda: tf.rfftnd(X, norm="forward"),
     lambda: np.fft.rfftn(X, norm="forward")),
    ("irfftnd", lambda: tf.signal.irfftnd(Z), lambda: np.fft.irfftn(Z)),
    ("irfftnd_axes", lambda: tf.irfftnd(Z, [4, 9], [1, 2]),
     lambda: np.fft.irfftn(Z, [4, 9], [1, 2])),
    ("fftshift", lambda: tf.signal.fftshift(X), lambda: np.fft.fftshift(X)),
    ("ifftshift_axis", lambda: tf.signal.ifftshift(X, 1), lambda: np.fft.ifftshift(X, 1)),
    ("dct1", lambda: tf.signal.dct(X, 1), lambda: _dct_ref(X, 1)),
    ("dct2", lambda: tf.signal.dct(X), lambda: _dct_ref(X, 2)),
    ("dct3", lambda: tf.signal.dct(X, 3), lambda: _dct_ref(X, 3)),
    ("dct4", lambda: tf.signal.dct(X, 4), lambda: _dct_ref(X, 4)),
    ("idct2_ortho", lambda: tf.signal.idct(tf.signal.dct(X, norm="ortho"), norm="ortho"),
     lambda: X),
    ("idct4_ortho", lambda: tf.signal.idct(tf.signal.dct(X, 4, norm="ortho"), 4,
                                           norm="ortho"), lambda: X),
    ("irfft_of_rfft", lambda: tf.signal.irfft(tf.signal.rfft(X)), lambda: X),
    ("bessel_i0e", lambda: _i0e(np.linspace(-40, 40, 9)),
     lambda: np.i0(np.linspace(-40, 40, 9)) * np.exp(-np.abs(np.linspace(-40, 40, 9)))),
    ("hann", lambda: tf.signal.hann_window(8, dtype=tf.float64),
     lambda: 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8)),
    ("stft_inverse", lambda: tf.signal.inverse_stft(
        tf.signal.stft(X, 8, 2), 8, 2, window_fn=tf.signal.inverse_stft_window_fn(2))[:, 6:-6],
     lambda: X[:, 6:-6]),
    ("mdct_inverse", lambda: tf.signal.inverse_mdct(tf.signal.mdct(X, 8))[:, 4:-4],
     lambda: X[:, 4:-4]),
]


def _i0e(x):
    return bessel.bessel_i0e(x)


def _i1e(x):
    return bessel.bessel_i1e(x)


@pytest.mark.parametrize("name, build, reference", KERNEL_CASES,
                         ids=[c[0] for c in KERNEL_CASES])
def test_values(name, build, reference):
    with tf.Graph().as_default():
        got = _run(build())
    np.testing.assert_allclose(got, reference(), rtol=1e-4, atol=1e-4)


GRADIENT_CASES = [  # name, shape, build(x) -> y (real)
    ("rfft", [2, 6], lambda x: tf.abs(tf.signal.rfft(x))),
    ("rfft_crop_pad", [2, 6], lambda x: tf.math.real(tf.signal.rfft(x, [4]))
     + tf.math.imag(tf.signal.rfft(x, [4]))),
    ("rfft_pad", [2, 5], lambda x: tf.abs(tf.signal.rfft(x, [8]))),
    ("rfft2d", [3, 4], lambda x: tf.abs(tf.signal.rfft2d(x))),
    ("irfft", [2, 5], lambda x: tf.signal.irfft(tf.complex(x, x * x))),
    ("fft", [2, 5], lambda x: tf.abs(tf.signal.fft(tf.complex(x, 2 * x)))),
    ("ifft3d", [2, 2, 3], lambda x: tf.math.imag(tf.signal.ifft3d(tf.complex(x * x, x)))),
    ("dct4", [2, 8], lambda x: tf.signal.dct(x, 4, norm="ortho")),
    ("stft", [1, 16], lambda x: tf.abs(tf.signal.stft(x, 8, 4))),
    ("kaiser_beta", [1], lambda x: tf.signal.kaiser_window(5, x[0] + 2., tf.float64)),
    ("bessel_i1e", [7], lambda x: _i1e(x * 20.)),
]


@pytest.mark.parametrize("name, shape, build", GRADIENT_CASES,
                         ids=[c[0] for c in GRADIENT_CASES])
def test_gradients_match_finite_differences(name, shape, build):
    with tf.Graph().as_default():
        x = tf.constant(R.randn(*shape))
        y = build(x)
        with tf.Session():
            err = tf.test.compute_gradient_error(x, shape, y, y.shape.as_list(), delta=1e-6)
    assert err < 1e-5


SHAPE_CASES = [  # expression, static shape
    ("tf.signal.rfft(tf.zeros([2, 9]))", [2, 5]),
    ("tf.signal.rfft(tf.zeros([2, 9]), [4])", [2, 3]),
    ("tf.signal.irfft(tf.zeros([2, 9], tf.complex64))", [2, 16]),
    ("tf.signal.rfft2d(tf.placeholder(tf.float32, [None, 4, 6]))", [None, 4, 4]),
    ("tf.signal.fft3d(tf.zeros([2, 3, 4], tf.complex128))", [2, 3, 4]),
    ("tf.signal.frame(tf.zeros([3, 10, 2]), 4, 3, axis=1)", [3, 3, 4, 2]),
    ("tf.signal.frame(tf.zeros([10]), 4, 3, pad_end=True)", [4, 4]),
    ("tf.signal.overlap_and_add(tf.zeros([2, 3, 4]), 2)", [2, 8]),
    ("tf.signal.stft(tf.zeros([100]), 20, 10)", [9, 17]),
    ("tf.signal.mdct(tf.zeros([2, 64]), 16)", [2, 7, 8]),
    ("tf.signal.kaiser_window(6)", [6]),
    ("tf.signal.linear_to_mel_weight_matrix(10, 33)", [33, 10]),
]


@pytest.mark.parametrize("expression, shape", SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_static_shapes(expression, shape):
    with tf.Graph().as_default():
        assert eval(expression, {"tf": tf}).shape.as_list() == shape  # noqa: S307


ERROR_CASES = [  # expression, error class
    ("tf.signal.fft(tf.zeros([], tf.complex64))", ValueError),
    ("tf.signal.fft2d(tf.zeros([3], tf.complex64))", ValueError),
    ("tf.signal.rfft(tf.zeros([4], tf.int32))", ValueError),
    ("tf.signal.dct(tf.zeros([4]), 5)", ValueError),
    ("tf.signal.dct(tf.zeros([4]), 1, norm='ortho')", ValueError),
    ("tf.signal.dct(tf.zeros([4]), axis=0)", NotImplementedError),
    ("tf.signal.hann_window(4, dtype=tf.int32)", ValueError),
    ("tf.signal.mdct(tf.zeros([16]), 6)", ValueError),
    ("tf.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.)", ValueError),
    ("tf.signal.overlap_and_add(tf.zeros([4]), 1)", ValueError),
]


@pytest.mark.parametrize("expression, error", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors(expression, error):
    with tf.Graph().as_default(), pytest.raises(error):
        eval(expression, {"tf": tf})  # noqa: S307


def test_spectral_is_the_fft_part_of_signal():
    assert tf.spectral.rfft is tf.signal.rfft and tf.spectral.idct is tf.signal.idct
    assert tf.fft is tf.signal.fft and tf.ifft3d is tf.signal.ifft3d


def test_rfft3d_has_no_gradient_as_in_tf():
    with tf.Graph().as_default():
        x = tf.constant(np.ones([2, 2, 4], np.float32))
        with pytest.raises(LookupError):
            tf.gradients(tf.reduce_sum(tf.abs(tf.signal.rfft3d(x))), x)
