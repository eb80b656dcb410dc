"""ApproxTopK (tf.math.approx_max_k / approx_min_k, tf.nn.*, tf.approx_top_k): the exact
top k, as TensorFlow computes it off TPUs, on any dimension and for the smallest k too
(TensorFlow's CPU kernel only has the largest k on the last dimension), the gradient
scatter, and the shape checks."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

X = np.array([[1., 3., 2., 9.], [5., 5., 0., -1.], [7., -2., 7., 7.]], np.float32)


def _run(fn):
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(fn())


@pytest.mark.parametrize("k, dim, largest", [
    (1, -1, True), (2, -1, True), (4, -1, True), (2, -1, False), (3, 1, False),
    (2, 0, True), (1, 0, False), (0, -1, True)])
def test_values_and_indices(k, dim, largest):
    fn = tf.math.approx_max_k if largest else tf.math.approx_min_k
    values, indices = _run(lambda: fn(tf.constant(X), k, reduction_dimension=dim))
    keys = -X if largest else X
    order = np.argsort(keys, axis=dim, kind="stable")
    expected_idx = np.take(order, np.arange(k), axis=dim)
    np.testing.assert_array_equal(indices, expected_idx)
    np.testing.assert_array_equal(values, np.take_along_axis(X, expected_idx, axis=dim))
    assert indices.dtype == np.int32


def test_aliases_build_one_approx_top_k_op():
    with tf.Graph().as_default() as g:
        tf.nn.approx_max_k(tf.constant(X), 2)
        tf.nn.approx_min_k(tf.constant(X), 2)
        out = tf.approx_top_k(tf.constant(X), 2, is_max_k=False, recall_target=0.9)
        assert [op.type for op in g.get_operations()].count("ApproxTopK") == 3
        assert out.values.shape.as_list() == [3, 2]
        assert out.indices.op.get_attr("recall_target") == pytest.approx(0.9)


def test_gradient_scatters_to_the_chosen_entries():
    def build():
        x = tf.constant(X)
        values, _ = tf.math.approx_min_k(x, 2, reduction_dimension=0)
        return tf.gradients(tf.reduce_sum(values * [[1., 2., 3., 4.], [5., 6., 7., 8.]]), x)
    grad = _run(build)[0]
    expected = np.zeros_like(X)
    order = np.argsort(X, axis=0, kind="stable")[:2]
    for row, weights in zip(order, [[1., 2., 3., 4.], [5., 6., 7., 8.]]):
        expected[row, np.arange(4)] += weights
    np.testing.assert_array_equal(grad, expected)


def test_k_larger_than_the_dimension_is_a_value_error():
    with tf.Graph().as_default(), pytest.raises(ValueError):
        tf.math.approx_max_k(tf.constant(X), 5)
