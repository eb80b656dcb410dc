"""tf.GradientTape's rules in graph mode (TensorFlow's backprop_test cases that hold
without eager execution): watching, persistence, stop_recording, reset, accessed
variables."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def test_non_persistent_tape_answers_once():
    with tf.Graph().as_default():
        x = tf.constant(3.)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        tape.gradient(y, x)
        with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
            tape.gradient(y, x)


def test_stop_recording_and_reset():
    with tf.Graph().as_default():
        x = tf.constant(3.)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
            with tape.stop_recording():
                z = x * 5.
            w = y + z
        assert tape.gradient(z, x) is None
        with tf.Session() as sess:
            assert sess.run(tape.gradient(w, x)) == 6.
        with tf.GradientTape() as tape2:
            tape2.watch(x)
            y2 = x * x
            tape2.reset()
            y3 = x * 4.
        assert tape2.gradient(y2 + y3, x) is None
        with pytest.raises(ValueError, match="must be recording"):
            tape2.stop_recording().__enter__()


def test_accessed_variables_are_watched():
    with tf.Graph().as_default():
        v = tf.Variable(2., use_resource=True)
        frozen = tf.Variable(4., trainable=False, use_resource=True)
        with tf.GradientTape() as tape:
            y = v * v * frozen
        assert tape.watched_variables() == (v,)
        g = tape.gradient(y, [v, frozen])
        assert g[1] is None
        with tf.GradientTape(watch_accessed_variables=False) as tape2:
            y2 = v * 3.
        assert tape2.watched_variables() == ()
        assert tape2.gradient(y2, v) is None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(g[0]) == 16.


def test_ref_variable_and_nested_tapes():
    with tf.Graph().as_default():
        v = tf.Variable(3.)
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = v * v * v
            dy = inner.gradient(y, v)
        d2y = outer.gradient(dy, v)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run([dy, d2y]), [27., 18.])


def test_watch_rejects_other_objects():
    with tf.Graph().as_default():
        with tf.GradientTape() as tape, pytest.raises(ValueError):
            tape.watch("a")


def test_recompute_grad_reaches_the_variables_it_reads():
    with tf.Graph().as_default():
        v = tf.Variable(2., use_resource=True)
        x = tf.constant(3.)
        y = tf.recompute_grad(lambda a: tf.sin(a * v) * v)(x)
        g = tf.gradients(y, [x, v])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([y] + g)
    np.testing.assert_allclose(got, [np.sin(6.) * 2, np.cos(6.) * 4,
                                     np.sin(6.) + np.cos(6.) * 6], rtol=1e-5)
