"""The drivers with the structured cells of TensorFlow's own rnn tests (kernel_tests/
rnn_test.py): a cell adding one to its input and state, a cell with multi-dimensional
inputs and states (TensorShape sizes), a cell with nested inputs, outputs and states,
full input dropout, and a clipped cell."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

rc = tf.nn.rnn_cell


class Plus1RNNCell(rc.RNNCell):
    """(output, new_state) = (input + 1, state + 1)."""

    output_size = property(lambda self: 5)
    state_size = property(lambda self: 5)

    def __call__(self, input_, state, scope=None):
        return input_ + 1, state + 1


class MultiDimensionalCell(rc.RNNCell):
    """(output, (h, c)) = (input + 1, (h + 1, c + 1)) for inputs of shape dims."""

    def __init__(self, dims):
        self._dims = dims

    output_size = property(lambda self: tf.TensorShape(self._dims))
    state_size = property(lambda self: (tf.TensorShape(self._dims),
                                        tf.TensorShape(self._dims)))

    def __call__(self, input_, state, scope=None):
        h, c = state
        return input_ + 1, (h + 1, c + 1)


class NestedRNNCell(rc.RNNCell):
    """((x + 1, y + 1), (h + 1, c + 1)) for inputs (x, y) and state (h, c)."""

    output_size = property(lambda self: (5, 5))
    state_size = property(lambda self: (6, 6))

    def __call__(self, input_, state, scope=None):
        h, c = state
        x, y = input_
        return (x + 1, y + 1), (h + 1, c + 1)


R = np.random.RandomState(23489)


def test_plus1_static_with_sequence_length():
    with tf.Graph().as_default():
        inputs = [tf.placeholder(tf.float32, (2, 5))] * 8
        seq = tf.placeholder(tf.int64)
        outputs, state = tf.nn.static_rnn(Plus1RNNCell(), inputs, sequence_length=seq,
                                          dtype=tf.float32)
        value = R.randn(2, 5)
        with tf.Session() as sess:
            out, last = sess.run([outputs, state], {inputs[0]: value, seq: [2, 3]})
    for v in out[:2]:
        np.testing.assert_allclose(v, value + 1, rtol=1e-6)
    np.testing.assert_allclose(out[2], np.vstack([np.zeros(5), value[1] + 1]), rtol=1e-6)
    for v in out[3:]:
        assert not v.any()
    np.testing.assert_array_equal(last, np.vstack([2 * np.ones(5), 3 * np.ones(5)]))


@pytest.mark.parametrize("driver", ["dynamic", "static"])
def test_multi_dimensional_states(driver):
    with tf.Graph().as_default():
        dims = (3, 4, 2)
        x = R.randn(8, 2, *dims).astype(np.float32)
        cell = MultiDimensionalCell(dims)
        if driver == "dynamic":
            outputs, state = tf.nn.dynamic_rnn(cell, tf.constant(x), time_major=True,
                                               sequence_length=[8, 5], dtype=tf.float32)
            assert outputs.shape.as_list() == [8, 2, 3, 4, 2]
        else:
            outputs, state = tf.nn.static_rnn(cell, tf.unstack(tf.constant(x)),
                                              sequence_length=[8, 5], dtype=tf.float32)
            outputs = tf.stack(outputs)
        with tf.Session() as sess:
            out, (h, c) = sess.run([outputs, state])
    assert h.shape == (2, 3, 4, 2)
    np.testing.assert_allclose(out[:, 0], x[:, 0] + 1, rtol=1e-6)
    assert not out[5:, 1].any()
    np.testing.assert_array_equal(h[1], np.full(dims, 5.0))
    np.testing.assert_array_equal(c[0], np.full(dims, 8.0))


@pytest.mark.parametrize("driver", ["dynamic", "static"])
def test_nested_inputs_outputs_and_states(driver):
    with tf.Graph().as_default():
        x = R.randn(2, 4, 5).astype(np.float32)
        y = R.randn(2, 4, 5).astype(np.float32)
        cell = NestedRNNCell()
        if driver == "dynamic":
            (ox, oy), (h, c) = tf.nn.dynamic_rnn(cell, (tf.constant(x), tf.constant(y)),
                                                 dtype=tf.float32)
        else:
            outputs, (h, c) = tf.nn.static_rnn(
                cell, list(zip(tf.unstack(tf.constant(x), axis=1),
                               tf.unstack(tf.constant(y), axis=1))), dtype=tf.float32)
            ox = tf.stack([o[0] for o in outputs], 1)
            oy = tf.stack([o[1] for o in outputs], 1)
        with tf.Session() as sess:
            got = sess.run([ox, oy, h, c])
    np.testing.assert_allclose(got[0], x + 1, rtol=1e-6)
    np.testing.assert_allclose(got[1], y + 1, rtol=1e-6)
    np.testing.assert_array_equal(got[2], np.full((2, 6), 4.0))


def test_full_input_dropout_feeds_zeros():
    with tf.Graph().as_default():
        inputs = [tf.placeholder(tf.float32, (2, 5))] * 8
        cell = rc.DropoutWrapper(Plus1RNNCell(), input_keep_prob=1e-12, seed=0)
        outputs, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
        with tf.Session() as sess:
            out = sess.run(outputs, {inputs[0]: R.randn(2, 5)})
    for v in out:
        np.testing.assert_array_equal(v, np.ones((2, 5)))


def test_cell_clip_zero_gives_zero_outputs():
    with tf.Graph().as_default():
        cell = rc.LSTMCell(3, use_peepholes=True, cell_clip=0.0, state_is_tuple=False,
                           initializer=tf.random_uniform_initializer(-0.01, 0.01, seed=1))
        inputs = [tf.placeholder(tf.float32, (2, 5))] * 8
        outputs, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
        assert all(o.shape.as_list() == [2, 3] for o in outputs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(outputs, {inputs[0]: R.randn(2, 5)})
    for v in out:
        np.testing.assert_array_equal(v, np.zeros((2, 3)))


def test_state_saver_receives_the_final_state():
    class Saver:
        def __init__(self):
            self.saved = {}

        def state(self, name):
            return tf.zeros((2, 6))

        def save_state(self, name, state):
            self.saved[name] = state
            return tf.identity(state)

    with tf.Graph().as_default():
        saver = Saver()
        cell = rc.LSTMCell(3, state_is_tuple=False)
        inputs = [tf.placeholder(tf.float32, (2, 5))] * 8
        outputs, state = tf.nn.static_state_saving_rnn(cell, inputs, saver, "save_lstm")
        assert all(o.shape.as_list() == [2, 3] for o in outputs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            last, saved = sess.run([state, saver.saved["save_lstm"]],
                                   {inputs[0]: R.randn(2, 5)})
    np.testing.assert_array_equal(last, saved)
