"""tf.nn.rnn_cell: TF 1.15's variable names, shapes and initial values, one step of each
cell against a NumPy transcription of its equations, zero states, wrappers, and the
errors TF raises."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

rc = tf.nn.rnn_cell
R = np.random.RandomState(3)
X = R.uniform(-1, 1, (2, 3)).astype(np.float32)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# (cell factory, [(variable name, shape, initial value or None for random)]).
VARIABLES = [
    (lambda: rc.BasicRNNCell(4), [("basic_rnn_cell/kernel", [7, 4], None),
                                  ("basic_rnn_cell/bias", [4], 0.0)]),
    (lambda: rc.GRUCell(4), [("gru_cell/gates/kernel", [7, 8], None),
                             ("gru_cell/gates/bias", [8], 1.0),
                             ("gru_cell/candidate/kernel", [7, 4], None),
                             ("gru_cell/candidate/bias", [4], 0.0)]),
    (lambda: rc.GRUCell(4, bias_initializer=tf.constant_initializer(0.5)),
     [("gru_cell/gates/kernel", [7, 8], None), ("gru_cell/gates/bias", [8], 0.5),
      ("gru_cell/candidate/kernel", [7, 4], None), ("gru_cell/candidate/bias", [4], 0.5)]),
    (lambda: rc.BasicLSTMCell(4), [("basic_lstm_cell/kernel", [7, 16], None),
                                   ("basic_lstm_cell/bias", [16], 0.0)]),
    (lambda: rc.LSTMCell(4, use_peepholes=True, num_proj=2,
                         initializer=tf.constant_initializer(0.25)),
     [("lstm_cell/kernel", [5, 16], 0.25), ("lstm_cell/bias", [16], 0.0),
      ("lstm_cell/w_f_diag", [4], 0.25), ("lstm_cell/w_i_diag", [4], 0.25),
      ("lstm_cell/w_o_diag", [4], 0.25), ("lstm_cell/projection/kernel", [4, 2], 0.25)]),
    (lambda: rc.LSTMCell(4, num_unit_shards=2),
     [("lstm_cell/kernel/part_0", [4, 16], None), ("lstm_cell/kernel/part_1", [3, 16], None),
      ("lstm_cell/bias", [16], 0.0)]),
    (lambda: rc.MultiRNNCell([rc.BasicLSTMCell(4), rc.GRUCell(2)]),
     [("multi_rnn_cell/cell_0/basic_lstm_cell/kernel", [7, 16], None),
      ("multi_rnn_cell/cell_0/basic_lstm_cell/bias", [16], 0.0),
      ("multi_rnn_cell/cell_1/gru_cell/gates/kernel", [6, 4], None),
      ("multi_rnn_cell/cell_1/gru_cell/gates/bias", [4], 1.0),
      ("multi_rnn_cell/cell_1/gru_cell/candidate/kernel", [6, 2], None),
      ("multi_rnn_cell/cell_1/gru_cell/candidate/bias", [2], 0.0)]),
    (lambda: rc.DropoutWrapper(rc.ResidualWrapper(rc.BasicRNNCell(3)), output_keep_prob=0.9),
     [("basic_rnn_cell/kernel", [6, 3], None), ("basic_rnn_cell/bias", [3], 0.0)]),
]


@pytest.mark.parametrize("make, expected", VARIABLES)
def test_variable_names_shapes_and_initial_values(make, expected):
    with tf.Graph().as_default():
        cell = make()
        x = tf.constant(X)
        cell(x, cell.zero_state(2, tf.float32))
        variables = tf.global_variables()
        assert [(v.op.name, v.shape.as_list()) for v in variables] == \
            [(name, shape) for name, shape, _ in expected]
        assert len(cell.trainable_weights) == len(expected)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v, (_, _, init) in zip(variables, expected):
                if init is not None:
                    np.testing.assert_allclose(sess.run(v), init)


def _basic_rnn(w, x, s):
    out = np.tanh(np.concatenate([x, s], 1) @ w["kernel"] + w["bias"])
    return out, out


def _gru(w, x, s):
    value = _sigmoid(np.concatenate([x, s], 1) @ w["gates/kernel"] + w["gates/bias"])
    r, u = np.split(value, 2, axis=1)
    c = np.tanh(np.concatenate([x, r * s], 1) @ w["candidate/kernel"] + w["candidate/bias"])
    h = u * s + (1 - u) * c
    return h, h


def _basic_lstm(forget_bias):
    def step(w, x, state):
        c, h = state
        i, j, f, o = np.split(np.concatenate([x, h], 1) @ w["kernel"] + w["bias"], 4, axis=1)
        new_c = c * _sigmoid(f + forget_bias) + _sigmoid(i) * np.tanh(j)
        new_h = np.tanh(new_c) * _sigmoid(o)
        return new_h, (new_c, new_h)
    return step


def _lstm_full(w, x, state):
    c, m = state
    i, j, f, o = np.split(np.concatenate([x, m], 1) @ w["kernel"] + w["bias"], 4, axis=1)
    c = _sigmoid(f + 1.0 + w["w_f_diag"] * c) * c + _sigmoid(i + w["w_i_diag"] * c) * np.tanh(j)
    c = np.clip(c, -0.5, 0.5)
    m = _sigmoid(o + w["w_o_diag"] * c) * np.tanh(c)
    m = np.clip(m @ w["projection/kernel"], -0.2, 0.2)
    return m, (c, m)


# (cell factory, NumPy step, state as a structure of sizes).
STEPS = [
    (lambda: rc.BasicRNNCell(4), _basic_rnn, 4),
    (lambda: rc.GRUCell(4), _gru, 4),
    (lambda: rc.BasicLSTMCell(4, forget_bias=0.7), _basic_lstm(0.7), (4, 4)),
    (lambda: rc.LSTMCell(4, use_peepholes=True, cell_clip=0.5, num_proj=3, proj_clip=0.2),
     _lstm_full, (4, 3)),
]


@pytest.mark.parametrize("make, numpy_step, sizes", STEPS)
def test_one_step_matches_the_equations(make, numpy_step, sizes):
    rng = np.random.RandomState(5)
    state_np = tuple(rng.uniform(-1, 1, (2, s)).astype(np.float32) for s in
                     (sizes if isinstance(sizes, tuple) else (sizes,)))
    with tf.Graph().as_default():
        cell = make()
        state = tuple(tf.constant(s) for s in state_np)
        if not isinstance(sizes, tuple):
            state = state[0]
        elif "LSTM" in type(cell).__name__:
            state = rc.LSTMStateTuple(*state)
        output, new_state = cell(tf.constant(X), state)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            weights = {}
            for v in tf.global_variables():
                value = rng.uniform(-0.7, 0.7, v.shape.as_list()).astype(np.float32)
                v.load(value, sess)
                weights[v.op.name.split("/", 1)[1]] = value
            got_out, got_state = sess.run([output, new_state])
    want_out, want_state = numpy_step(weights, X, state_np if isinstance(sizes, tuple)
                                      else state_np[0])
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-6)
    got_state, want_state = _flatten(got_state), _flatten(want_state)
    assert len(got_state) == len(want_state)
    for g, w in zip(got_state, want_state):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


# (cell factory, state_size, output_size, zero-state shapes).
SIZES = [
    (lambda: rc.BasicRNNCell(3), 3, 3, [[5, 3]]),
    (lambda: rc.BasicLSTMCell(3), rc.LSTMStateTuple(3, 3), 3, [[5, 3], [5, 3]]),
    (lambda: rc.BasicLSTMCell(3, state_is_tuple=False), 6, 3, [[5, 6]]),
    (lambda: rc.LSTMCell(3, num_proj=2), rc.LSTMStateTuple(3, 2), 2, [[5, 3], [5, 2]]),
    (lambda: rc.LSTMCell(3, num_proj=2, state_is_tuple=False), 5, 2, [[5, 5]]),
    (lambda: rc.MultiRNNCell([rc.GRUCell(2), rc.BasicLSTMCell(3)]),
     (2, rc.LSTMStateTuple(3, 3)), 3, [[5, 2], [5, 3], [5, 3]]),
    (lambda: rc.MultiRNNCell([rc.GRUCell(2), rc.BasicRNNCell(3)], state_is_tuple=False), 5, 3,
     [[5, 5]]),
    (lambda: rc.DeviceWrapper(rc.GRUCell(2), "/cpu:0"), 2, 2, [[5, 2]]),
]


@pytest.mark.parametrize("make, state_size, output_size, shapes", SIZES)
def test_sizes_and_zero_state(make, state_size, output_size, shapes):
    with tf.Graph().as_default():
        cell = make()
        assert cell.state_size == state_size
        assert cell.output_size == output_size
        zero = _flatten(cell.zero_state(5, tf.float32))
        assert [z.shape.as_list() for z in zero] == shapes
        batch = tf.placeholder(tf.int32, [])
        dynamic = _flatten(cell.get_initial_state(batch_size=batch, dtype=tf.float32))
        with tf.Session() as sess:
            assert [list(v.shape) for v in sess.run(dynamic, {batch: 5})] == shapes


def _flatten(x):
    if isinstance(x, (list, tuple)):
        return [y for v in x for y in _flatten(v)]
    return [x]


# (callable raising, exception type, message fragment).
ERRORS = [
    (lambda: rc.MultiRNNCell([]), ValueError, "Must specify at least one cell"),
    (lambda: rc.MultiRNNCell(rc.GRUCell(2)), TypeError, "cells must be a list or tuple"),
    (lambda: rc.MultiRNNCell([rc.BasicLSTMCell(2)], state_is_tuple=False), ValueError,
     "Some cells return tuples of states"),
    (lambda: rc.DropoutWrapper(rc.GRUCell(2), input_keep_prob=1.5), ValueError,
     "Parameter input_keep_prob must be between 0 and 1"),
    (lambda: rc.DropoutWrapper(rc.GRUCell(2), variational_recurrent=True), ValueError,
     "When variational_recurrent=True, dtype must be provided"),
    (lambda: rc.DropoutWrapper(rc.GRUCell(2), input_keep_prob=0.5, variational_recurrent=True,
                               dtype=tf.float32), ValueError, "input_size must be provided"),
    (lambda: rc.DropoutWrapper("cell"), TypeError, "is not an RNNCell"),
    (lambda: rc.RNNCell().state_size, NotImplementedError, "Abstract method"),
    (lambda: rc.LSTMStateTuple(tf.zeros([1]), tf.zeros([1], tf.int32)).dtype, TypeError,
     "Inconsistent internal state"),
    (lambda: rc.BasicRNNCell(2)(tf.placeholder(tf.float32, [2, None]), tf.zeros([2, 2])),
     ValueError, "Expected inputs.shape[-1] to be known"),
    (lambda: rc.BasicRNNCell(2).get_initial_state(), ValueError,
     "batch_size and dtype cannot be None"),
]


@pytest.mark.parametrize("fn, error, message", ERRORS)
def test_errors(fn, error, message):
    with tf.Graph().as_default():
        with pytest.raises(error, match=message.replace("[", r"\[").replace("]", r"\]")):
            fn()


def _run_dropout(wrapper_kwargs, steps=3, seed=7):
    with tf.Graph().as_default():
        tf.set_random_seed(seed)
        base = rc.BasicLSTMCell(4)
        cell = rc.DropoutWrapper(base, seed=1, **wrapper_kwargs)
        x = tf.constant(np.ones((2, steps, 3), np.float32))
        outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        plain, plain_state = tf.nn.dynamic_rnn(base, x, dtype=tf.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run([outputs, state, plain, plain_state])


def test_output_dropout_zeroes_or_scales():
    out, _, plain, _ = _run_dropout({"output_keep_prob": 0.5})
    kept = out != 0
    assert 0 < kept.sum() < out.size
    np.testing.assert_allclose(out[kept], 2 * plain[kept], rtol=1e-5)


def test_state_dropout_leaves_the_lstm_memory_alone():
    _, state, _, _ = _run_dropout({"state_keep_prob": 0.01}, steps=1)
    assert np.count_nonzero(state.c) == state.c.size
    assert np.count_nonzero(state.h) < state.h.size


def test_variational_dropout_keeps_one_mask_for_every_step():
    out, _, _, _ = _run_dropout({"output_keep_prob": 0.5, "variational_recurrent": True,
                                 "dtype": tf.float32}, steps=4)
    mask = out != 0
    assert 0 < mask.sum() < mask.size
    for t in range(1, 4):
        np.testing.assert_array_equal(mask[:, t], mask[:, 0])


def test_residual_wrapper_adds_the_inputs():
    with tf.Graph().as_default():
        base = rc.GRUCell(3)
        x = tf.constant(X)
        state = base.zero_state(2, tf.float32)
        res_out, _ = rc.ResidualWrapper(base)(x, state)
        out, _ = base(x, state)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, b = sess.run([res_out, out])
    np.testing.assert_allclose(a, b + X, rtol=1e-6)


class GetVariableCell(rc.RNNCell):
    """A user cell that makes its variables with tf.get_variable inside `call`."""

    state_size = property(lambda self: 2)
    output_size = property(lambda self: 2)

    def call(self, inputs, state):
        w = tf.get_variable("w", [inputs.shape[1] + 2, 2])
        steps = tf.get_variable("steps", [], trainable=False,
                                initializer=tf.zeros_initializer())
        out = tf.tanh(tf.matmul(tf.concat([inputs, state], 1), w)) + steps
        return out, out


def test_a_user_cell_tracks_the_variables_its_call_makes():
    with tf.Graph().as_default():
        cell = GetVariableCell()
        outputs, _ = tf.nn.dynamic_rnn(cell, tf.constant(np.ones((2, 3, 3), np.float32)),
                                       dtype=tf.float32)
        assert [v.op.name for v in cell.trainable_weights] == ["rnn/get_variable_cell/w"]
        assert [v.op.name for v in cell.non_trainable_variables] == \
            ["rnn/get_variable_cell/steps"]
        assert len(cell.weights) == 2
        assert outputs.shape.as_list() == [2, 3, 2]


def test_scope_argument_names_the_cell_scope():
    with tf.Graph().as_default():
        cell = rc.BasicRNNCell(2)
        x = tf.constant(X)
        cell(x, cell.zero_state(2, tf.float32), scope="my_cell")
        cell(x, cell.zero_state(2, tf.float32))
        assert [v.op.name for v in tf.global_variables()] == ["my_cell/kernel", "my_cell/bias"]
        assert len(cell.trainable_weights) == 2
