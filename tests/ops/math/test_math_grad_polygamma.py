"""Polygamma, the op the Digamma gradient needs: values against TensorFlow 2.21's
(recorded from `tf.math.polygamma`), TF's NaN/inf conventions, and the derivative
chain lgamma -> digamma -> polygamma(1) -> polygamma(2) by finite differences."""
import math

import numpy as np
import pytest

import trainflow.compat.v1 as tf

X = np.array([1.0, 0.5, -0.5, 3.7, 10.0, -7.3, 1e-3, 50.0, -0.999, 2.5])
# tf.math.polygamma(n, X) in TensorFlow 2.21, float64.
TF_VALUES = {
    1: [1.6449340668482266, 4.93480220054468, 8.934802200544679, 0.31003785767003833,
        0.10516633568168576, 14.951383181433922, 1000001.6425331959, 0.020201333226697128,
        1000002.6445361981, 0.4903577561002349],
    2: [-2.404113806319188, -16.828796644234316, -0.82879664423432, -0.09539530872855405,
        -0.011049834970802069, 68.8211740635903, -2000000002.3976321, -0.000408079989337597,
        -2000000000.3916152, -0.23620405164172736],
    5: [122.08116743813383, 7691.113548602433, 15371.113548602436, 0.06393975390203976,
        0.00030594516211726814, 165660.17363874172, 1.1999999999999995e+20,
        8.071677135254361e-08, 1.1999999999999933e+20, 0.5785691785671833],
}


def _polygamma(n, x, dtype=np.float64):
    with tf.Graph().as_default():
        out = tf.polygamma(tf.constant(np.asarray(n, dtype)), tf.constant(np.asarray(x, dtype)))
        with tf.Session() as sess:
            return sess.run(out)


@pytest.mark.parametrize("n", sorted(TF_VALUES))
def test_values_match_tensorflow(n):
    got = _polygamma(np.full_like(X, n), X)
    np.testing.assert_allclose(got, TF_VALUES[n], rtol=1e-13)


def test_order_zero_is_digamma_and_closed_forms():
    got = _polygamma([0.0, 1.0, 1.0, 2.0], [1.0, 1.0, 0.5, 1.0])
    want = [-0.5772156649015329, math.pi ** 2 / 6, math.pi ** 2 / 2, -2.404113806319188]
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_poles_and_invalid_orders_follow_tensorflow():
    # At x = 0, -2: +inf for odd orders, NaN for even ones; non-integer or negative
    # orders give NaN.
    got = _polygamma([1.0, 2.0, 3.0, 1.0, -1.0, 1.5], [0.0, 0.0, -2.0, -2.0, 2.0, 2.0])
    assert np.isposinf(got[0]) and np.isnan(got[1]) and np.isposinf(got[2])
    assert np.isposinf(got[3]) and np.isnan(got[4]) and np.isnan(got[5])


def test_float32_and_static_shape():
    with tf.Graph().as_default():
        out = tf.polygamma(tf.constant([[1.0], [2.0]]), tf.constant([0.5, 2.0, 3.0]))
        assert out.dtype == tf.float32 and out.shape.as_list() == [2, 3]
        with tf.Session() as sess:
            got = sess.run(out)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got[0, :2], [4.934802055358887, 0.6449341177940369], rtol=1e-6)


def test_derivative_chain_from_lgamma():
    x0 = np.array([0.7, 1.9, 4.2])
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        (d1,) = tf.gradients(tf.reduce_sum(tf.lgamma(x)), x)       # digamma
        (d2,) = tf.gradients(tf.reduce_sum(d1), x)                  # polygamma(1, x)
        (d3,) = tf.gradients(tf.reduce_sum(d2), x)                  # polygamma(2, x)
        with tf.Session() as sess:
            got = sess.run([d1, d2, d3], {x: x0})
            err = tf.test.compute_gradient_error(x, [3], d2, [3], x_init_value=x0, delta=1e-5)
    np.testing.assert_allclose(got[0], _polygamma(np.zeros(3), x0), rtol=1e-12)
    np.testing.assert_allclose(got[1], _polygamma(np.ones(3), x0), rtol=1e-12)
    np.testing.assert_allclose(got[2], _polygamma(np.full(3, 2.0), x0), rtol=1e-12)
    assert err < 1e-6
