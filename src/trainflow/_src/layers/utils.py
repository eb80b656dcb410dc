"""Argument normalisation and small helpers shared by the `tf.layers` modules."""
import re

from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.nn import nn_ops
from trainflow._src.ops.state import init_ops, regularizers


def to_snake_case(name):
    """"MaxPooling2D" -> "max_pooling2d", "Conv2DTranspose" -> "conv2d_transpose"."""
    step = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    snake = re.sub(r"([a-z])([A-Z])", r"\1_\2", step).lower()
    return snake if snake[0] != "_" else "private" + snake


def normalize_tuple(value, n, name):
    """An int or an iterable of n ints as a tuple of n ints.

    Raises:
      ValueError: naming `name` and the value, for anything else.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    try:
        values = tuple(value)
    except TypeError:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}") from None
    if len(values) != n or not all(isinstance(v, int) and not isinstance(v, bool)
                                   for v in values):
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}")
    return values


def normalize_data_format(value):
    """"channels_last" (the default for None) or "channels_first".

    Raises:
      ValueError: for any other value.
    """
    if value is None:
        return "channels_last"
    fmt = str(value).lower()
    if fmt not in ("channels_first", "channels_last"):
        raise ValueError('The `data_format` argument must be one of "channels_first", '
                         f'"channels_last". Received: {value}')
    return fmt


def normalize_padding(value):
    """"valid" or "same" (case-insensitive input).

    Raises:
      ValueError: for any other value.
    """
    padding = str(value).lower()
    if padding not in ("valid", "same"):
        raise ValueError('The `padding` argument must be one of "valid", "same". '
                         f"Received: {value}")
    return padding


def convert_data_format(data_format, ndim):
    """"channels_last"/"channels_first" as the op data_format for a rank-`ndim` tensor
    (NWC/NHWC or NCW/NCHW)."""
    last = {3: "NWC", 4: "NHWC", 5: "NDHWC"}
    first = {3: "NCW", 4: "NCHW", 5: "NCDHW"}
    table = last if data_format == "channels_last" else first
    if ndim not in table:
        raise ValueError(f"Input rank not supported: {ndim}")
    return table[ndim]


def conv_output_length(input_length, filter_size, padding, stride, dilation=1):
    """The output length of a convolution or pooling window along one axis (None if
    the input length is unknown)."""
    if input_length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if padding == "same":
        length = input_length
    else:
        length = input_length - dilated + 1
    return (length + stride - 1) // stride


def deconv_output_length(input_length, filter_size, padding, stride):
    """The output length of a transposed convolution along one axis (None if unknown).
    Works on ints and on int32 scalar tensors."""
    if input_length is None:
        return None
    if padding == "valid":
        return input_length * stride + max(filter_size - stride, 0)
    return input_length * stride


def smart_cond(pred, true_fn, false_fn, name=None):
    """`true_fn()` or `false_fn()` when `pred` is a Python bool or a tensor of known
    value, else `tf.cond(pred, true_fn, false_fn)`.

    Raises:
      TypeError: if `pred` is neither a bool nor a bool tensor.
    """
    value = static_bool(pred)
    if value is None:
        return cond(pred, true_fn, false_fn, name=name)
    return true_fn() if value else false_fn()


def static_bool(pred):
    """The Python value of a bool or bool tensor when known statically, else None.

    Raises:
      TypeError: for anything but a bool, a 0/1 int or a Tensor.
    """
    if isinstance(pred, Tensor):
        value = constant_value(pred)
        return None if value is None else bool(value)
    if isinstance(pred, bool) or pred in (0, 1):
        return bool(pred)
    raise TypeError(f"`pred` must be a Tensor, or a Python bool, or 1 or 0. "
                    f"Found instead: {pred!r}")


_ACTIVATIONS = {
    "relu": ("nn", "relu"), "relu6": ("nn", "relu6"), "elu": ("nn", "elu"),
    "selu": ("nn", "selu"), "softplus": ("nn", "softplus"), "softsign": ("nn", "softsign"),
    "softmax": ("nn", "softmax"), "sigmoid": ("math", "sigmoid"), "tanh": ("math", "tanh"),
}


def get_activation(identifier):
    """None, a callable, or a Keras activation name ("relu", "tanh", "linear", ...).

    Raises:
      ValueError: for an unknown name.
    """
    if identifier is None or callable(identifier):
        return identifier
    if identifier == "linear":
        return None
    if identifier in _ACTIVATIONS:
        module, fn = _ACTIVATIONS[identifier]
        return getattr(nn_ops if module == "nn" else math_ops, fn)
    raise ValueError(f"Unknown activation function: {identifier!r}")


_INITIALIZERS = {
    "zeros": "Zeros", "ones": "Ones", "glorot_uniform": "GlorotUniform",
    "glorot_normal": "GlorotNormal", "random_normal": "RandomNormal",
    "random_uniform": "RandomUniform", "truncated_normal": "TruncatedNormal",
    "orthogonal": "Orthogonal", "identity": "Identity",
}


def get_initializer(identifier):
    """None, an initializer (any callable), or a Keras initializer name ("zeros", ...).

    Raises:
      ValueError: for an unknown name.
    """
    if identifier is None or callable(identifier):
        return identifier
    if identifier in _INITIALIZERS:
        return getattr(init_ops, _INITIALIZERS[identifier])()
    if identifier in ("he_normal", "he_uniform", "lecun_normal", "lecun_uniform"):
        return getattr(init_ops, identifier)()
    raise ValueError(f"Unknown initializer: {identifier!r}")


def get_regularizer(identifier):
    """None, a callable, or a Keras regularizer name ("l1", "l2", "l1_l2")."""
    return regularizers.get(identifier)


def get_constraint(identifier):
    """None or a callable applied to the variable after each optimizer update.

    Raises:
      ValueError: for anything else.
    """
    if identifier is None or callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret constraint identifier: {identifier!r}")


def set_kernel_bias_args(layer, activation, use_bias, kernel_initializer, bias_initializer,
                         kernel_regularizer, bias_regularizer, kernel_constraint,
                         bias_constraint):
    """Stores the normalised activation and kernel/bias arguments of a layer with a
    `kernel` and an optional `bias` (Dense, the convolutions); both weights start None.

    Raises:
      ValueError: for an unknown activation, initializer, regularizer or constraint.
    """
    layer.activation = get_activation(activation)
    layer.use_bias = use_bias
    layer.kernel_initializer = get_initializer(kernel_initializer)
    layer.bias_initializer = get_initializer(bias_initializer)
    layer.kernel_regularizer = get_regularizer(kernel_regularizer)
    layer.bias_regularizer = get_regularizer(bias_regularizer)
    layer.kernel_constraint = get_constraint(kernel_constraint)
    layer.bias_constraint = get_constraint(bias_constraint)
    layer.kernel = None
    layer.bias = None


def add_kernel_and_bias(layer, kernel_shape, bias_shape, dtype):
    """Creates `layer.kernel` and, with `use_bias`, `layer.bias` (trainable weights from
    the arguments stored by `set_kernel_bias_args`)."""
    layer.kernel = layer.add_weight("kernel", shape=kernel_shape,
                                    initializer=layer.kernel_initializer,
                                    regularizer=layer.kernel_regularizer,
                                    constraint=layer.kernel_constraint, trainable=True,
                                    dtype=dtype)
    if layer.use_bias:
        layer.bias = layer.add_weight("bias", shape=bias_shape,
                                      initializer=layer.bias_initializer,
                                      regularizer=layer.bias_regularizer,
                                      constraint=layer.bias_constraint, trainable=True,
                                      dtype=dtype)
