"""Dilation2D / erosion2d: shapes, names and argument errors (values and gradients
against TensorFlow are in test_morphology_tf_interop.py)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def test_hand_checked_dilation_and_erosion():
    x = np.array([[1, 5, 2], [0, 3, 4], [7, 1, 1]], np.float32).reshape(1, 3, 3, 1)
    f = np.array([[0, 1], [2, 0]], np.float32).reshape(2, 2, 1)
    with tf.Graph().as_default():
        d = tf.nn.dilation2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
        e = tf.nn.erosion2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1], "VALID", name="ero")
        assert d.shape.as_list() == [1, 2, 2, 1] and d.op.type == "Dilation2D"
        assert e.op.inputs[0].op.name == "ero" and e.op.type == "Neg"
        with tf.Session() as sess:
            dv, ev = sess.run([d, e])
    # max(x[i+a, j+b] + f[a, b]); min(x[i+a, j+b] - f[1-a, 1-b]).
    xs, fs = x[0, :, :, 0], f[:, :, 0]
    want_d = [[max(xs[i + a, j + b] + fs[a, b] for a in (0, 1) for b in (0, 1))
               for j in (0, 1)] for i in (0, 1)]
    want_e = [[min(xs[i + a, j + b] - fs[1 - a, 1 - b] for a in (0, 1) for b in (0, 1))
               for j in (0, 1)] for i in (0, 1)]
    np.testing.assert_array_equal(dv[0, :, :, 0], want_d)
    np.testing.assert_array_equal(ev[0, :, :, 0], want_e)
    np.testing.assert_array_equal(want_d, [[6, 5], [9, 5]])


@pytest.mark.parametrize("build,error", [
    (lambda x, f: tf.nn.dilation2d(x, f, [1, 1, 1], [1, 1, 1, 1], "SAME"), ValueError),
    (lambda x, f: tf.nn.dilation2d(x[0], f, [1, 1, 1, 1], [1, 1, 1, 1], "SAME"), ValueError),
    (lambda x, f: tf.nn.dilation2d(x, f[0], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"), ValueError),
    (lambda x, f: tf.nn.dilation2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1], "FULL"), ValueError),
    (lambda x, f: tf.nn.dilation2d(x, f, filters=f, strides=[1, 1, 1, 1],
                                   rates=[1, 1, 1, 1], padding="SAME"), ValueError),
])
def test_bad_arguments(build, error):
    with tf.Graph().as_default():
        with pytest.raises(error):
            build(tf.zeros([1, 4, 4, 2]), tf.zeros([2, 2, 2]))


def test_batch_strides_fail_at_run_time_as_in_tf():
    with tf.Graph().as_default():
        y = tf.nn.dilation2d(tf.zeros([2, 4, 4, 1]), tf.zeros([2, 2, 1]), [2, 1, 1, 1],
                             [1, 1, 1, 1], "VALID")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="batch and depth"):
                sess.run(y)
