"""The XLA lowerings of Erfinv, Ndtri and NextAfter (jax.scipy.special / jnp) give the
NumPy kernels' values, in compiled segments."""
import numpy as np
import pytest

pytest.importorskip("jax")

import trainflow.compat.v1 as tf  # noqa: E402
from xla_compare import placeholder, run_both  # noqa: E402

U = np.array([-0.999, -0.5, -1e-4, 0., 0.25, 0.9, 0.99999], np.float32)
P = np.array([1e-7, 0.02, 0.3, 0.5, 0.77, 0.999], np.float32)


def test_inverse_error_functions_and_nextafter_compile():
    def build():
        u, p = placeholder(U), placeholder(P)
        out = [tf.math.erfinv(u * 1.0), tf.math.ndtri(p * 1.0),
               tf.math.nextafter(u * 1.0, 2.0), tf.math.erfcinv(p * 2.0)]
        return out, None, [u, p]
    numpy_values, xla_values = run_both(build, lambda i: [U, P])
    for a, b in zip(numpy_values[0], xla_values[0]):
        np.testing.assert_allclose(b, a, rtol=3e-6, atol=1e-7)
