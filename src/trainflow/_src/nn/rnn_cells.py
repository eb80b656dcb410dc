"""The built-in cells of `tf.nn.rnn_cell`: `BasicRNNCell`, `GRUCell`, `BasicLSTMCell` and
`LSTMCell`, with TF 1.15's variables (names, shapes, layouts and initial values).

Every cell multiplies `concat([inputs, state], 1)` by one kernel: `kernel` [in + units,
units] and `bias` for the basic RNN; `gates/kernel` [in + units, 2 units] (reset then
update gate, bias initialised to 1.0) and `candidate/kernel` for the GRU; `kernel`
[in + units, 4 units] with the gate blocks in the order i, j, f, o for the LSTMs (plus
`w_f_diag`, `w_i_diag`, `w_o_diag` peepholes and `projection/kernel` for LSTMCell).
"""
from trainflow._src import tf_logging as logging
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework import dtypes
from trainflow._src.layers import utils as layer_utils
from trainflow._src.nn.rnn_cell_base import LayerRNNCell, LSTMStateTuple
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import clip_ops, math_ops
from trainflow._src.ops.nn import nn_ops
from trainflow._src.ops.state import init_ops, partitioned_variables

__all__ = ["BasicLSTMCell", "BasicRNNCell", "GRUCell", "LSTMCell"]


def _activation(activation):
    return math_ops.tanh if activation is None else layer_utils.get_activation(activation)


def _check_supported_dtypes(dtype):
    """TF's check that a cell computes in a floating or complex type."""
    if dtype is None:
        return
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError(f"RNN cell only supports floating point inputs, but saw dtype: "
                         f"{dtype}")


def _input_depth(cell, inputs_shape):
    _check_supported_dtypes(cell.dtype)
    depth = TensorShape(inputs_shape)[-1] if TensorShape(inputs_shape).ndims else None
    depth = getattr(depth, "value", depth)
    if depth is None:
        raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: "
                         f"{TensorShape(inputs_shape)}")
    return depth


def _zeros(cell):
    return init_ops.zeros_initializer(dtype=dtypes.as_dtype(cell.dtype)) if cell.dtype \
        else init_ops.zeros_initializer()


class BasicRNNCell(LayerRNNCell):
    """The most basic RNN cell: `output = new_state = act(W [inputs, state] + b)`.

    Args:
      num_units: int, the number of units.
      activation: default tanh.
      reuse: whether to reuse the variables of an existing scope.
      name: the layer name (its variable scope); default "basic_rnn_cell".
      dtype: the variables' dtype; default the first input's.
    """

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None,
                 **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_units = num_units
        self._activation = _activation(activation)

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        self._kernel = self.add_variable("kernel", shape=[depth + self._num_units,
                                                          self._num_units])
        self._bias = self.add_variable("bias", shape=[self._num_units],
                                       initializer=_zeros(self))
        self.built = True

    def call(self, inputs, state):
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        output = self._activation(nn_ops.bias_add(gate_inputs, self._bias))
        return output, output


class GRUCell(LayerRNNCell):
    """Gated Recurrent Unit cell (Cho et al. 2014), TF 1.15's layout.

    Args:
      num_units: int, the number of units.
      activation: default tanh.
      reuse: whether to reuse the variables of an existing scope.
      kernel_initializer: for both kernels; default the scope's (Glorot uniform).
      bias_initializer: for both biases; default 1.0 for the gates, 0 for the candidate.
      name, dtype: as BasicRNNCell (default name "gru_cell").
    """

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        self._num_units = num_units
        self._activation = _activation(activation)
        self._kernel_initializer = layer_utils.get_initializer(kernel_initializer)
        self._bias_initializer = layer_utils.get_initializer(bias_initializer)

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        units = self._num_units
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        self._gate_kernel = self.add_variable("gates/kernel", shape=[depth + units, 2 * units],
                                              initializer=self._kernel_initializer)
        self._gate_bias = self.add_variable(
            "gates/bias", shape=[2 * units],
            initializer=self._bias_initializer or init_ops.constant_initializer(1.0,
                                                                                dtype=dtype))
        self._candidate_kernel = self.add_variable("candidate/kernel",
                                                   shape=[depth + units, units],
                                                   initializer=self._kernel_initializer)
        self._candidate_bias = self.add_variable(
            "candidate/bias", shape=[units],
            initializer=self._bias_initializer or init_ops.zeros_initializer(dtype=dtype))
        self.built = True

    def call(self, inputs, state):
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._gate_kernel)
        value = math_ops.sigmoid(nn_ops.bias_add(gate_inputs, self._gate_bias))
        r, u = array_ops.split(value=value, num_or_size_splits=2, axis=1)
        candidate = math_ops.matmul(array_ops.concat([inputs, r * state], 1),
                                    self._candidate_kernel)
        c = self._activation(nn_ops.bias_add(candidate, self._candidate_bias))
        new_h = u * state + (1 - u) * c
        return new_h, new_h


def _concat_state_warning(cell):
    logging.warning("%s: Using a concatenated state is slower and will soon be deprecated.  "
                    "Use state_is_tuple=True.", cell)


class BasicLSTMCell(LayerRNNCell):
    """Basic LSTM cell (Zaremba et al. 2014): no peepholes, no clipping, no projection;
    `forget_bias` is added to the forget gate.

    Args:
      num_units: int, the number of units.
      forget_bias: float added to the forget gate's pre-activation (default 1.0).
      state_is_tuple: True (default) for an LSTMStateTuple (c, h) state, False for
        `concat([c, h], 1)`.
      activation: default tanh.
      reuse, name, dtype: as BasicRNNCell (default name "basic_lstm_cell").
    """

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        if not state_is_tuple:
            _concat_state_warning(self)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)

    @property
    def state_size(self):
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        self._kernel = self.add_variable("kernel", shape=[depth + self._num_units,
                                                          4 * self._num_units])
        self._bias = self.add_variable("bias", shape=[4 * self._num_units],
                                       initializer=_zeros(self))
        self.built = True

    def call(self, inputs, state):
        sigmoid = math_ops.sigmoid
        one = constant(1, dtype=dtypes.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        i, j, f, o = array_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias_tensor = constant(self._forget_bias, dtype=f.dtype)
        new_c = math_ops.add(math_ops.multiply(c, sigmoid(math_ops.add(f, forget_bias_tensor))),
                             math_ops.multiply(sigmoid(i), self._activation(j)))
        new_h = math_ops.multiply(self._activation(new_c), sigmoid(o))
        if self._state_is_tuple:
            return new_h, LSTMStateTuple(new_c, new_h)
        return new_h, array_ops.concat([new_c, new_h], 1)


class LSTMCell(LayerRNNCell):
    """LSTM cell with optional peepholes, cell clipping and an output projection
    (Hochreiter 1997; Sak et al. 2014), TF 1.15's layout.

    Args:
      num_units: int, the number of units.
      use_peepholes: adds the diagonal peephole weights w_f_diag, w_i_diag, w_o_diag.
      cell_clip: clips the cell state to [-cell_clip, cell_clip] before the output.
      initializer: for the kernels and peepholes; default the scope's.
      num_proj: projects the output (and h state) to this size (`projection/kernel`).
      proj_clip: clips the projected output to [-proj_clip, proj_clip].
      num_unit_shards, num_proj_shards: shard the kernel / projection variables.
      forget_bias: added to the forget gate (default 1.0).
      state_is_tuple: True (default) for an LSTMStateTuple (c, m) state.
      activation: default tanh.
      reuse, name, dtype: as BasicRNNCell (default name "lstm_cell").
    """

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None, name=None,
                 dtype=None, **kwargs):
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self.dtype)
        if not state_is_tuple:
            _concat_state_warning(self)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = layer_utils.get_initializer(initializer)
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._num_unit_shards = num_unit_shards
        self._num_proj_shards = num_proj_shards
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = _activation(activation)
        out = num_proj if num_proj else num_units
        self._state_size = LSTMStateTuple(num_units, out) if state_is_tuple \
            else num_units + out
        self._output_size = out

    state_size = property(lambda self: self._state_size)
    output_size = property(lambda self: self._output_size)

    def build(self, inputs_shape):
        depth = _input_depth(self, inputs_shape)
        h_depth = self._num_proj if self._num_proj is not None else self._num_units
        shards = self._num_unit_shards
        self._kernel = self.add_variable(
            "kernel", shape=[depth + h_depth, 4 * self._num_units],
            initializer=self._initializer,
            partitioner=partitioned_variables.fixed_size_partitioner(shards) if shards else None)
        self._bias = self.add_variable("bias", shape=[4 * self._num_units],
                                       initializer=_zeros(self))
        if self._use_peepholes:
            self._w_f_diag, self._w_i_diag, self._w_o_diag = (
                self.add_variable(name, shape=[self._num_units], initializer=self._initializer)
                for name in ("w_f_diag", "w_i_diag", "w_o_diag"))
        if self._num_proj is not None:
            shards = self._num_proj_shards
            self._proj_kernel = self.add_variable(
                "projection/kernel", shape=[self._num_units, self._num_proj],
                initializer=self._initializer,
                partitioner=partitioned_variables.fixed_size_partitioner(shards)
                if shards else None)
        self.built = True

    def call(self, inputs, state):
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = math_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, self._num_units])
            m_prev = array_ops.slice(state, [0, self._num_units], [-1, num_proj])
        if inputs.shape.with_rank(2).as_list()[1] is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        kernel = _joined(self._kernel)
        lstm_matrix = math_ops.matmul(array_ops.concat([inputs, m_prev], 1), kernel)
        lstm_matrix = nn_ops.bias_add(lstm_matrix, self._bias)
        i, j, f, o = array_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = clip_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, _joined(self._proj_kernel))
            if self._proj_clip is not None:
                m = clip_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple \
            else array_ops.concat([c, m], 1)
        return m, new_state


def _joined(variable):
    """A sharded (partitioned) variable as one tensor; a plain variable as is."""
    if hasattr(variable, "_get_variable_list"):
        return array_ops.concat(list(variable), 0)
    return variable
