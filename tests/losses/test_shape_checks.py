"""Weights broadcasting and squeezing helpers (trainflow._src.losses.shape_checks)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.losses import shape_checks


def test_static_checks_become_no_ops_or_errors():
    with tf.Graph().as_default():
        values = tf.zeros([4, 3])
        assert shape_checks.assert_broadcastable(2.0, values).name.endswith(
            "static_scalar_check_success")
        assert shape_checks.assert_broadcastable(tf.ones([4, 1]), values).name.endswith(
            "static_dims_check_success")
        with pytest.raises(ValueError, match="Mismatch at dim 1"):
            shape_checks.assert_broadcastable(tf.ones([4, 2]), values)
        with pytest.raises(ValueError, match="values.rank=2. weights.rank=1"):
            shape_checks.assert_broadcastable(tf.ones([3]), values)


@pytest.mark.parametrize("weights, ok", [
    (np.float32(2.0), True), (np.ones([4, 1], np.float32), True),
    (np.ones([1, 3], np.float32), True), (np.ones([4, 3], np.float32), True),
    (np.ones([3, 4], np.float32), False), (np.ones([4], np.float32), False),
    (np.ones([4, 3, 1], np.float32), False)])
def test_dynamic_check_runs_an_assert(weights, ok):
    with tf.Graph().as_default():
        w = tf.placeholder(tf.float32, None)
        v = tf.placeholder(tf.float32, None)
        check = shape_checks.assert_broadcastable(w, v)
        broadcast = shape_checks.broadcast_weights(w, v)
        with tf.Session() as sess:
            feed = {w: weights, v: np.zeros([4, 3], np.float32)}
            if ok:
                sess.run(check, feed)
                np.testing.assert_array_equal(sess.run(broadcast, feed),
                                              np.broadcast_to(weights, [4, 3]))
            else:
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match="weights can not be broadcast"):
                    sess.run(check, feed)


def test_remove_squeezable_dimensions_static_and_dynamic():
    with tf.Graph().as_default():
        labels, preds = shape_checks.remove_squeezable_dimensions(tf.zeros([4, 1]),
                                                                  tf.zeros([4]))
        assert labels.shape.as_list() == [4] and preds.shape.as_list() == [4]
        labels, logits = shape_checks.remove_squeezable_dimensions(
            tf.zeros([4, 1], tf.int32), tf.zeros([4, 3]), expected_rank_diff=1)
        assert labels.shape.as_list() == [4]
        lp = tf.placeholder(tf.float32, None)
        pp = tf.placeholder(tf.float32, None)
        dl, dp = shape_checks.remove_squeezable_dimensions(lp, pp)
        with tf.Session() as sess:
            a, b = sess.run([dl, dp], {lp: np.zeros([5]), pp: np.ones([5, 1])})
    assert a.shape == (5,) and b.shape == (5,)
