"""`tf.nn.rnn_cell.RNNCell`, the layer-backed `LayerRNNCell`, `LSTMStateTuple`, and the
helpers the cells and drivers share (zero states, shape concatenation, the cell check).

A cell is a `tf.layers.Layer` called as `cell(inputs, state)`: on its first call it picks
its variable scope (the snake-cased class name, "basic_lstm_cell", unique in the enclosing
variable scope), builds its weights there and reuses them on later calls, as TF 1.15 does.
"""
import collections

import numpy as np

from trainflow._src.framework import dtypes, nest
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import Dimension, TensorShape, as_shape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.layers.base import Layer
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.state import variable_helpers
from trainflow._src.ops.state import variable_scope as vs

__all__ = ["LSTMStateTuple", "LayerRNNCell", "RNNCell"]


def _shape_parts(value):
    """(1-D int32 tensor or None, static TensorShape) of a prefix or suffix."""
    if isinstance(value, Tensor):
        known = constant_value(value)
        static = TensorShape(None) if known is None else \
            TensorShape(np.atleast_1d(known).tolist())
        tensor = value if value.shape.ndims == 1 else array_ops.reshape(value, [1])
        return tensor, static
    static = TensorShape([value]) if isinstance(value, (int, np.integer, Dimension)) \
        else as_shape(value)
    tensor = constant(static.as_list(), dtype=dtypes.int32) \
        if static.is_fully_defined() else None
    return tensor, static


def concat_shape(prefix, suffix, static=False):
    """The shape `prefix + suffix` (each an int, a TensorShape or an int tensor): a
    TensorShape when `static`, else a 1-D int32 tensor.

    Raises:
      ValueError: if a part is not fully defined (and `static` is False).
    """
    p, p_static = _shape_parts(prefix)
    s, s_static = _shape_parts(suffix)
    if static:
        return p_static.concatenate(s_static)
    if p is None or s is None:
        raise ValueError(f"Provided a prefix or suffix of None: {prefix} and {suffix}")
    return array_ops.concat((p, s), 0)


def zero_state_tensors(state_size, batch_size, dtype):
    """Zeros of shape [batch_size] + s for each size s of the (nested) `state_size`."""
    def zeros(s):
        value = array_ops.zeros(concat_shape(batch_size, s), dtype=dtype)
        value.set_shape(concat_shape(batch_size, s, static=True))
        return value
    return nest.map_structure(zeros, state_size)


def assert_like_rnncell(cell_name, cell):
    """Raises TypeError (TF's wording) unless `cell` has the RNN cell interface."""
    conditions = [hasattr(cell, "output_size"), hasattr(cell, "state_size"),
                  hasattr(cell, "get_initial_state") or hasattr(cell, "zero_state"),
                  callable(cell)]
    errors = ["'output_size' property is missing", "'state_size' property is missing",
              "either 'zero_state' or 'get_initial_state' method is required",
              "is not callable"]
    if not all(conditions):
        messages = [e for c, e in zip(conditions, errors) if not c]
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: "
                        + ", ".join(messages) + ".")


_LSTMStateTupleBase = collections.namedtuple("LSTMStateTuple", ("c", "h"))


class LSTMStateTuple(_LSTMStateTupleBase):
    """The (c, h) state of an LSTM cell: `c` the memory, `h` the output."""
    __slots__ = ()

    @property
    def dtype(self):
        """The common dtype of c and h.

        Raises:
          TypeError: if c and h differ in dtype.
        """
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


class RNNCell(Layer):
    """Abstract recurrent cell (`tf.nn.rnn_cell.RNNCell`): `output, new_state =
    cell(inputs, state)`, with `state_size` and `output_size` giving the (nested) sizes."""

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._is_tf_rnn_cell = True

    def __call__(self, inputs, state, scope=None):
        """Runs the cell on `inputs` (a [batch, input_size] tensor or nest) from `state`.

        Args:
          inputs: the step's input.
          state: a tensor [batch, state_size], or the nest `state_size` describes.
          scope: a variable scope (or name) to build and reuse the cell's variables in;
            default the cell's own scope, chosen on the first call.

        Returns:
          (output, new_state).
        """
        if scope is not None:
            with vs.variable_scope(scope, custom_getter=self._rnn_get_variable) as scope:
                return Layer.__call__(self, inputs, state, scope=scope)
        with vs.variable_scope(vs.get_variable_scope(), custom_getter=self._rnn_get_variable,
                               auxiliary_name_scope=False):
            return Layer.__call__(self, inputs, state)

    def _rnn_get_variable(self, getter, *args, **kwargs):
        """Records the variables made (with tf.get_variable) inside the cell's call among
        its trainable or non-trainable weights, as TF's cells do."""
        variable = getter(*args, **kwargs)
        trainable = set(variable_helpers.trainable_variables())
        for part in (list(variable) if hasattr(variable, "_get_variable_list")
                     else [variable]):
            weights = self._trainable_weights if part in trainable \
                else self._non_trainable_weights
            if all(part is not w for w in weights):
                weights.append(part)
        return variable

    @property
    def trainable_weights(self):
        return _unique(Layer.trainable_weights.fget(self))

    @property
    def non_trainable_weights(self):
        return _unique(Layer.non_trainable_weights.fget(self))

    weights = property(lambda self: self.trainable_weights + self.non_trainable_weights)
    variables = property(lambda self: self.weights)
    trainable_variables = property(lambda self: self.trainable_weights)
    non_trainable_variables = property(lambda self: self.non_trainable_weights)

    @property
    def state_size(self):
        """An int, TensorShape, or nest of them: the size(s) of the state.

        Raises:
          NotImplementedError: in the abstract base class.
        """
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self):
        """An int or TensorShape: the size of the output.

        Raises:
          NotImplementedError: in the abstract base class.
        """
        raise NotImplementedError("Abstract method")

    def build(self, _):
        self.built = True

    add_variable = Layer.add_weight

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """The zero state for `inputs`' batch and dtype, or the given batch_size/dtype.

        Raises:
          ValueError: if `inputs` disagrees with a given batch_size or dtype, or
            neither inputs nor (batch_size and dtype) are given.
        """
        if inputs is not None:
            static_batch = inputs.shape[0]
            static_batch = getattr(static_batch, "value", static_batch)
            if batch_size is not None:
                given = constant_value(batch_size, partial=True) \
                    if isinstance(batch_size, Tensor) else batch_size
                if static_batch != given:
                    raise ValueError(f"batch size from input tensor is different from the "
                                     f"input param. Input tensor batch: {static_batch}, "
                                     f"batch_size: {batch_size}")
            if dtype is not None and inputs.dtype != dtype:
                raise ValueError(f"dtype from input tensor is different from the input "
                                 f"param. Input tensor dtype: {inputs.dtype}, dtype: {dtype}")
            batch_size = static_batch if static_batch is not None else \
                array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError("batch_size and dtype cannot be None while constructing "
                             f"initial state: batch_size={batch_size}, dtype={dtype}")
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size, dtype):
        """Zero-filled state tensor(s): [batch_size, s] for each s of `state_size`."""
        state_size = self.state_size
        with name_scope(type(self).__name__ + "ZeroState", values=[batch_size]):
            return zero_state_tensors(state_size, batch_size, dtype)


def _unique(weights):
    out = []
    for w in weights:
        if all(w is not o for o in out):
            out.append(w)
    return out


class LayerRNNCell(RNNCell):
    """An RNNCell whose variables are made in `build` with `add_variable`, in the cell's
    own scope (the base of the built-in cells)."""

    def __call__(self, inputs, state, scope=None, *args, **kwargs):  # noqa: B026
        return Layer.__call__(self, inputs, state, *args, scope=scope, **kwargs)

