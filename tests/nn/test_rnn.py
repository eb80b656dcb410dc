"""tf.nn.dynamic_rnn, static_rnn and the bidirectional drivers: dynamic and static agree
(outputs, states, gradients), sequence_length masking (zero outputs, state copied
through), scopes and variable names, the while loop underneath, and TF's errors."""
import re

import numpy as np
import pytest

import trainflow.compat.v1 as tf

rc = tf.nn.rnn_cell
R = np.random.RandomState(11)
X = R.uniform(-1, 1, (3, 5, 2)).astype(np.float32)
SEQ = [5, 2, 0]


def _flatten(x):
    if isinstance(x, (list, tuple)):
        return [y for v in x for y in _flatten(v)]
    return [x]


def _run(fetches):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches)


CELLS = [
    lambda: rc.BasicRNNCell(3),
    lambda: rc.GRUCell(3),
    lambda: rc.BasicLSTMCell(3),
    lambda: rc.LSTMCell(3, use_peepholes=True, num_proj=2),
    lambda: rc.MultiRNNCell([rc.BasicLSTMCell(3), rc.GRUCell(2)]),
]


@pytest.mark.parametrize("make", CELLS)
@pytest.mark.parametrize("seq", [None, SEQ])
def test_dynamic_and_static_agree(make, seq):
    with tf.Graph().as_default():
        cell = make()
        x = tf.constant(X)
        outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=seq, dtype=tf.float32)
        s_outputs, s_state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1),
                                              sequence_length=seq, dtype=tf.float32)
        s_outputs = tf.stack(s_outputs, axis=1)
        assert outputs.shape.as_list() == s_outputs.shape.as_list()
        variables = tf.trainable_variables()
        grads = tf.gradients(tf.reduce_sum(outputs * outputs) + tf.add_n(
            [tf.reduce_sum(s) for s in _flatten(state)]), [x] + variables)
        s_grads = tf.gradients(tf.reduce_sum(s_outputs * s_outputs) + tf.add_n(
            [tf.reduce_sum(s) for s in _flatten(s_state)]), [x] + variables)
        got, want = _run([[outputs, _flatten(state), grads],
                          [s_outputs, _flatten(s_state), s_grads]])
    for g, w in zip(_flatten(got), _flatten(want)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_sequence_length_zeroes_outputs_and_copies_the_state_through():
    with tf.Graph().as_default():
        outputs, state = tf.nn.dynamic_rnn(rc.GRUCell(3), tf.constant(X), sequence_length=SEQ,
                                           dtype=tf.float32)
        out, last = _run([outputs, state])
    for b, length in enumerate(SEQ):
        assert not out[b, length:].any()
        np.testing.assert_allclose(last[b], out[b, length - 1] if length else 0, rtol=1e-6,
                                   atol=1e-7)


def test_the_loop_stops_at_the_longest_sequence():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, None, 2])
        outputs, _ = tf.nn.dynamic_rnn(rc.BasicRNNCell(2), x, sequence_length=[1, 2],
                                       dtype=tf.float32, parallel_iterations=4,
                                       swap_memory=True)
        loops = [op for op in tf.get_default_graph().get_operations()
                 if op.type in ("While", "StatelessWhile")]
        assert len(loops) == 1
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(outputs, {x: np.ones((2, 6, 2), np.float32)})
    assert out.shape == (2, 6, 2)
    assert not out[:, 2:].any() and out[1, 1].any()


def test_time_major_and_initial_state():
    with tf.Graph().as_default():
        cell = rc.BasicLSTMCell(3)
        init = rc.LSTMStateTuple(tf.ones([3, 3]), tf.ones([3, 3]))
        bm, bm_state = tf.nn.dynamic_rnn(cell, tf.constant(X), initial_state=init)
        tm, tm_state = tf.nn.dynamic_rnn(cell, tf.constant(X.transpose(1, 0, 2)),
                                         initial_state=init, time_major=True)
        assert tm.shape.as_list() == [5, 3, 3]
        a, b, sa, sb = _run([bm, tm, bm_state, tm_state])
    np.testing.assert_allclose(a, b.transpose(1, 0, 2), rtol=1e-6)
    np.testing.assert_allclose(sa.h, sb.h, rtol=1e-6)


# (driver, expected variable names).
SCOPES = [
    (lambda c, x: tf.nn.dynamic_rnn(c, x, dtype=tf.float32),
     ["rnn/gru_cell/gates/kernel", "rnn/gru_cell/gates/bias", "rnn/gru_cell/candidate/kernel",
      "rnn/gru_cell/candidate/bias"]),
    (lambda c, x: tf.nn.dynamic_rnn(c, x, dtype=tf.float32, scope="encoder"),
     ["encoder/gru_cell/gates/kernel", "encoder/gru_cell/gates/bias",
      "encoder/gru_cell/candidate/kernel", "encoder/gru_cell/candidate/bias"]),
    (lambda c, x: tf.nn.static_rnn(c, tf.unstack(x, axis=1), dtype=tf.float32, scope="dec"),
     ["dec/gru_cell/gates/kernel", "dec/gru_cell/gates/bias", "dec/gru_cell/candidate/kernel",
      "dec/gru_cell/candidate/bias"]),
    (lambda c, x: tf.nn.bidirectional_dynamic_rnn(c, rc.BasicRNNCell(2), x, dtype=tf.float32),
     ["bidirectional_rnn/fw/gru_cell/gates/kernel", "bidirectional_rnn/fw/gru_cell/gates/bias",
      "bidirectional_rnn/fw/gru_cell/candidate/kernel",
      "bidirectional_rnn/fw/gru_cell/candidate/bias", "bidirectional_rnn/bw/basic_rnn_cell/kernel",
      "bidirectional_rnn/bw/basic_rnn_cell/bias"]),
]


@pytest.mark.parametrize("driver, names", SCOPES)
def test_variable_scopes(driver, names):
    with tf.Graph().as_default():
        driver(rc.GRUCell(2), tf.constant(X))
        assert [v.op.name for v in tf.global_variables()] == names


def test_bidirectional_outputs_are_time_aligned():
    with tf.Graph().as_default():
        x = tf.constant(X)
        cell = rc.GRUCell(2)
        (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(cell, cell, x, sequence_length=[5, 2, 3],
                                                      dtype=tf.float32)
        outs, _, _ = tf.nn.static_bidirectional_rnn(cell, cell, tf.unstack(x, axis=1),
                                                    sequence_length=[5, 2, 3],
                                                    dtype=tf.float32)
        dyn, sta = _run([tf.concat([fw, bw], 2), tf.stack(outs, 1)])
    np.testing.assert_allclose(dyn, sta, rtol=1e-5, atol=1e-6)


# (callable raising, exception type, message fragment).
ERRORS = [
    (lambda: tf.nn.dynamic_rnn(rc.GRUCell(2), tf.constant(X)), ValueError,
     "If there is no initial_state, you must give a dtype."),
    (lambda: tf.nn.static_rnn(rc.GRUCell(2), tf.unstack(tf.constant(X), axis=1)), ValueError,
     "If no initial_state is provided, dtype must be specified"),
    (lambda: tf.nn.static_rnn(rc.GRUCell(2), tf.constant(X), dtype=tf.float32), TypeError,
     "inputs must be a sequence"),
    (lambda: tf.nn.static_rnn(rc.GRUCell(2), [], dtype=tf.float32), ValueError,
     "inputs must not be empty"),
    (lambda: tf.nn.dynamic_rnn(rc.GRUCell(2), tf.constant(X), sequence_length=[[1]],
                               dtype=tf.float32), ValueError,
     "sequence_length must be a vector of length batch_size"),
    (lambda: tf.nn.dynamic_rnn("cell", tf.constant(X), dtype=tf.float32), TypeError,
     "is not an RNNCell"),
    (lambda: tf.nn.dynamic_rnn(rc.GRUCell(2), tf.zeros([3, 4]), dtype=tf.float32),
     ValueError, "must have rank at least 3"),
    (lambda: tf.nn.raw_rnn(rc.GRUCell(2), "loop_fn"), TypeError, "loop_fn must be a callable"),
    (lambda: tf.nn.static_state_saving_rnn(rc.BasicLSTMCell(2), [tf.zeros([1, 2])], None, "c"),
     ValueError, "state_name should be the same type as cell.state_size"),
    (lambda: tf.nn.static_state_saving_rnn(rc.BasicLSTMCell(2), [tf.zeros([1, 2])], None,
                                           ("c", "h", "x")),
     ValueError, "#elems(state_name) != #elems(state_size): 3 vs. 2"),
    (lambda: tf.nn.dynamic_rnn(rc.GRUCell(2), tf.placeholder(tf.float32, [2, 3, None]),
                               dtype=tf.float32), ValueError,
     "Input size (depth of inputs) must be accessible"),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors(fn, error, message):
    with tf.Graph().as_default():
        with pytest.raises(error, match=re.escape(message)):
            fn()


def test_sequence_length_of_the_wrong_batch_fails_when_run():
    with tf.Graph().as_default():
        seq = tf.placeholder(tf.int32, [None])
        outputs, _ = tf.nn.dynamic_rnn(rc.GRUCell(2), tf.constant(X), sequence_length=seq,
                                       dtype=tf.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Expected shape for Tensor"):
                sess.run(outputs, {seq: [1, 2]})
