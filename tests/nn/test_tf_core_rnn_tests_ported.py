"""TensorFlow's contrib/rnn core_rnn_test.py (TF 1.x, the r1.8 era), ported: the
`RNNTest` and `LSTMTest` methods (static_rnn, dynamic_rnn, static_state_saving_rnn with
LSTMCell: projections, sharding, peepholes, clipping, float64, dropout, weight sharing,
tuple and nested states, dynamic vs static outputs and gradients). One test function
per TF test method, named after it."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

rc = tf.nn.rnn_cell
SEED = 23489


class Plus1RNNCell(rc.RNNCell):
    """(output, new_state) = (input + 1, state + 1)."""

    @property
    def output_size(self):
        return 5

    @property
    def state_size(self):
        return 5

    def __call__(self, input_, state, scope=None):
        return input_ + 1, state + 1


class StateSaver:
    """TF's TestStateSaver: zero states of the given sizes; records what is saved."""

    def __init__(self, batch_size, state_size):
        self._batch_size, self._state_size = batch_size, state_size
        self.saved_state = {}

    def state(self, name):
        size = self._state_size[name] if isinstance(self._state_size, dict) else \
            self._state_size
        return tf.zeros((self._batch_size,) + ((size,) if isinstance(size, int) else size))

    def save_state(self, name, state):
        self.saved_state[name] = state
        return tf.identity(state)


# TF's tests compare two graphs' outputs bit for bit; compiled, they are different fusions.
_BIT_FOR_BIT = ("two graphs that TF compares bit for bit compile into different XLA fusions "
                "(equal to float32 round-off)")


@pytest.fixture(autouse=True)
def _graph():
    np.random.seed(SEED)
    with tf.Graph().as_default():
        yield


def _uniform(lo=-0.01, hi=0.01, seed=SEED):
    return tf.random_uniform_initializer(lo, hi, seed=seed)


def _placeholders(batch_size=2, input_size=5, max_length=8, dtype=tf.float32):
    return max_length * [tf.placeholder(dtype, shape=(batch_size, input_size))]


# -- RNNTest --------------------------------------------------------------------------------
def test_invalid_sequence_length_shape():
    with pytest.raises(ValueError, match="must be a vector"):
        tf.nn.static_rnn(Plus1RNNCell(), [tf.placeholder(tf.float32, (3, 4))],
                         dtype=tf.float32, sequence_length=4)


def test_rnn():
    inputs = _placeholders()
    outputs, state = tf.nn.static_rnn(Plus1RNNCell(), inputs, dtype=tf.float32)
    assert len(outputs) == len(inputs)
    for out, inp in zip(outputs, inputs):
        assert out.get_shape() == inp.get_shape() and out.dtype == inp.dtype
    with tf.Session() as sess:
        input_value = np.random.randn(2, 5)
        values = sess.run(outputs + [state], feed_dict={inputs[0]: input_value})
    for v in values[:-1]:
        np.testing.assert_allclose(v, input_value + 1.0, rtol=1e-6)
    np.testing.assert_allclose(values[-1], 8 * np.ones((2, 5)))


def test_dropout():
    cell = Plus1RNNCell()
    full_dropout_cell = rc.DropoutWrapper(cell, input_keep_prob=1e-12, seed=0)
    inputs = _placeholders()
    with tf.variable_scope("share_scope"):
        outputs, state = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
    with tf.variable_scope("drop_scope"):
        dropped_outputs, _ = tf.nn.static_rnn(full_dropout_cell, inputs, dtype=tf.float32)
    for out, inp in zip(outputs, inputs):
        assert out.get_shape().as_list() == inp.get_shape().as_list()
    with tf.Session() as sess:
        input_value = np.random.randn(2, 5)
        values = sess.run(outputs + [state], feed_dict={inputs[0]: input_value})
        dropped = sess.run(dropped_outputs, feed_dict={inputs[0]: input_value})
    for v in values[:-1]:
        np.testing.assert_allclose(v, input_value + 1.0, rtol=1e-6)
    for d in dropped[:-1]:
        np.testing.assert_allclose(d, np.ones_like(input_value))


def test_dynamic_calculation():
    sequence_length = tf.placeholder(tf.int64)
    inputs = _placeholders()
    with tf.variable_scope("drop_scope"):
        outputs, state = tf.nn.static_rnn(Plus1RNNCell(), inputs,
                                          sequence_length=sequence_length, dtype=tf.float32)
    assert len(outputs) == len(inputs)
    with tf.Session() as sess:
        x = np.random.randn(2, 5)
        feeds = {inputs[0]: x, sequence_length: [2, 3]}
        values = sess.run(outputs, feed_dict=feeds)
        (state_value,) = sess.run([state], feed_dict=feeds)
    for v in values[:2]:
        np.testing.assert_allclose(v, x + 1.0, rtol=1e-6)
    np.testing.assert_allclose(values[2], np.vstack((np.zeros(5), 1.0 + x[1])), rtol=1e-6)
    for v in values[3:]:
        np.testing.assert_array_equal(v, np.zeros_like(x))
    np.testing.assert_array_equal(state_value, np.vstack((2 * np.ones(5), 3 * np.ones(5))))


@pytest.mark.parametrize("prefix, use_outer_scope", [("prefix", True), ("prefix", False),
                                                     (None, False)])
def test_scope(prefix, use_outer_scope):
    def factory(scope):
        return tf.nn.static_rnn(Plus1RNNCell(), _placeholders(), dtype=tf.float32,
                                scope=scope)

    with tf.Graph().as_default():
        if use_outer_scope:
            with tf.variable_scope(prefix) as scope:
                factory(scope)
        else:
            factory(prefix)
        all_vars = tf.global_variables()
        prefix = prefix or "rnn"
        assert len([v for v in all_vars if v.name.startswith(prefix + "/")]) == len(all_vars)


# -- LSTMTest -------------------------------------------------------------------------------
def test_dtype():
    lstm = rc.LSTMCell(10)
    lstm.build(tf.ones([10, 50]).get_shape())
    assert lstm._bias.dtype == tf.float32._as_ref
    for dtype in (tf.float16, tf.float32, tf.float64):
        lstm = rc.LSTMCell(10, dtype=dtype)
        lstm.build(tf.ones([10, 50]).get_shape())
        assert lstm._bias.dtype == dtype._as_ref


def _run_outputs(outputs, inputs, dtype=np.float64, batch_size=2, feeds=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer(), feed_dict=feeds)
        value = np.asarray(np.random.randn(batch_size, 5), dtype=dtype)
        feed_dict = dict(feeds or {})
        feed_dict[inputs[0]] = value
        return value, sess.run(outputs, feed_dict=feed_dict)


def test_no_proj_no_sharding():
    cell = rc.LSTMCell(3, initializer=_uniform(), state_is_tuple=False)
    inputs = _placeholders()
    outputs, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
    assert len(outputs) == len(inputs)
    assert all(out.get_shape().as_list() == [2, 3] for out in outputs)
    _run_outputs(outputs, inputs)


def test_cell_clipping():
    cell = rc.LSTMCell(3, use_peepholes=True, cell_clip=0.0, initializer=_uniform(),
                       state_is_tuple=False)
    inputs = _placeholders()
    outputs, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
    assert all(out.get_shape().as_list() == [2, 3] for out in outputs)
    _, values = _run_outputs(outputs, inputs)
    for value in values:
        np.testing.assert_array_equal(value, np.zeros((2, 3)))


def test_no_proj_no_sharding_simple_state_saver():
    state_saver = StateSaver(2, 6)
    cell = rc.LSTMCell(3, use_peepholes=False, initializer=_uniform(), state_is_tuple=False)
    inputs = _placeholders()
    with tf.variable_scope("share_scope"):
        outputs, state = tf.nn.static_state_saving_rnn(cell, inputs, state_saver=state_saver,
                                                       state_name="save_lstm")
    assert all(out.get_shape().as_list() == [2, 3] for out in outputs)
    _, (last, saved) = _run_outputs([state, state_saver.saved_state["save_lstm"]], inputs)
    np.testing.assert_array_equal(last, saved)


def test_no_proj_no_sharding_tuple_state_saver():
    state_saver = StateSaver(2, 3)
    cell = rc.LSTMCell(3, use_peepholes=False, initializer=_uniform(), state_is_tuple=True)
    inputs = _placeholders()
    with tf.variable_scope("share_scope"):
        outputs, state = tf.nn.static_state_saving_rnn(cell, inputs, state_saver=state_saver,
                                                       state_name=("c", "m"))
    assert all(out.get_shape().as_list() == [2, 3] for out in outputs)
    _, values = _run_outputs(
        state + (state_saver.saved_state["c"], state_saver.saved_state["m"]), inputs)
    assert len(values) == 4
    np.testing.assert_array_equal(values[:2], values[2:])


def test_no_proj_no_sharding_nested_tuple_state_saver():
    sizes = {f"{k}{i}": 3 + i for i in range(4) for k in "cm"}
    state_saver = StateSaver(2, sizes)
    cell = rc.MultiRNNCell([rc.LSTMCell(3 + i, use_peepholes=False, initializer=_uniform(),
                                        state_is_tuple=True) for i in range(4)],
                           state_is_tuple=True)
    assert len(cell.state_size) == 4 and all(len(s) == 2 for s in cell.state_size)
    inputs = _placeholders()
    names = (("c0", "m0"), ("c1", "m1"), ("c2", "m2"), ("c3", "m3"))
    with tf.variable_scope("share_scope"):
        outputs, state = tf.nn.static_state_saving_rnn(cell, inputs, state_saver=state_saver,
                                                       state_name=names)
    assert all(out.get_shape().as_list() == [2, 6] for out in outputs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feeds = {inputs[0]: np.random.randn(2, 5)}
        last = sess.run(list(tf.nest.flatten(state)), feed_dict=feeds)
        saved = sess.run(list(state_saver.saved_state.values()), feed_dict=feeds)
    assert len(last) == 8 and len(saved) == 8
    named = dict(zip(state_saver.saved_state.keys(), saved))
    for value, name in zip(last, tf.nest.flatten(names)):
        np.testing.assert_array_equal(value, named[name])


def _proj_cell(shards=False, initializer=None, **kwargs):
    extra = {"num_unit_shards": 2, "num_proj_shards": 3} if shards else {}
    return rc.LSTMCell(3, use_peepholes=True, num_proj=4,
                       initializer=initializer or _uniform(), state_is_tuple=False,
                       **extra, **kwargs)


def _unknown_batch(dtype=tf.float32):
    return 8 * [tf.placeholder(dtype, shape=(None, 5))]


def test_proj_no_sharding():
    inputs = _unknown_batch()
    outputs, _ = tf.nn.static_rnn(_proj_cell(), inputs, dtype=tf.float32)
    assert len(outputs) == len(inputs)
    _run_outputs(outputs, inputs)


def test_proj_sharding():
    inputs = _unknown_batch()
    outputs, _ = tf.nn.static_rnn(_proj_cell(shards=True), inputs, dtype=tf.float32)
    assert len(outputs) == len(inputs)
    _run_outputs(outputs, inputs)


def test_double_input():
    inputs = _unknown_batch(tf.float64)
    cell = _proj_cell(shards=True, initializer=_uniform(-1, 1))
    outputs, _ = tf.nn.static_rnn(cell, inputs, initial_state=cell.zero_state(2, tf.float64))
    value, values = _run_outputs(outputs, inputs)
    assert values[0].dtype == value.dtype


def test_shard_no_shard_equivalent_output():
    inputs = _unknown_batch()
    initializer = tf.constant_initializer(0.001)
    cell_noshard = _proj_cell(shards=True, initializer=initializer)
    cell_shard = _proj_cell(initializer=initializer)
    with tf.variable_scope("noshard_scope"):
        out_noshard, state_noshard = tf.nn.static_rnn(cell_noshard, inputs, dtype=tf.float32)
    with tf.variable_scope("shard_scope"):
        out_shard, state_shard = tf.nn.static_rnn(cell_shard, inputs, dtype=tf.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feeds = {x: np.random.randn(2, 5) for x in inputs}
        a, b = sess.run([out_noshard, out_shard], feed_dict=feeds)
        sa, sb = sess.run([state_noshard, state_shard], feed_dict=feeds)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, atol=1e-3)
    np.testing.assert_allclose(sa, sb, atol=1e-3)


def test_double_input_with_dropout_and_dynamic_calculation():
    sequence_length = tf.placeholder(tf.int64)
    inputs = _unknown_batch(tf.float64)
    cell = _proj_cell(shards=True)
    outputs, state = tf.nn.static_rnn(rc.DropoutWrapper(cell, 0.5, seed=0), inputs,
                                      sequence_length=sequence_length,
                                      initial_state=cell.zero_state(2, tf.float64))
    assert len(outputs) == len(inputs)
    value, (values, state_value) = _run_outputs([outputs, state], inputs,
                                                feeds={sequence_length: [2, 3]})
    assert values[0].dtype == value.dtype and state_value.dtype == value.dtype


def test_sharing_weights_with_reuse():
    inputs = _unknown_batch()
    cell = _proj_cell(initializer=_uniform(-1, 1))
    cell_d = _proj_cell(initializer=_uniform(-1, 1, SEED + 1))
    with tf.variable_scope("share_scope"):
        outputs0, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
    with tf.variable_scope("share_scope", reuse=True):
        outputs1, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
    with tf.variable_scope("diff_scope"):
        outputs2, _ = tf.nn.static_rnn(cell_d, inputs, dtype=tf.float32)
    _, values = _run_outputs(outputs0 + outputs1 + outputs2, inputs)
    for o1, o2, o3 in zip(values[:8], values[8:16], values[16:]):
        np.testing.assert_array_equal(o1, o2)
        assert np.linalg.norm(o1 - o3) > 1e-6


def test_sharing_weights_with_different_namescope():
    inputs = _unknown_batch()
    cell = _proj_cell(initializer=_uniform(-1, 1))
    with tf.name_scope("scope0"), tf.variable_scope("share_scope"):
        outputs0, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
    with tf.name_scope("scope1"), tf.variable_scope("share_scope", reuse=True):
        outputs1, _ = tf.nn.static_rnn(cell, inputs, dtype=tf.float32)
    _, values = _run_outputs(outputs0 + outputs1, inputs)
    for a, b in zip(values[:8], values[8:]):
        np.testing.assert_array_equal(a, b)


def test_dynamic_rnn_allows_unknown_time_dimension():
    inputs = tf.placeholder(tf.float32, shape=[1, None, 20])
    outputs, _ = tf.nn.dynamic_rnn(rc.GRUCell(30), inputs, dtype=tf.float32)
    assert outputs.shape.as_list() == [1, None, 30]


def _static_and_dynamic(cell):
    inputs = _unknown_batch()
    with tf.variable_scope("root") as scope:
        out_s, state_s = tf.nn.static_rnn(cell, inputs, dtype=tf.float32,
                                          sequence_length=[4, 6], scope=scope)
        scope.reuse_variables()
        out_d, state_d = tf.nn.dynamic_rnn(cell, tf.stack(inputs), dtype=tf.float32,
                                           time_major=True, sequence_length=[4, 6],
                                           scope=scope)
    return inputs, out_s, state_s, out_d, state_d


@pytest.mark.xla_differs(_BIT_FOR_BIT)
def test_dynamic_rnn_with_tuple_states():
    cell = rc.LSTMCell(3, use_peepholes=True, num_proj=4, initializer=_uniform(),
                       state_is_tuple=True)
    inputs, out_s, state_s, out_d, state_d = _static_and_dynamic(cell)
    assert isinstance(state_s, rc.LSTMStateTuple) and isinstance(state_d, rc.LSTMStateTuple)
    assert state_s[0] is state_s.c and state_s[1] is state_s.h
    assert state_d[0] is state_d.c and state_d[1] is state_d.h
    _, (vs, vd, ss, sd) = _run_outputs([out_s, out_d, state_s, state_d], inputs)
    np.testing.assert_array_equal(vs, vd)
    np.testing.assert_array_equal(np.hstack(ss), np.hstack(sd))


@pytest.mark.xla_differs(_BIT_FOR_BIT)
def test_dynamic_rnn_with_nested_tuple_states():
    cell = rc.MultiRNNCell([rc.LSTMCell(3 + i, use_peepholes=True, num_proj=4 + i,
                                        initializer=_uniform(), state_is_tuple=True)
                            for i in range(4)], state_is_tuple=True)
    assert len(cell.state_size) == 4 and all(len(s) == 2 for s in cell.state_size)
    zero = cell.zero_state(1, tf.float32)
    assert len(zero) == 4
    for i in range(4):
        assert zero[i][0].get_shape()[1] == cell.state_size[i][0]
        assert zero[i][1].get_shape()[1] == cell.state_size[i][1]
    inputs, out_s, state_s, out_d, state_d = _static_and_dynamic(cell)
    _, (vs, vd, ss, sd) = _run_outputs(
        [out_s, out_d, tf.nest.flatten(state_s), tf.nest.flatten(state_d)], inputs)
    np.testing.assert_array_equal(vs, vd)
    np.testing.assert_array_equal(np.hstack(ss), np.hstack(sd))


def _equivalence_readouts(dynamic, input_values, sequence_length):
    with tf.Graph().as_default(), tf.Session() as sess:
        concat_inputs = tf.placeholder(tf.float32, shape=(8, 2, 5))
        cell = rc.LSTMCell(3, use_peepholes=True, initializer=_uniform(), num_proj=4,
                           state_is_tuple=False)
        with tf.variable_scope("dynamic_scope"):
            if dynamic:
                outputs, state = tf.nn.dynamic_rnn(cell, inputs=concat_inputs,
                                                   sequence_length=sequence_length,
                                                   time_major=True, dtype=tf.float32)
                outputs = tf.unstack(outputs, 8)
            else:
                outputs, state = tf.nn.static_rnn(cell, tf.unstack(concat_inputs),
                                                  sequence_length=sequence_length,
                                                  dtype=tf.float32)
        feeds = {concat_inputs: input_values}
        sess.run(tf.global_variables_initializer(), feed_dict=feeds)
        variables = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)
        assert len(variables) > 1
        picks = [outputs[0], outputs[-1], state]
        fetches = [outputs, state, tf.gradients(outputs + [state], [concat_inputs]),
                   tf.nest.flatten([tf.gradients(y, [concat_inputs]) for y in picks]),
                   tf.nest.flatten([tf.gradients(y, variables) for y in picks])]
        return sess.run(fetches, feed_dict=feeds)


@pytest.mark.xla_differs(_BIT_FOR_BIT)
def test_dynamic_equivalent_to_static_rnn():
    input_values = np.random.randn(8, 2, 5).astype(np.float32)
    static = _equivalence_readouts(False, input_values, None)
    dynamic = _equivalence_readouts(True, input_values, None)
    for a, b in zip(tf.nest.flatten(static), tf.nest.flatten(dynamic)):
        np.testing.assert_array_equal(a, b)
