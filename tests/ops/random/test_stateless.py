"""The stateless random ops without TensorFlow: values TF 2.21 gives for fixed seeds
(written down from it), determinism, static shapes, errors and no gradient."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

# (expression, TF 2.21's values)
KNOWN = [
    ("tf.random.stateless_uniform([6], [1, 2])",
     [0.8440604, 0.19204533, 0.9962232, 0.1603874, 0.27199018, 0.649346]),
    ("tf.random.stateless_normal([6], [1, 2])",
     [0.5441101, 0.20738031, 0.07356432, 0.04643455, -1.3015898, -0.9538565]),
    ("tf.random.stateless_truncated_normal([6], [1, 2])",
     [0.5441101, 0.20738031, 0.07356432, 0.04643455, 0.16820592, -1.6850333]),
    ("tf.random.stateless_uniform([3], [1, 2], dtype=tf.float64)",
     [0.75248375, 0.96978577, 0.17592234]),
    ("tf.random.stateless_uniform([5], [1, 2], 0, 10, dtype=tf.int32)", [0, 9, 4, 9, 7]),
    ("tf.random.stateless_truncated_normal([7], [3, -4], dtype=tf.float64)",
     [0.52786844, 0.93116498, 0.61505087, -0.58301708, 1.37886128, 0.46727062, -0.62977036]),
    ("tf.random.stateless_truncated_normal([9], [3, -4])",
     [-1.780291, -0.30832916, -0.31064567, -0.3837282, -0.62937623, 0.25875476, 0.58724314,
      1.2202371, 1.4188383]),
    ("tf.random.stateless_categorical(tf.log([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]]), 6, [1, 2])",
     [[1, 2, 0, 2, 1, 1], [2, 2, 2, 2, 2, 2]]),
    ("tf.random.split([1, 2])", [[1105988140, 1738052849], [-335576002, 370444179]]),
    ("tf.random.fold_in([1, 2], 5)", [1105988140, 5]),
]


@pytest.mark.parametrize("expression, values", KNOWN, ids=[k[0] for k in KNOWN])
def test_tensorflows_values(expression, values):
    with tf.Graph().as_default():
        out = eval(expression, {"tf": tf})  # noqa: S307
        with tf.Session() as sess:
            got, again = sess.run(out), sess.run(out)
    np.testing.assert_allclose(got, values, rtol=1e-5)
    np.testing.assert_array_equal(got, again)


def test_shapes_ops_and_no_gradient():
    with tf.Graph().as_default() as g:
        seed = tf.placeholder(tf.int32, [2])
        mean = tf.constant(1.)
        y = tf.random.stateless_normal([2, 3], seed, mean=mean)
        assert y.shape.as_list() == [2, 3]
        assert {"StatelessRandomGetKeyCounter", "StatelessRandomNormalV2"} <= {
            op.type for op in g.get_operations()}
        assert tf.random.stateless_uniform(tf.placeholder(tf.int32, [2]), seed).shape.rank == 2
        assert tf.gradients(tf.reduce_sum(y), mean)[0] is not None
        with tf.Session() as sess:
            a = sess.run(y, {seed: [4, 5]})
            b = sess.run(y, {seed: [4, 6]})
    assert not np.allclose(a, b)


ERRORS = [
    ("tf.random.stateless_uniform([2], [1, 2, 3])", ValueError),
    ("tf.random.stateless_uniform([2], [1, 2], None, 4, dtype=tf.int32)", ValueError),
    ("tf.random.stateless_uniform([2], [1, 2], dtype=tf.string)", ValueError),
    ("tf.random.stateless_normal([2], [1, 2], alg='threefry2x32')", ValueError),
]


@pytest.mark.parametrize("expression, error", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(expression, error):
    with tf.Graph().as_default(), pytest.raises(error):
        eval(expression, {"tf": tf})  # noqa: S307


def test_minval_not_below_maxval_fails_at_run_time():
    with tf.Graph().as_default():
        y = tf.random.stateless_uniform([2], [1, 2], 5, tf.constant(5), dtype=tf.int32)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(y)


@pytest.mark.parametrize("name", ["all_candidate_sampler", "fixed_unigram_candidate_sampler",
                                  "learned_unigram_candidate_sampler",
                                  "log_uniform_candidate_sampler", "uniform_candidate_sampler"])
def test_candidate_samplers_are_nns(name):
    assert getattr(tf.random, name) is getattr(tf.nn, name)
