"""`tf.layers.Dense`, `Flatten` and `Dropout` and their functional forms."""
import functools
import operator

from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.layers import utils
from trainflow._src.layers.base import InputSpec, Layer
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.nn import nn_ops
from trainflow._src.ops.state import init_ops

__all__ = ["Dense", "Dropout", "Flatten", "dense", "dropout", "flatten"]


_ZEROS = init_ops.zeros_initializer()


class Dense(Layer):
    """Densely connected layer: `activation(inputs @ kernel + bias)` (`tf.layers.Dense`).

    Inputs of rank > 2 are contracted on their last axis (`Tensordot`).

    Args:
      units: output size.
      activation: callable (or Keras name) applied last; None for linear.
      use_bias: whether to add a bias.
      kernel_initializer: default get_variable's (Glorot uniform).
      bias_initializer: default zeros.
      kernel_regularizer, bias_regularizer: fn(variable) -> loss.
      activity_regularizer: fn(output) -> loss.
      kernel_constraint, bias_constraint: fns applied after optimizer updates.
      trainable, name: as Layer.
    """

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=_ZEROS, kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=utils.get_regularizer(activity_regularizer),
                         **kwargs)
        self.units = int(units)
        if self.units <= 0:
            raise ValueError("Received an invalid value for `units`, expected a positive "
                             f"integer. Received: units={units}")
        utils.set_kernel_bias_args(self, activation, use_bias, kernel_initializer,
                                   bias_initializer, kernel_regularizer, bias_regularizer,
                                   kernel_constraint, bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        dtype = dtypes.as_dtype(self.dtype or dtypes.float32)
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError("Unable to build `Dense` layer with non-floating point dtype "
                            f"{dtype.name}")
        if input_shape.ndims is None or input_shape.as_list()[-1] is None:
            dims = "?" if input_shape.ndims is None else ", ".join(
                "?" if d is None else str(d) for d in input_shape.as_list())
            raise ValueError("The last dimension of the inputs to a Dense layer should be "
                             f"defined. Found None. Full input shape received: ({dims})")
        last_dim = input_shape.as_list()[-1]
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        utils.add_kernel_and_bias(self, [last_dim, self.units], [self.units], dtype)
        self.built = True

    def call(self, inputs):
        rank = inputs.shape.ndims
        if rank is not None and rank > 2:
            outputs = math_ops.tensordot(inputs, self.kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.shape.as_list()[:-1] + [self.units])
        else:
            inputs = math_ops.cast(inputs, self.kernel.dtype.base_dtype)
            outputs = math_ops.matmul(inputs, self.kernel)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        input_shape = TensorShape(input_shape).with_rank_at_least(2)
        if input_shape.as_list()[-1] is None:
            raise ValueError("The innermost dimension of input_shape must be defined, but "
                             f"saw: {input_shape}")
        return TensorShape(input_shape.as_list()[:-1] + [self.units])


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=_ZEROS, kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
          trainable=True, name=None, reuse=None):
    """Functional `Dense` (`tf.layers.dense`): variables `<name or dense_N>/kernel` and
    `/bias`; `reuse=True` with `name` shares an earlier layer's variables.

    Returns:
      the output tensor, `inputs`' shape with the last axis replaced by `units`.
    """
    layer = Dense(units, activation=activation, use_bias=use_bias,
                  kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                  kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                  activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                  trainable=trainable, name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs)


class Dropout(Layer):
    """Drops each input with probability `rate` while training and scales the rest
    by 1 / (1 - rate) (`tf.layers.Dropout`).

    Args:
      rate: the drop probability.
      noise_shape: shape of the keep/drop mask (None entries take the input's size).
      seed: op-level random seed.
      name: as Layer.

    `call(inputs, training=False)`: training may be a Python bool or a bool tensor
    (then a `cond` picks the branch at run time).
    """

    def __init__(self, rate=0.5, noise_shape=None, seed=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True

    def _get_noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        dynamic = array_ops.shape(inputs)
        dims = [dynamic[i] if v is None else v for i, v in enumerate(self.noise_shape)]
        return convert_to_tensor(dims)

    def call(self, inputs, training=False):
        if isinstance(self.rate, (int, float)) and self.rate == 0:
            return array_ops.identity(inputs)

        def dropped():
            return nn_ops.dropout(inputs, noise_shape=self._get_noise_shape(inputs),
                                  seed=self.seed, rate=self.rate)
        return utils.smart_cond(training, dropped, lambda: array_ops.identity(inputs))

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Functional `Dropout` (`tf.layers.dropout`): identity unless `training` (a bool or
    a bool tensor) is true.

    Returns:
      a tensor shaped like `inputs`.
    """
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return layer.apply(inputs, training=training)


class Flatten(Layer):
    """Flattens all but the first axis (`tf.layers.Flatten`).

    Args:
      data_format: "channels_last" (default) or "channels_first", whose inputs are moved
        to channels-last order first so both flatten alike.
      name: as Layer.
    """

    def __init__(self, data_format="channels_last", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.data_format = utils.normalize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        rank = inputs.shape.ndims
        if self.data_format == "channels_first" and rank is not None and rank > 1:
            inputs = array_ops.transpose(inputs, perm=[0] + list(range(2, rank)) + [1])
        if rank == 1:
            return array_ops.expand_dims(inputs, axis=1)
        dims = inputs.shape.as_list() if rank is not None else None
        if dims is not None and all(d is not None for d in dims[1:]):
            last = int(functools.reduce(operator.mul, dims[1:], 1))
            target = convert_to_tensor([-1, last])
        elif dims is not None and dims[0] is not None:
            target = convert_to_tensor([dims[0], -1])
        else:
            target = [array_ops.shape(inputs)[0], -1]
        outputs = array_ops.reshape(inputs, target)
        if rank is not None:
            outputs.set_shape(self.compute_output_shape(inputs.shape))
        return outputs

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if len(dims) == 1:
            return TensorShape([dims[0], 1])
        rest = dims[1:]
        size = None if any(d is None for d in rest) else \
            int(functools.reduce(operator.mul, rest, 1))
        return TensorShape([dims[0], size])


def flatten(inputs, name=None, data_format="channels_last"):
    """Functional `Flatten` (`tf.layers.flatten`): [batch, ...] -> [batch, prod(...)]."""
    return Flatten(name=name, data_format=data_format).apply(inputs)
