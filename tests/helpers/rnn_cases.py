"""The RNN programs the rnn tests run on trainflow and (through tf_interop) on TensorFlow:
`PROGRAM` defines `run_case(tf, rc, case)`, which builds one case's cell and driver, gives
every variable a value drawn from its name's position, and returns the variable names
and shapes, the outputs, the final state and the gradients of a loss with respect to the
inputs and every variable (all as lists). `rc` is the rnn_cell namespace."""

PROGRAM = r'''
import numpy as np


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [y for v in x for y in _flat(v)]
    return [x]


class _StateSaver:
    """A state saver starting every state at 0.5 (what static_state_saving_rnn reads)."""

    def __init__(self, tf, cell, batch):
        self.tf, self.batch, self.saved = tf, batch, {}
        sizes = cell.state_size
        self.sizes = list(sizes) if isinstance(sizes, tuple) else [sizes]

    def state(self, name):
        size = self.sizes[int(name[-1])] if name[-1].isdigit() else self.sizes[0]
        return self.tf.fill([self.batch, size], 0.5)

    def save_state(self, name, value):
        self.saved[name] = value
        return self.tf.no_op(name="save_" + name)


def _raw(tf, cell, inputs, seq, batch, steps, depth):
    """raw_rnn fed from a TensorArray, as TF's raw_rnn documentation does."""
    inputs_ta = tf.TensorArray(dtype=tf.float32, size=steps).unstack(
        tf.transpose(inputs, [1, 0, 2]))
    lengths = tf.constant(seq if seq is not None else [steps] * batch, dtype=tf.int32)

    def loop_fn(time, cell_output, cell_state, loop_state):
        if cell_output is None:
            next_state = cell.zero_state(batch, tf.float32)
        else:
            next_state = cell_state
        finished = time >= lengths
        next_input = tf.cond(tf.reduce_all(finished),
                             lambda: tf.zeros([batch, depth], dtype=tf.float32),
                             lambda: inputs_ta.read(time))
        return finished, next_input, next_state, cell_output, None

    outputs_ta, state, _ = tf.nn.raw_rnn(cell, loop_fn)
    return outputs_ta.stack(), state


def run_case(tf, rc, case):
    graph = tf.Graph()
    with graph.as_default():
        rng = np.random.RandomState(case.get("seed", 0))
        batch, steps, depth = case["shape"]
        x = rng.uniform(-1, 1, (batch, steps, depth)).astype(np.float32)
        if case.get("time_major"):
            x = x.transpose(1, 0, 2)
        inputs = tf.constant(x)
        seq = case.get("seq")
        ns = {"rc": rc, "tf": tf}
        cell = eval(case["cell"], ns)
        driver = case["driver"]
        kwargs = {"dtype": tf.float32}
        if seq is not None:
            kwargs["sequence_length"] = tf.constant(seq, dtype=tf.int32)
        if driver == "dynamic":
            outputs, state = tf.nn.dynamic_rnn(cell, inputs,
                                               time_major=case.get("time_major", False),
                                               **kwargs)
        elif driver == "static":
            outputs, state = tf.nn.static_rnn(cell, tf.unstack(inputs, axis=1), **kwargs)
        elif driver == "bidi_dynamic":
            cell_bw = eval(case["cell"], ns)
            outputs, state = tf.nn.bidirectional_dynamic_rnn(
                cell, cell_bw, inputs, time_major=case.get("time_major", False), **kwargs)
        elif driver == "raw":
            outputs, state = _raw(tf, cell, inputs, seq, batch, steps, depth)
        elif driver == "state_saving":
            saver = _StateSaver(tf, cell, batch)
            outputs, state = tf.nn.static_state_saving_rnn(
                cell, tf.unstack(inputs, axis=1), saver, case["state_name"],
                sequence_length=kwargs.get("sequence_length"))
        else:
            cell_bw = eval(case["cell"], ns)
            outputs, state_fw, state_bw = tf.nn.static_bidirectional_rnn(
                cell, cell_bw, tf.unstack(inputs, axis=1), **kwargs)
            state = (state_fw, state_bw)
        flat = _flat(outputs) + _flat(state)
        loss = tf.add_n([tf.reduce_sum(t * tf.sin(tf.cast(
            tf.reshape(tf.range(tf.size(t)), tf.shape(t)), tf.float32) + i))
            for i, t in enumerate(flat)])
        variables = sorted(tf.trainable_variables(), key=lambda v: v.name)
        grads = tf.gradients(loss, [inputs] + variables)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for i, v in enumerate(variables):
                shape = v.get_shape().as_list()
                v.load(np.random.RandomState(100 + i).uniform(-0.6, 0.6, shape)
                       .astype(np.float32), sess)
            values, grad_values = sess.run([flat, grads])
        return {"variables": [[v.name, v.get_shape().as_list()] for v in variables],
                "static_shapes": [t.get_shape().as_list() for t in flat],
                "values": [np.asarray(v).tolist() for v in values],
                "grads": [np.asarray(g).tolist() for g in grad_values]}
'''

_LSTM2 = "rc.MultiRNNCell([rc.BasicLSTMCell(4), rc.BasicLSTMCell(3)])"
_LSTM_FULL = ("rc.LSTMCell(5, use_peepholes=True, cell_clip=0.4, num_proj=3, proj_clip=0.3, "
              "forget_bias=0.5)")

# (id, case): the cells of tf.nn.rnn_cell under each driver, with and without
# sequence_length (lengths 0, partial and full).
CASES = [
    ("basic_rnn_dynamic", {"cell": "rc.BasicRNNCell(4)", "driver": "dynamic",
                           "shape": [3, 5, 2]}),
    ("basic_rnn_relu_seq", {"cell": "rc.BasicRNNCell(4, activation=tf.nn.relu)",
                            "driver": "dynamic", "shape": [3, 5, 2], "seq": [5, 2, 0]}),
    ("gru_dynamic_seq", {"cell": "rc.GRUCell(4)", "driver": "dynamic", "shape": [3, 6, 3],
                         "seq": [6, 1, 4]}),
    ("gru_static_seq", {"cell": "rc.GRUCell(4)", "driver": "static", "shape": [3, 6, 3],
                        "seq": [6, 1, 4]}),
    ("basic_lstm_dynamic", {"cell": "rc.BasicLSTMCell(4, forget_bias=0.3)",
                            "driver": "dynamic", "shape": [2, 4, 3]}),
    ("basic_lstm_concat_state", {"cell": "rc.BasicLSTMCell(4, state_is_tuple=False)",
                                 "driver": "dynamic", "shape": [2, 4, 3], "seq": [3, 4]}),
    ("lstm_full_dynamic_seq", {"cell": _LSTM_FULL, "driver": "dynamic", "shape": [3, 5, 2],
                               "seq": [2, 5, 3]}),
    ("lstm_full_static", {"cell": _LSTM_FULL, "driver": "static", "shape": [3, 5, 2]}),
    ("lstm_concat_proj", {"cell": "rc.LSTMCell(4, num_proj=2, state_is_tuple=False)",
                          "driver": "dynamic", "shape": [2, 3, 3]}),
    ("multi_lstm_dynamic_seq", {"cell": _LSTM2, "driver": "dynamic", "shape": [3, 5, 2],
                                "seq": [5, 3, 1]}),
    ("multi_lstm_static_seq", {"cell": _LSTM2, "driver": "static", "shape": [3, 5, 2],
                               "seq": [5, 3, 1]}),
    ("multi_lstm_time_major", {"cell": _LSTM2, "driver": "dynamic", "shape": [2, 4, 3],
                               "time_major": True}),
    ("multi_concat_state", {"cell": "rc.MultiRNNCell([rc.GRUCell(3), rc.BasicRNNCell(2)], "
                                    "state_is_tuple=False)",
                            "driver": "dynamic", "shape": [2, 4, 3]}),
    ("residual_gru", {"cell": "rc.MultiRNNCell([rc.GRUCell(3), "
                              "rc.ResidualWrapper(rc.GRUCell(3))])",
                      "driver": "dynamic", "shape": [2, 4, 3], "seq": [4, 2]}),
    ("device_dropout_keep1", {"cell": "rc.DeviceWrapper(rc.DropoutWrapper("
                                      "rc.BasicLSTMCell(3)), '/cpu:0')",
                              "driver": "dynamic", "shape": [2, 4, 3]}),
    ("raw_lstm_seq", {"cell": "rc.BasicLSTMCell(3)", "driver": "raw", "shape": [3, 5, 2],
                      "seq": [5, 2, 3]}),
    ("raw_multi", {"cell": _LSTM2, "driver": "raw", "shape": [2, 4, 3]}),
    ("state_saving_gru", {"cell": "rc.GRUCell(3)", "driver": "state_saving",
                          "shape": [2, 4, 3], "state_name": "h", "seq": [4, 2]}),
    ("state_saving_lstm", {"cell": "rc.BasicLSTMCell(3)", "driver": "state_saving",
                           "shape": [2, 4, 3], "state_name": ["c0", "h1"]}),
    ("bidi_dynamic_seq", {"cell": "rc.BasicLSTMCell(3)", "driver": "bidi_dynamic",
                          "shape": [3, 5, 2], "seq": [5, 2, 3]}),
    ("bidi_dynamic_gru", {"cell": "rc.GRUCell(3)", "driver": "bidi_dynamic",
                          "shape": [2, 4, 2]}),
    ("bidi_static_seq", {"cell": "rc.GRUCell(3)", "driver": "static_bidi",
                         "shape": [3, 5, 2], "seq": [5, 2, 3]}),
]
