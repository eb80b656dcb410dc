"""TensorFlow's own rnn tests, ported: the graph-mode methods of `RNNTest` in
python/kernel_tests/rnn_test.py and the core-cell methods of contrib/rnn's
core_rnn_cell_test.py (`RNNCellTest`, `DropoutWrapperTest`) of TF 1.x, with their
reference numbers. One test function per TF test method, named after it.

Left out (no TF1 graph-mode core equivalent): the Keras-cell and eager-only methods of
rnn_test.py, the contrib cells and wrappers (IndRNN, IndyGRU, IndyLSTM, SRU,
LayerNormLSTM, Input/OutputProjection, Embedding), `_Linear`, object-based checkpointing
and the GPU placement test.
"""
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf

rc = tf.nn.rnn_cell


class Plus1RNNCell(rc.RNNCell):
    """(output, new_state) = (input + 1, state + 1)."""

    @property
    def output_size(self):
        return 5

    @property
    def state_size(self):
        return 5

    def call(self, input_, state, scope=None):
        return input_ + 1, state + 1


class ScalarStateRNNCell(rc.RNNCell):
    @property
    def output_size(self):
        return 1

    @property
    def state_size(self):
        return tf.TensorShape([])

    def zero_state(self, batch_size, dtype):
        return tf.zeros([], dtype=tf.int32)

    def call(self, input_, state, scope=None):
        return input_, state + 1


class UnbalancedOutputRNNCell(rc.RNNCell):
    @property
    def output_size(self):
        return tf.TensorShape(1), tf.TensorShape(2)

    @property
    def state_size(self):
        return tf.TensorShape([])

    def zero_state(self, batch_size, dtype):
        return tf.zeros([], dtype=tf.int32)

    def call(self, input_, state, scope=None):
        return (input_, tf.concat((input_, input_), axis=-1)), state + 1


class TensorArrayStateRNNCell(rc.RNNCell):
    @property
    def output_size(self):
        return 1

    @property
    def state_size(self):
        return (tf.TensorShape([]), ())

    def zero_state(self, batch_size, dtype):
        return (tf.zeros([], dtype=tf.int32),
                tf.TensorArray(dtype=dtype, size=0, dynamic_size=True))

    def call(self, input_, state, scope=None):
        return input_, (state[0] + 1, state[1].write(state[0], input_))


@pytest.fixture(autouse=True)
def _graph():
    np.random.seed(23489)
    with tf.Graph().as_default():
        yield


def _close(a, b, rtol=1e-6, atol=1e-6):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64),
                               rtol=rtol, atol=atol)


# -- rnn_test.py: RNNTest ----------------------------------------------------------------------
def test_invalid_sequence_length_shape():
    inputs = [tf.placeholder(tf.float32, shape=(3, 4))]
    with pytest.raises(ValueError, match="must be a vector"):
        tf.nn.dynamic_rnn(Plus1RNNCell(), tf.stack(inputs), dtype=tf.float32,
                          sequence_length=[[4]])


def test_invalid_dtype():
    inputs = tf.placeholder(tf.int32, shape=(3, 4, 5))
    for cell_cls in (rc.BasicRNNCell, rc.GRUCell, rc.BasicLSTMCell, rc.LSTMCell):
        with pytest.raises(ValueError, match="RNN cell only supports floating"):
            tf.nn.dynamic_rnn(cell_cls(2, dtype=tf.int32), inputs, dtype=tf.int32)


def test_batch_size_from_input():
    cell = Plus1RNNCell()
    inputs = tf.placeholder(tf.float32, shape=(3, 4, 5))
    outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
    assert outputs.shape[0] == 3 and state.shape[0] == 3
    outputs, state = tf.nn.dynamic_rnn(cell, inputs,
                                       initial_state=tf.placeholder(tf.float32, (3, 5)))
    assert outputs.shape[0] == 3 and state.shape[0] == 3
    inputs = tf.placeholder(tf.float32, shape=(None, 4, 5))
    outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
    assert outputs.shape[0].value is None and state.shape[0].value is None
    outputs, state = tf.nn.dynamic_rnn(cell, inputs,
                                       initial_state=tf.placeholder(tf.float32, (None, 5)))
    assert outputs.shape[0].value is None and state.shape[0].value is None


def _run_single(cell, fetch=lambda o, s: (o, s)):
    inputs = tf.placeholder(tf.float32, shape=(1, 4, 1))
    outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32, sequence_length=[4])
    with tf.Session() as sess:
        return sess.run(fetch(outputs, state), feed_dict={inputs: [[[1], [2], [3], [4]]]})


def test_scalar_state_is_accepted():
    outputs, state = _run_single(ScalarStateRNNCell())
    np.testing.assert_array_equal(outputs, [[[1], [2], [3], [4]]])
    assert state == 4


def test_unbalanced_output_is_accepted():
    outputs, state = _run_single(UnbalancedOutputRNNCell())
    assert isinstance(outputs, tuple)
    np.testing.assert_array_equal(outputs[0], [[[1], [2], [3], [4]]])
    np.testing.assert_array_equal(outputs[1], [[[1, 1], [2, 2], [3, 3], [4, 4]]])
    assert state == 4


def test_tensor_array_state_is_accepted():
    outputs, state = _run_single(TensorArrayStateRNNCell(),
                                 lambda o, s: (o, (s[0], s[1].stack())))
    np.testing.assert_array_equal(outputs, [[[1], [2], [3], [4]]])
    assert state[0] == 4
    np.testing.assert_array_equal(state[1], [[[1]], [[2]], [[3]], [[4]]])


def test_cell_get_initial_state():
    cell = rc.BasicRNNCell(5)
    with pytest.raises(ValueError, match="batch_size and dtype cannot be None"):
        cell.get_initial_state(None, None, None)
    inputs = tf.placeholder(tf.float32, shape=(None, 4, 1))
    with pytest.raises(ValueError, match="batch size from input tensor is different from"):
        cell.get_initial_state(inputs=inputs, batch_size=50, dtype=None)
    with pytest.raises(ValueError, match="batch size from input tensor is different from"):
        cell.get_initial_state(inputs=inputs, batch_size=tf.constant(50), dtype=None)
    with pytest.raises(ValueError, match="dtype from input tensor is different from"):
        cell.get_initial_state(inputs=inputs, batch_size=None, dtype=tf.int16)
    initial_state = cell.get_initial_state(inputs=inputs, batch_size=None, dtype=None)
    assert initial_state.shape.as_list() == [None, 5]
    assert initial_state.dtype == inputs.dtype
    initial_state = cell.get_initial_state(None, tf.shape(inputs)[0], inputs.dtype)
    assert initial_state.shape.as_list() == [None, 5]
    assert initial_state.dtype == inputs.dtype


@pytest.mark.parametrize("cell_class", [rc.BasicRNNCell, rc.BasicLSTMCell, rc.GRUCell,
                                        rc.LSTMCell])
def test_cells_build(cell_class):
    for dtype in (tf.float32, tf.float64):
        cell = cell_class(3, dtype=dtype)
        in_shape = tf.TensorShape((5, 7))
        cell.build(in_shape)
        state = cell.get_initial_state(inputs=None, batch_size=5, dtype=dtype)
        output, _ = cell(tf.zeros(in_shape, dtype), state)
        assert output.shape.as_list() == [5, 3]


def test_basic_lstm_cell_interchange_with_lstm_cell(tmp_path):
    with tf.Graph().as_default(), tf.Session() as sess:
        basic = rc.BasicLSTMCell(1)
        basic(tf.ones([1, 1]), state=basic.get_initial_state(inputs=None, batch_size=1,
                                                             dtype=tf.float32))
        sess.run([v.initializer for v in basic.variables])
        sess.run(basic._bias.assign([10.] * 4))
        save_path = tf.train.Saver().save(sess, os.path.join(str(tmp_path), "ckpt"))
    with tf.Graph().as_default(), tf.Session() as sess:
        lstm = rc.LSTMCell(1, name="basic_lstm_cell")
        lstm(tf.ones([1, 1]), state=lstm.get_initial_state(inputs=None, batch_size=1,
                                                           dtype=tf.float32))
        sess.run([v.initializer for v in lstm.variables])
        tf.train.Saver().restore(sess, save_path)
        np.testing.assert_array_equal(sess.run(lstm._bias), [10.] * 4)


# -- core_rnn_cell_test.py: RNNCellTest -------------------------------------------------------
def _root(name="root"):
    return tf.variable_scope(name, initializer=tf.constant_initializer(0.5))


def test_basic_rnn_cell():
    with tf.Session() as sess, _root():
        x, m = tf.zeros([1, 2]), tf.zeros([1, 2])
        cell = rc.BasicRNNCell(2)
        g, _ = cell(x, m)
        assert [v.name for v in cell.trainable_variables] == [
            "root/basic_rnn_cell/kernel:0", "root/basic_rnn_cell/bias:0"]
        assert not cell.non_trainable_variables
        sess.run([tf.global_variables_initializer()])
        res = sess.run([g], {x.name: np.array([[1., 1.]]), m.name: np.array([[0.1, 0.1]])})
        assert res[0].shape == (1, 2)


def test_basic_rnn_cell_not_trainable():
    def not_trainable_getter(getter, *args, **kwargs):
        kwargs["trainable"] = False
        return getter(*args, **kwargs)

    with tf.Session() as sess, tf.variable_scope(
            "root", initializer=tf.constant_initializer(0.5),
            custom_getter=not_trainable_getter):
        x, m = tf.zeros([1, 2]), tf.zeros([1, 2])
        cell = rc.BasicRNNCell(2)
        g, _ = cell(x, m)
        assert not cell.trainable_variables
        assert [v.name for v in cell.non_trainable_variables] == [
            "root/basic_rnn_cell/kernel:0", "root/basic_rnn_cell/bias:0"]
        sess.run([tf.global_variables_initializer()])
        res = sess.run([g], {x.name: np.array([[1., 1.]]), m.name: np.array([[0.1, 0.1]])})
        assert res[0].shape == (1, 2)


def test_gru_cell():
    with tf.Session() as sess:
        with _root():
            x, m = tf.zeros([1, 2]), tf.zeros([1, 2])
            g, _ = rc.GRUCell(2)(x, m)
            sess.run([tf.global_variables_initializer()])
            res = sess.run([g], {x.name: np.array([[1., 1.]]),
                                 m.name: np.array([[0.1, 0.1]])})
            _close(res[0], [[0.175991, 0.175991]])
        with _root("other"):
            x, m = tf.zeros([1, 3]), tf.zeros([1, 2])
            g, _ = rc.GRUCell(2)(x, m)
            sess.run([tf.global_variables_initializer()])
            res = sess.run([g], {x.name: np.array([[1., 1., 1.]]),
                                 m.name: np.array([[0.1, 0.1]])})
            _close(res[0], [[0.156736, 0.156736]])


def test_basic_lstm_cell():
    for dtype in (tf.float16, tf.float32):
        np_dtype = dtype.as_numpy_dtype
        with tf.Graph().as_default(), tf.Session() as sess:
            with _root():
                x, m = tf.zeros([1, 2], dtype=dtype), tf.zeros([1, 8], dtype=dtype)
                cell = rc.MultiRNNCell(
                    [rc.BasicLSTMCell(2, state_is_tuple=False) for _ in range(2)],
                    state_is_tuple=False)
                assert cell.dtype is None
                g, out_m = cell(x, m)
                assert cell.dtype == dtype.name
                names = ["root/multi_rnn_cell/cell_%d/basic_lstm_cell/%s:0" % (i, v)
                         for i in range(2) for v in ("kernel", "bias")]
                assert [v.name for v in cell.trainable_variables] == names
                assert not cell.non_trainable_variables
                sess.run([tf.global_variables_initializer()])
                res = sess.run([g, out_m], {x.name: np.array([[1., 1.]]),
                                            m.name: 0.1 * np.ones([1, 8])})
                assert len(res) == 2
                assert [v.name for v in tf.global_variables()] == names
                _close(res[0], np.array([[0.240, 0.240]], np_dtype), rtol=1e-2, atol=1e-6)
                _close(res[1], np.array([[0.689, 0.689, 0.448, 0.448, 0.398, 0.398, 0.240,
                                          0.240]], np_dtype), rtol=1e-2, atol=1e-6)
            with _root("other"):
                x, m = tf.zeros([1, 3], dtype=dtype), tf.zeros([1, 4], dtype=dtype)
                g, out_m = rc.BasicLSTMCell(2, state_is_tuple=False)(x, m)
                sess.run([tf.global_variables_initializer()])
                res = sess.run([g, out_m], {x.name: np.array([[1., 1., 1.]], np_dtype),
                                            m.name: 0.1 * np.ones([1, 4], np_dtype)})
                assert len(res) == 2


@pytest.mark.parametrize("x_shape, m_shape", [((3, 4), (2, 4)), ((3, 4), (3, 6))])
def test_basic_lstm_cell_dimension0_error_and_state_size_error(x_shape, m_shape):
    # testBasicLSTMCellDimension0Error and testBasicLSTMCellStateSizeError
    with tf.Session() as sess, _root():
        x, m = tf.zeros(x_shape), tf.zeros(m_shape)
        with pytest.raises(ValueError):
            g, out_m = rc.BasicLSTMCell(2, state_is_tuple=False)(x, m)
            sess.run([tf.global_variables_initializer()])
            sess.run([g, out_m], {x.name: np.ones(x_shape), m.name: 0.1 * np.ones(m_shape)})


def test_basic_lstm_cell_state_tuple_type():
    with _root():
        x = tf.zeros([1, 2])
        m0 = (tf.zeros([1, 2]),) * 2
        m1 = (tf.zeros([1, 2]),) * 2
        cell = rc.MultiRNNCell([rc.BasicLSTMCell(2) for _ in range(2)], state_is_tuple=True)
        assert isinstance(cell.state_size, tuple)
        assert all(isinstance(s, rc.LSTMStateTuple) for s in cell.state_size)
        _, (out_m0, out_m1) = cell(x, (m0, m1))
        assert isinstance(out_m0, rc.LSTMStateTuple) and isinstance(out_m1, rc.LSTMStateTuple)
        tf.get_variable_scope().reuse_variables()
        zero_state = cell.zero_state(1, tf.float32)
        assert isinstance(zero_state, tuple)
        assert all(isinstance(s, rc.LSTMStateTuple) for s in zero_state)
        _, (out_m0, out_m1) = cell(x, zero_state)
        assert isinstance(out_m0, rc.LSTMStateTuple) and isinstance(out_m1, rc.LSTMStateTuple)


def test_basic_lstm_cell_with_state_tuple():
    with tf.Session() as sess, _root():
        x, m0, m1 = tf.zeros([1, 2]), tf.zeros([1, 4]), tf.zeros([1, 4])
        cell = rc.MultiRNNCell([rc.BasicLSTMCell(2, state_is_tuple=False) for _ in range(2)],
                               state_is_tuple=True)
        g, (out_m0, out_m1) = cell(x, (m0, m1))
        sess.run([tf.global_variables_initializer()])
        res = sess.run([g, out_m0, out_m1], {x.name: np.array([[1., 1.]]),
                                             m0.name: 0.1 * np.ones([1, 4]),
                                             m1.name: 0.1 * np.ones([1, 4])})
        _close(res[0], [[0.24024698, 0.24024698]])
        _close(res[1], [[0.68967271, 0.68967271, 0.44848421, 0.44848421]])
        _close(res[2], [[0.39897051, 0.39897051, 0.24024698, 0.24024698]])


def _lstm_with_projection():
    x, m = tf.zeros([3, 2]), tf.zeros([3, 14])
    cell = rc.LSTMCell(num_units=8, num_proj=6, forget_bias=1.0, state_is_tuple=False)
    return x, m, cell(x, m)


def test_lstm_cell():
    with tf.Session() as sess, _root():
        x, m, (output, state) = _lstm_with_projection()
        sess.run([tf.global_variables_initializer()])
        res = sess.run([output, state], {x.name: np.array([[1., 1.], [2., 2.], [3., 3.]]),
                                         m.name: 0.1 * np.ones((3, 14))})
        assert res[0].shape == (3, 6) and res[1].shape == (3, 14)
        for i in range(1, 3):
            assert float(np.linalg.norm(res[0][0, :] - res[0][i, :])) > 1e-6
            assert float(np.linalg.norm(res[1][0, :] - res[1][i, :])) > 1e-6


def test_lstm_cell_variables():
    with _root():
        _lstm_with_projection()
    variables = tf.global_variables()
    assert [v.op.name for v in variables[:3]] == [
        "root/lstm_cell/kernel", "root/lstm_cell/bias", "root/lstm_cell/projection/kernel"]


def test_residual_wrapper():
    with tf.Session() as sess, _root():
        x, m = tf.zeros([1, 3]), tf.zeros([1, 3])
        base_cell = rc.GRUCell(3)
        g, m_new = base_cell(x, m)
        tf.get_variable_scope().reuse_variables()
        g_res, m_new_res = rc.ResidualWrapper(base_cell)(x, m)
        sess.run([tf.global_variables_initializer()])
        res = sess.run([g, g_res, m_new, m_new_res], {x: np.array([[1., 1., 1.]]),
                                                      m: np.array([[0.1, 0.1, 0.1]])})
        _close(res[1], res[0] + [1., 1., 1.])
        _close(res[2], res[3])


def test_residual_wrapper_with_slice():
    with tf.Session() as sess, _root():
        x, m = tf.zeros([1, 5]), tf.zeros([1, 3])
        base_cell = rc.GRUCell(3)
        g, m_new = base_cell(x, m)
        tf.get_variable_scope().reuse_variables()

        def residual_with_slice_fn(inp, out):
            return tf.slice(inp, [0, 0], [-1, 3]) + out

        g_res, m_new_res = rc.ResidualWrapper(base_cell, residual_with_slice_fn)(x, m)
        sess.run([tf.global_variables_initializer()])
        res_g, res_g_res, res_m_new, res_m_new_res = sess.run(
            [g, g_res, m_new, m_new_res], {x: np.array([[1., 1., 1., 1., 1.]]),
                                           m: np.array([[0.1, 0.1, 0.1]])})
        _close(res_g_res, res_g + [1., 1., 1.])
        _close(res_m_new, res_m_new_res)


def test_device_wrapper():
    with _root():
        x, m = tf.zeros([1, 3]), tf.zeros([1, 3])
        cell = rc.DeviceWrapper(rc.GRUCell(3), "/cpu:14159")
        outputs, _ = cell(x, m)
        assert "cpu:14159" in outputs.device.lower()


def test_multi_rnn_cell():
    with tf.Session() as sess, _root():
        x, m = tf.zeros([1, 2]), tf.zeros([1, 4])
        _, ml = rc.MultiRNNCell([rc.GRUCell(2) for _ in range(2)], state_is_tuple=False)(x, m)
        sess.run([tf.global_variables_initializer()])
        res = sess.run(ml, {x.name: np.array([[1., 1.]]),
                            m.name: np.array([[0.1, 0.1, 0.1, 0.1]])})
        _close(res, [[0.175991, 0.175991, 0.13248, 0.13248]])


def test_multi_rnn_cell_with_state_tuple():
    with tf.Session() as sess, _root():
        x = tf.zeros([1, 2])
        m_bad = tf.zeros([1, 4])
        m_good = (tf.zeros([1, 2]), tf.zeros([1, 2]))
        with pytest.raises(ValueError, match="Expected state .* a tuple"):
            rc.MultiRNNCell([rc.GRUCell(2) for _ in range(2)], state_is_tuple=True)(x, m_bad)
        _, ml = rc.MultiRNNCell([rc.GRUCell(2) for _ in range(2)],
                                state_is_tuple=True)(x, m_good)
        sess.run([tf.global_variables_initializer()])
        res = sess.run(ml, {x.name: np.array([[1., 1.]]),
                            m_good[0].name: np.array([[0.1, 0.1]]),
                            m_good[1].name: np.array([[0.1, 0.1]])})
        _close(res[0], [[0.175991, 0.175991]])
        _close(res[1], [[0.13248, 0.13248]])


# -- core_rnn_cell_test.py: DropoutWrapperTest ------------------------------------------------
_FULL_OUTPUT = np.array([[[0.751109, 0.751109, 0.751109]], [[0.895509, 0.895509, 0.895509]]],
                        np.float32)
_FULL_FINAL_C = np.array([[1.949385, 1.949385, 1.949385]], np.float32)


def _dropout_run(batch_size=None, time_steps=None, parallel_iterations=None, **kwargs):
    with tf.Session() as sess, _root():
        if batch_size is None and time_steps is None:
            batch_size, time_steps = 1, 2
            x = tf.constant([[[2., 2., 2.]], [[1., 1., 1.]]], dtype=tf.float32)
            m = rc.LSTMStateTuple(*[tf.constant([[0.1, 0.1, 0.1]], dtype=tf.float32)] * 2)
        else:
            x = tf.constant(np.random.randn(time_steps, batch_size, 3).astype(np.float32))
            m = rc.LSTMStateTuple(*[tf.constant([[0.1, 0.1, 0.1]] * batch_size,
                                                dtype=tf.float32)] * 2)
        outputs, final_state = tf.nn.dynamic_rnn(
            cell=rc.DropoutWrapper(rc.LSTMCell(3), dtype=x.dtype, **kwargs), time_major=True,
            parallel_iterations=parallel_iterations, inputs=x, initial_state=m)
        sess.run([tf.global_variables_initializer()])
        res = sess.run([outputs, final_state])
        assert res[0].shape == (time_steps, batch_size, 3)
        assert res[1].c.shape == (batch_size, 3) and res[1].h.shape == (batch_size, 3)
        return res


def _keep(name, value):
    return tf.get_variable(name, initializer=value)


def test_wrapped_cell_property():
    cell = rc.BasicRNNCell(10)
    assert rc.DropoutWrapper(cell).wrapped_cell == cell


@pytest.mark.parametrize("constant", [True, False])
def test_dropout_wrapper_keep_all_constant_input_and_keep_all(constant):
    # testDropoutWrapperKeepAllConstantInput and testDropoutWrapperKeepAll
    keep = tf.ones([]) if constant else _keep("all", 1.0)
    res = _dropout_run(input_keep_prob=keep, output_keep_prob=keep, state_keep_prob=keep)
    _close(_FULL_OUTPUT, res[0])
    _close(_FULL_OUTPUT[1], res[1].h)
    _close(_FULL_FINAL_C, res[1].c)


def _seeded_twice(seed, **kwargs):
    runs = []
    for _ in range(2):
        with tf.Graph().as_default():
            tf.set_random_seed(2)
            runs.append(_dropout_run(seed=seed, **kwargs))
    return runs


def test_dropout_wrapper_with_seed():
    keep_some = 0.5
    res1, res2 = _seeded_twice(10, input_keep_prob=keep_some, output_keep_prob=keep_some,
                               state_keep_prob=keep_some, parallel_iterations=1)
    _close(res1[0], res2[0])
    _close(res1[1].c, res2[1].c)
    _close(res1[1].h, res2[1].h)


def test_dropout_wrapper_keep_no_output():
    res = _dropout_run(input_keep_prob=_keep("all", 1.0),
                       output_keep_prob=_keep("none", 1e-10),
                       state_keep_prob=_keep("all_", 1.0))
    _close(np.zeros(res[0].shape), res[0])
    _close(_FULL_OUTPUT[1], res[1].h)
    _close(_FULL_FINAL_C, res[1].c)


def test_dropout_wrapper_keep_no_state_except_lstm_cell_memory():
    keep_all, keep_none = _keep("all", 1.0), _keep("none", 1e-10)
    res = _dropout_run(input_keep_prob=keep_all, output_keep_prob=keep_all,
                       state_keep_prob=keep_none)
    _close(_FULL_OUTPUT[0], res[0][0])
    assert np.linalg.norm(_FULL_OUTPUT[1] - res[0][1]) > 1e-4
    _close(np.zeros(res[1].h.shape), res[1].h)
    _close(np.array([[1.713925, 1.713925, 1.713925]], np.float32), res[1].c)


def test_dropout_wrapper_keep_no_input():
    keep_all, keep_none = _keep("all", 1.0), _keep("none", 1e-10)
    res = _dropout_run(input_keep_prob=keep_none, output_keep_prob=keep_all,
                       state_keep_prob=keep_all)
    assert np.linalg.norm(res[0] - _FULL_OUTPUT) > 1e-4
    assert np.linalg.norm(res[1].h - _FULL_OUTPUT[1]) > 1e-4
    assert np.linalg.norm(res[1].c - _FULL_FINAL_C) > 1e-4


def test_dropout_wrapper_recurrent_output():
    res = _dropout_run(input_keep_prob=_keep("all", 1.0), output_keep_prob=0.8,
                       state_keep_prob=_keep("all_", 1.0), variational_recurrent=True,
                       input_size=3, batch_size=5, time_steps=7)
    output_mask = np.abs(res[0]) > 1e-6
    for m in output_mask[1:]:
        np.testing.assert_array_equal(output_mask[0], m)


def _check_variational_masks(res):
    output_mask = np.abs(res[0]) > 1e-6
    for time_step in output_mask:
        np.testing.assert_array_equal(output_mask[0], time_step)
        for batch_entry in time_step:
            np.testing.assert_array_equal(batch_entry, time_step[0])
    for state in (res[1].c, res[1].h):
        mask = np.abs(state) > 1e-6
        for batch_entry in mask:
            np.testing.assert_array_equal(batch_entry, mask[0])


def test_dropout_wrapper_recurrent_state_input_and_output():
    res = _dropout_run(input_keep_prob=0.9, output_keep_prob=0.9, state_keep_prob=0.9,
                       variational_recurrent=True, input_size=3, batch_size=5,
                       time_steps=7)
    _check_variational_masks(res)


def test_dropout_wrapper_recurrent_state_input_and_output_with_seed():
    runs = []
    for _ in range(2):
        with tf.Graph().as_default():
            tf.set_random_seed(2347)
            np.random.seed(23487)
            runs.append(_dropout_run(input_keep_prob=0.9, output_keep_prob=0.9,
                                     state_keep_prob=0.9, variational_recurrent=True,
                                     input_size=3, batch_size=5, time_steps=7,
                                     seed=-234987))
    res0, res1 = runs
    _check_variational_masks(res0)
    _close(res0[0], res1[0])
    _close(res0[1].c, res1[1].c)
    _close(res0[1].h, res1[1].h)
