"""tf.test.compute_gradient / compute_gradient_error: Jacobian layout, complex values as
pairs of reals, lists of xs, sparse gradients, empty outputs, and a wrong gradient
being caught."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.registry import RegisterGradient


def test_jacobians_of_a_linear_map_are_its_matrix():
    m = np.array([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]])
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        y = tf.reduce_sum(tf.constant(m) * x, 1)
        with tf.Session():
            theoretical, numerical = tf.test.compute_gradient(x, [3], y, [2])
    # Rows follow x, columns follow y.
    np.testing.assert_allclose(theoretical, m.T)
    np.testing.assert_allclose(numerical, m.T, atol=1e-9)


def test_complex_values_count_as_pairs_of_reals():
    # y = c * z for a constant c: as a real map, each element is the 2x2 block
    # [[re c, im c], [-im c, re c]] (rows: re z, im z; columns: re y, im y).
    c = 2.0 - 0.5j
    with tf.Graph().as_default():
        z = tf.placeholder(tf.complex128, [2])
        y = z * tf.constant(c, tf.complex128)
        with tf.Session():
            theoretical, numerical = tf.test.compute_gradient(
                z, [2], y, [2], x_init_value=np.array([1 + 1j, -0.5 + 2j]))
    block = np.array([[c.real, c.imag], [-c.imag, c.real]])
    want = np.kron(np.eye(2), block)
    assert theoretical.shape == (4, 4)
    np.testing.assert_allclose(theoretical, want)
    np.testing.assert_allclose(numerical, want, atol=1e-9)


def test_list_of_xs_and_non_contiguous_values():
    a = np.arange(6.0).reshape(3, 2).T  # a transposed (Fortran-ordered) view
    with tf.Graph().as_default():
        x0 = tf.placeholder(tf.float64, [2, 3])
        x1 = tf.placeholder(tf.float64, [3])
        y = tf.reduce_sum(x0 * x0 * x1, 0)
        with tf.Session():
            pairs = tf.test.compute_gradient([x0, x1], [[2, 3], [3]], y, [3],
                                             x_init_value=[a, np.array([1.0, 2.0, 3.0])])
            err = tf.test.compute_gradient_error([x0, x1], [[2, 3], [3]], y, [3],
                                                 x_init_value=[a, np.ones(3)])
    assert [p[0].shape for p in pairs] == [(6, 3), (3, 3)]
    for theoretical, numerical in pairs:
        np.testing.assert_allclose(theoretical, numerical, atol=1e-6)
    assert err < 1e-6


def test_indexed_slices_gradients_are_densified():
    params = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3, 2])
        y = tf.gather(x, [2, 0, 2]) * 2.0
        with tf.Session():
            err = tf.test.compute_gradient_error(x, [3, 2], y, [3, 2], x_init_value=params)
    assert err < 1e-6


def test_empty_output_checks_the_gradient_shape():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2, 0])
        y = tf.square(x)
        with tf.Session():
            theoretical, numerical = tf.test.compute_gradient(x, [2, 0], y, [2, 0])
    assert theoretical.shape == numerical.shape == (0, 0)


@RegisterGradient("TestGradientCheckerWrongSquare")
def _wrong_square_grad(op, grad):
    return grad * op.inputs[0]  # missing the factor 2


def test_a_wrong_gradient_is_caught():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [3])
        with g.gradient_override_map({"Square": "TestGradientCheckerWrongSquare"}):
            y = tf.square(x)
        with tf.Session():
            err = tf.test.compute_gradient_error(x, [3], y, [3],
                                                 x_init_value=np.array([1.0, 2.0, 3.0]))
    assert err == pytest.approx(3.0, abs=1e-6)


def test_needs_a_default_session():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2])
        with pytest.raises(ValueError, match="default session"):
            tf.test.compute_gradient(x, [2], tf.square(x), [2])
