"""`MultiRNNCell` (stacked cells, each in its `cell_<i>` scope) and the wrappers of
`tf.nn.rnn_cell`: `DropoutWrapper`, `ResidualWrapper`, `DeviceWrapper`.

A wrapper opens no variable scope of its own: it calls the wrapped cell with the same
`scope`, so a wrapped cell's variables keep the names the bare cell would have.
"""
import hashlib
import numbers

from trainflow._src import tf_logging as logging
from trainflow._src.framework import dtypes as dtypes_lib
from trainflow._src.framework import nest
from trainflow._src.framework.scopes import device, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.layers.base import Layer
from trainflow._src.nn.rnn_cell_base import LSTMStateTuple, RNNCell, assert_like_rnncell
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.nn import nn_ops
from trainflow._src.ops.random import random_ops
from trainflow._src.ops.state import variable_scope as vs

__all__ = ["DeviceWrapper", "DropoutWrapper", "MultiRNNCell", "ResidualWrapper"]


def _cell_weights(cells, trainable):
    out = []
    for cell in cells:
        if isinstance(cell, Layer):
            out += cell.trainable_weights if trainable else cell.non_trainable_weights
    return out


class MultiRNNCell(RNNCell):
    """Runs `cells` one above the other, cell i in variable scope `cell_<i>`.

    Args:
      cells: a list of RNNCells.
      state_is_tuple: True (default): the state is the tuple of the cells' states;
        False: their concatenation along axis 1.

    Raises:
      ValueError: for no cells, or a tuple-state cell without state_is_tuple.
      TypeError: if `cells` is not a list or tuple.
    """

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but saw: {cells}.")
        if len({id(cell) for cell in cells}) < len(cells):
            logging.warning("At least two cells provided to MultiRNNCell are the same object "
                            "and will share weights.")
        self._cells = cells
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_nested(c.state_size) for c in cells):
            raise ValueError("Some cells return tuples of states, but the flag state_is_tuple "
                             "is not set.  State sizes are: "
                             f"{[c.state_size for c in cells]}")

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    output_size = property(lambda self: self._cells[-1].output_size)

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return super().zero_state(batch_size, dtype)

    @property
    def trainable_weights(self):
        return _cell_weights(self._cells, True) if self.trainable else []

    @property
    def non_trainable_weights(self):
        weights = _cell_weights(self._cells, False)
        return weights if self.trainable else _cell_weights(self._cells, True) + weights

    def call(self, inputs, state):
        position = 0
        current = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with vs.variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not nest.is_nested(state):
                        raise ValueError(f"Expected state to be a tuple of length "
                                         f"{len(self.state_size)}, but received: {state}")
                    cell_state = state[i]
                else:
                    cell_state = array_ops.slice(state, [0, position], [-1, cell.state_size])
                    position += cell.state_size
                current, new_state = cell(current, cell_state)
                new_states.append(new_state)
        if self._state_is_tuple:
            return current, tuple(new_states)
        return current, array_ops.concat(new_states, 1)


class _Wrapper(RNNCell):
    """An RNNCell around `cell`: sizes, zero state and weights are the cell's."""

    def __init__(self, cell, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        assert_like_rnncell("cell", cell)
        self.cell = cell

    wrapped_cell = property(lambda self: self.cell)
    state_size = property(lambda self: self.cell.state_size)
    output_size = property(lambda self: self.cell.output_size)
    trainable_weights = property(lambda self: _cell_weights([self.cell], True)
                                 if self.trainable else [])
    non_trainable_weights = property(lambda self: _cell_weights([self.cell], False))

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return self.cell.zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        return self._call_wrapped_cell(inputs, state, self.cell.__call__, scope=scope)


def _default_dropout_state_filter_visitor(substate):
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return True


def _children(value):
    return [value[k] for k in sorted(value)] if isinstance(value, dict) else list(value)


def _flat_mask(visitor, value):
    """For each leaf of `value` (flatten order), whether dropout applies to it: `visitor`
    is called top-down; True descends (or keeps a leaf), False skips the whole part, a
    structure of bools decides each child."""
    decision = visitor(value)
    if isinstance(decision, bool):
        if not decision:
            return [False] * len(nest.flatten(value))
        if not nest.is_nested(value):
            return [True]
        return [b for child in _children(value) for b in _flat_mask(visitor, child)]
    return [bool(d) for d, child in zip(_children(decision), _children(value))
            for _ in nest.flatten(child)]


class DropoutWrapper(_Wrapper):
    """Dropout on the inputs, outputs and state of `cell`.

    Args:
      cell: an RNNCell.
      input_keep_prob, output_keep_prob, state_keep_prob: floats in [0, 1] or scalar
        tensors; 1 adds no dropout there.
      variational_recurrent: the same dropout mask at every time step (Gal &
        Ghahramani); needs `dtype` (and `input_size` when inputs are dropped).
      input_size: the (nested) depth of the inputs, for the variational input mask.
      dtype: the dtype of the noise, for variational_recurrent.
      seed: the random seed (each dropped tensor derives its own from it).
      dropout_state_filter_visitor: fn(substate) -> bool or a structure of bools
        saying which parts of the state get dropout; default every part but the
        `c` of an LSTMStateTuple.

    Raises:
      TypeError: if `cell` is not an RNNCell.
      ValueError: for a keep probability outside [0, 1], or missing dtype/input_size.
    """

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs):
        super().__init__(cell, **kwargs)
        if dropout_state_filter_visitor is not None and \
                not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._dropout_state_filter = dropout_state_filter_visitor or \
            _default_dropout_state_filter_visitor
        with name_scope("DropoutWrapperInit"):
            for prob, attr in ((input_keep_prob, "input_keep_prob"),
                               (state_keep_prob, "state_keep_prob"),
                               (output_keep_prob, "output_keep_prob")):
                tensor = convert_to_tensor(prob)
                value = constant_value(tensor)
                if value is not None:
                    if value < 0 or value > 1:
                        raise ValueError(f"Parameter {attr} must be between 0 and 1: "
                                         f"{value:g}")
                    setattr(self, "_" + attr, float(value))
                else:
                    setattr(self, "_" + attr, tensor)
        self._variational_recurrent = variational_recurrent
        self._input_size = input_size
        self._seed = seed
        self._recurrent_input_noise = self._recurrent_state_noise = None
        self._recurrent_output_noise = None
        if variational_recurrent:
            self._make_noise(cell, input_size, dtype)

    def _make_noise(self, cell, input_size, dtype):
        if dtype is None:
            raise ValueError("When variational_recurrent=True, dtype must be provided")
        dtype = dtypes_lib.as_dtype(dtype)

        def noise(sizes, prefix):
            return nest.pack_sequence_as(sizes, [
                random_ops.random_uniform([1] + TensorShape(s).as_list(),
                                          seed=self._gen_seed(prefix, i), dtype=dtype)
                for i, s in enumerate(nest.flatten(sizes))])

        with name_scope("DropoutWrapperInit"):
            if not isinstance(self._input_keep_prob, numbers.Real) or \
                    self._input_keep_prob < 1.0:
                if input_size is None:
                    raise ValueError("When variational_recurrent=True and input_keep_prob < "
                                     "1.0 or is unknown, input_size must be provided")
                self._recurrent_input_noise = noise(input_size, "input")
            self._recurrent_state_noise = noise(cell.state_size, "state")
            self._recurrent_output_noise = noise(cell.output_size, "output")

    def _gen_seed(self, salt_prefix, index):
        if self._seed is None:
            return None
        salt = f"{salt_prefix}_{index}"
        digest = hashlib.md5((str(self._seed) + salt).encode("utf-8")).hexdigest()
        return int(digest[:8], 16) & 0x7FFFFFFF

    def _dropout(self, values, salt_prefix, recurrent_noise, keep_prob, mask=None):
        flat = nest.flatten(values)
        mask = mask or [True] * len(flat)
        noise = nest.flatten(recurrent_noise) if self._variational_recurrent else None
        out = []
        for i, (value, drop) in enumerate(zip(flat, mask)):
            if not drop:
                out.append(value)
            elif self._variational_recurrent:
                kept = math_ops.floor(keep_prob + noise[i])
                result = math_ops.div(value, keep_prob) * kept
                result.set_shape(value.shape)
                out.append(result)
            else:
                out.append(nn_ops.dropout(value, keep_prob=keep_prob,
                                          seed=self._gen_seed(salt_prefix, i)))
        return nest.pack_sequence_as(values, out)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        def should_dropout(p):
            return not isinstance(p, float) or p < 1
        if should_dropout(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._recurrent_input_noise,
                                   self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should_dropout(self._state_keep_prob):
            new_state = self._dropout(new_state, "state", self._recurrent_state_noise,
                                      self._state_keep_prob,
                                      _flat_mask(self._dropout_state_filter, new_state))
        if should_dropout(self._output_keep_prob):
            output = self._dropout(output, "output", self._recurrent_output_noise,
                                   self._output_keep_prob)
        return output, new_state


class ResidualWrapper(_Wrapper):
    """Adds the cell's inputs to its outputs (or combines them with `residual_fn`).

    Args:
      cell: an RNNCell.
      residual_fn: fn(inputs, outputs) -> outputs; default their element-wise sum
        (same structure and compatible shapes).
    """

    def __init__(self, cell, residual_fn=None, **kwargs):
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def default_residual_fn(inputs, outputs):
            nest.assert_same_structure(inputs, outputs)
            nest.map_structure(lambda i, o: i.shape.assert_is_compatible_with(o.shape),
                               inputs, outputs)
            return nest.map_structure(lambda i, o: i + o, inputs, outputs)
        return (self._residual_fn or default_residual_fn)(inputs, outputs), new_state


class DeviceWrapper(_Wrapper):
    """Runs the cell (and makes its zero state) on `device`."""

    def __init__(self, cell, device, **kwargs):  # noqa: A002 - TF's argument name
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size, dtype):
        with name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            with device(self._device):
                return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs, state, cell_call_fn, **kwargs):
        with device(self._device):
            return cell_call_fn(inputs, state, **kwargs)
