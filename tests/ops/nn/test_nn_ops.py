"""dropout, top_k, in_top_k and zero_fraction of tf.nn: TF1 semantics, graphs and
errors as TensorFlow 2.21 has them."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def test_dropout_scales_kept_values_and_builds_tensorflows_graph():
    with tf.Graph().as_default() as g:
        x = tf.ones([200, 50])
        y = tf.nn.dropout(x, keep_prob=0.25, seed=3)
        assert y.name == "dropout/SelectV2:0" and y.shape.as_list() == [200, 50]
        uniform = g.get_operation_by_name("dropout/random_uniform/RandomUniform")
        assert (uniform.get_attr("seed"), uniform.get_attr("seed2")) == (87654321, 3)
        assert g.get_operation_by_name("dropout/GreaterEqual").type == "GreaterEqual"
        with tf.Session() as sess:
            out = sess.run(y)
    assert set(np.unique(out)) <= {0.0, 4.0}
    assert abs(np.mean(out != 0) - 0.25) < 0.03


def test_dropout_keep_prob_one_returns_the_input():
    with tf.Graph().as_default():
        x = tf.ones([2, 3])
        assert tf.nn.dropout(x, keep_prob=1.0) is x
        assert tf.nn.dropout(x, rate=0.0) is x


def test_dropout_seed_reproducible_and_noise_shape_broadcasts():
    def run():
        with tf.Graph().as_default():
            tf.set_random_seed(7)
            y = tf.nn.dropout(tf.ones([6, 5]), rate=0.5, noise_shape=[6, 1])
            with tf.Session() as sess:
                return sess.run(y)
    a, b = run(), run()
    np.testing.assert_array_equal(a, b)
    assert np.all((a == a[:, :1]))  # whole rows kept or dropped
    assert set(np.unique(a)) <= {0.0, 2.0}


def test_dropout_with_tensor_keep_prob():
    with tf.Graph().as_default():
        keep = tf.placeholder(tf.float32, [])
        y = tf.nn.dropout(tf.ones([100, 100]), keep_prob=keep, seed=1)
        with tf.Session() as sess:
            out = sess.run(y, {keep: 0.5})
            same = sess.run(y, {keep: 1.0})
    assert set(np.unique(out)) <= {0.0, 2.0}
    np.testing.assert_array_equal(same, np.ones([100, 100]))


@pytest.mark.parametrize("kwargs, message", [
    ({"keep_prob": 0.0}, r"`rate` must be a scalar tensor or a float in the range \[0, 1\). "
                         r"Received: rate=1.0"),
    ({"rate": 1.0}, r"`rate` must be a scalar tensor or a float in the range \[0, 1\)"),
    ({"keep_prob": 0.5, "rate": 0.5}, "Cannot specify both 'keep_prob' and 'rate'."),
    ({}, "`rate` must be provided."),
    ({"keep_prob": "half"}, "`keep_prob` must be a floating point number or Tensor."),
])
def test_dropout_argument_errors(kwargs, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            tf.nn.dropout(tf.ones([2]), **kwargs)


def test_dropout_rejects_integer_inputs():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="`x.dtype` must be a floating point tensor as "
                                             "`x` will be scaled."):
            tf.nn.dropout(tf.constant([1, 2]), keep_prob=0.5)


def test_top_k_matches_tensorflow():
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 5.0, 3.0, 2.0, 4.0], [2.0, 2.0, 1.0, 0.0, 9.0]])
        values, indices = tf.nn.top_k(x, 3)
        ties = tf.nn.top_k(tf.constant([[1.0, 3.0, 3.0, 2.0, 3.0]]), 3)
        k = tf.placeholder(tf.int32, [])
        dynamic = tf.nn.top_k(x, k)
        assert values.name == "TopKV2:0" and indices.dtype == tf.int32
        assert values.shape.as_list() == [2, 3] and dynamic.values.shape.as_list() == [2, None]
        (dx,) = tf.gradients(values, x, grad_ys=tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
        with tf.Session() as sess:
            v, i, t, d, dyn = sess.run([values, indices, ties, dx, dynamic], {k: 1})
    np.testing.assert_array_equal(v, [[5, 4, 3], [9, 2, 2]])
    np.testing.assert_array_equal(i, [[1, 4, 2], [4, 0, 1]])
    np.testing.assert_array_equal(t.indices, [[1, 2, 4]])
    np.testing.assert_array_equal(d, [[0, 1, 3, 0, 2], [5, 6, 0, 0, 4]])  # TensorFlow's
    np.testing.assert_array_equal(dyn.values, [[5], [9]])


def test_top_k_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="input must have last dimension >= k = 5 but is 3"):
            tf.nn.top_k(tf.ones([2, 3]), 5)
        with pytest.raises(ValueError, match="Dimension size, given by scalar input 1, must be "
                                             "non-negative but is -1"):
            tf.nn.top_k(tf.ones([2, 3]), -1)
        with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
            tf.nn.top_k(tf.constant(1.0), 1)
        k = tf.placeholder(tf.int32, [])
        top = tf.nn.top_k(tf.ones([2, 3]), k)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="input must have at least k columns. Had 3, needed 5"):
                sess.run(top, {k: 5})
            with pytest.raises(tf.errors.InvalidArgumentError, match="Need k >= 0, got -1"):
                sess.run(top, {k: -1})


def test_in_top_k_matches_tensorflow():
    with tf.Graph().as_default():
        preds = tf.constant([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0],
                             [3.0, 3.0, 3.0]])
        hit = tf.nn.in_top_k(preds, tf.constant([2, 2, 5, 1]), 1)
        ties = tf.nn.in_top_k(tf.constant([[3.0, 3.0, 3.0], [1.0, 2.0, 2.0]]), [1, 1], 1)
        negative_k = tf.nn.in_top_k(tf.constant([[1.0, 2.0]]), [1], -1)
        assert hit.name == "in_top_k/InTopKV2:0" and hit.dtype == tf.bool
        assert hit.shape.as_list() == [4]
        with tf.Session() as sess:
            a, b, c = sess.run([hit, ties, negative_k])
    assert a.tolist() == [False, True, False, True]
    assert b.tolist() == [True, True]
    assert c.tolist() == [False]
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
            tf.nn.in_top_k(tf.constant([1.0, 2.0]), tf.constant([1]), 1)


def test_zero_fraction():
    with tf.Graph().as_default():
        z = tf.nn.zero_fraction(tf.constant([[0, 3, 0], [1, 0, 0]]))
        assert z.name == "zero_fraction/fraction:0" and z.dtype == tf.float32
        with tf.Session() as sess:
            assert sess.run(z) == pytest.approx(4 / 6)
