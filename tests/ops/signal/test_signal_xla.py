"""The XLA lowerings of FFT, IFFT, RFFT, IRFFT (1-3D), BesselI0e and BesselI1e against
their NumPy kernels (and the gradients and composites built on them), in compiled
segments with no fallback. Skipped without jax."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

pytest.importorskip("jax")
import xla_compare  # noqa: E402

R = np.random.RandomState(0)
S = R.randn(2, 6, 8).astype(np.float32)


def _c(x):
    return tf.complex(x, tf.reverse(x, [-1]))


CASES = [  # name, build(placeholder) -> list of fetches
    ("fft", lambda x: [tf.signal.fft(_c(x)), tf.signal.ifft(_c(x))]),
    ("fft2d_3d", lambda x: [tf.signal.fft2d(_c(x)), tf.signal.ifft3d(_c(x))]),
    ("rfft", lambda x: [tf.signal.rfft(x), tf.signal.rfft(x, [5]), tf.signal.rfft(x, [12])]),
    ("rfft2d_3d", lambda x: [tf.signal.rfft2d(x), tf.signal.rfft3d(x, [2, 4, 6])]),
    ("irfft", lambda x: [tf.signal.irfft(_c(x)), tf.signal.irfft2d(_c(x), [6, 9]),
                         tf.signal.irfft3d(_c(x))]),
    ("fft_grads", lambda x: tf.gradients(tf.reduce_sum(tf.abs(tf.signal.rfft2d(x)))
                                         + tf.reduce_sum(tf.signal.irfft(_c(x)) ** 2), x)),
    ("stft", lambda x: [tf.signal.inverse_stft(tf.signal.stft(x, 4, 2), 4, 2)]),
    ("bessel", lambda x: [tf.signal.kaiser_window(9, 4.) * tf.reduce_sum(x),
                          tf.gradients(tf.reduce_sum(tf.signal.kaiser_window(7, x[0, 0, 0])),
                                       x)[0]]),
]

# No lowering of their own (they run on NumPy between the compiled segments): the
# complex-number ops that build the inputs and take the outputs apart, and frame's and
# overlap_and_add's gather and segment sum.
ON_HOST = {"Complex", "ComplexAbs", "Real", "Imag", "UnsortedSegmentSum", "GatherV2", "Range",
           "Cumsum"}


@pytest.mark.parametrize("name, build", CASES, ids=[c[0] for c in CASES])
def test_lowering_matches_numpy(name, build):
    def graph():
        x = tf.placeholder(tf.float32, S.shape)
        return build(x), None, [x]

    want, got = xla_compare.run_both(graph, lambda i: [S], on_host=ON_HOST)
    for a, b in zip(got[0], want[0]):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)
