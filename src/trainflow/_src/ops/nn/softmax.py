"""Softmax, LogSoftmax and BiasAdd (with BiasAddV1 and BiasAddGrad) of `tf.nn`, their
gradients, and the composites xw_plus_b and relu_layer.
"""
from trainflow._src.ops.array import create, join, layout, shape as shape_lib
from trainflow._src.ops.math import arith, reductions
from trainflow._src.ops.nn.activation import relu
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.nn import activation_kernels as K
from trainflow._src.ops.nn.shape_util import decoded
from trainflow._src.ops.array.shape_util import dims_of, merge_dim, with_rank, with_rank_at_least

__all__ = ["bias_add", "log_softmax", "relu_layer", "softmax", "xw_plus_b"]

_FLOAT_TYPES = "{half, bfloat16, float, double}"
_BIAS_TYPES = ("{float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
               "qint32, bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64}")
_DATA_FORMAT = "data_format: {'NHWC', 'NCHW'} = 'NHWC'"


def _softmax_shape(op):
    with_rank_at_least(dims_of(op.inputs[0]), 1)
    return [op.inputs[0].shape]


register_op("Softmax", inputs=["logits: T"], outputs=["softmax: T"],
            attrs=[f"T: {_FLOAT_TYPES}"], shape_fn=_softmax_shape, kernel=K.softmax)
register_op("LogSoftmax", inputs=["logits: T"], outputs=["logsoftmax: T"],
            attrs=[f"T: {_FLOAT_TYPES}"], shape_fn=_softmax_shape, kernel=K.log_softmax)


def _bias_add_shape(op):
    fmt = decoded(op._attrs.get("data_format", b"NHWC"))
    dims = with_rank_at_least(dims_of(op.inputs[0]), 3 if fmt == "NCHW" else 2)
    bias = with_rank(dims_of(op.inputs[1]), 1)
    if dims is None:
        return [None]
    axis = K.channel_axis(len(dims), fmt)
    out = list(dims)
    out[axis] = merge_dim(dims[axis], bias[0])
    return [TensorShape(out)]


def _bias_add_v1_shape(op):
    dims = with_rank_at_least(dims_of(op.inputs[0]), 2)
    bias = with_rank(dims_of(op.inputs[1]), 1)
    if dims is None:
        return [None]
    return [TensorShape(list(dims[:-1]) + [merge_dim(dims[-1], bias[0])])]


def _bias_add_grad_shape(op):
    dims = with_rank_at_least(dims_of(op.inputs[0]), 2)
    if dims is None:
        return [TensorShape([None])]
    fmt = decoded(op._attrs.get("data_format", b"NHWC"))
    return [TensorShape([dims[K.channel_axis(len(dims), fmt)]])]


register_op("BiasAdd", inputs=["value: T", "bias: T"], outputs=["output: T"],
            attrs=[f"T: {_BIAS_TYPES}", _DATA_FORMAT], shape_fn=_bias_add_shape,
            kernel=K.bias_add)
register_op("BiasAddV1", inputs=["value: T", "bias: T"], outputs=["output: T"],
            attrs=[f"T: {_BIAS_TYPES}"], shape_fn=_bias_add_v1_shape, kernel=K.bias_add_v1)
register_op("BiasAddGrad", inputs=["out_backprop: T"], outputs=["output: T"],
            attrs=[f"T: {_BIAS_TYPES}", _DATA_FORMAT], shape_fn=_bias_add_grad_shape,
            kernel=K.bias_add_grad)


# -- gradients ------------------------------------------------------------------------------
@RegisterGradient("Softmax")
def _softmax_grad(op, grad):
    # d softmax: (g - sum(g * s, -1)) * s
    s = op.outputs[0]
    dot = reductions.reduce_sum(arith.multiply(grad, s), -1, keepdims=True)
    return arith.multiply(arith.subtract(grad, dot), s)


@RegisterGradient("LogSoftmax")
def _log_softmax_grad(op, grad):
    # d log_softmax: g - sum(g, -1) * softmax
    s = arith.exp(op.outputs[0])
    return arith.subtract(grad, arith.multiply(
        reductions.reduce_sum(grad, -1, keepdims=True), s))


@RegisterGradient("BiasAdd")
def _bias_add_grad(op, grad):
    fmt = op._attrs.get("data_format", b"NHWC")
    return grad, apply_op("BiasAddGrad", out_backprop=grad, data_format=fmt).outputs[0]


@RegisterGradient("BiasAddV1")
def _bias_add_v1_grad(op, grad):
    return grad, apply_op("BiasAddGrad", out_backprop=grad).outputs[0]


@RegisterGradient("BiasAddGrad")
def _bias_add_grad_grad(op, grad):
    # BiasAddGrad sums over every axis but the channel one, so its gradient spreads the
    # incoming [C] vector back over out_backprop's shape.
    fmt = decoded(op._attrs.get("data_format", b"NHWC"))
    x = op.inputs[0]
    shape = shape_lib.shape(x)
    channels = shape_lib.shape(grad)
    if fmt == "NCHW":
        keep = join.concat([shape[:1], [1], shape[2:]], 0)
        expanded = join.concat(
            [create.ones_like(shape[:1]), channels, create.ones_like(shape[2:])], 0)
    else:
        keep = join.concat([shape[:-1], [1]], 0)
        expanded = join.concat([create.ones_like(shape[:-1]), channels], 0)
    return layout.tile(shape_lib.reshape(grad, expanded), keep)


# -- public functions -----------------------------------------------------------------------
def _last_axis_op(op_type, logits, axis, name):
    """Applies a last-axis op along `axis`, transposing `axis` to the end and back."""
    logits = convert_to_tensor(logits)
    ndims = logits.shape.ndims
    axis_value = constant_value(axis) if isinstance(axis, Tensor) else axis
    if axis_value is not None and (int(axis_value) == -1 or
                                   (ndims is not None and int(axis_value) == ndims - 1)):
        return apply_op(op_type, logits=logits, name=name).outputs[0]
    if ndims is None or axis_value is None:
        raise ValueError(f"{op_type} along axis {axis} needs a static axis and a known rank; "
                         f"got logits of shape {logits.shape}")
    axis_value = int(axis_value)
    if not -ndims <= axis_value < ndims:
        raise errors.InvalidArgumentError(
            None, None, f"`dim` must be in the range [{-ndims}, {ndims}) where {ndims} is the "
                        f"number of dimensions in the input. Received: dim={axis_value}")
    axis_value %= ndims
    perm = list(range(ndims))
    perm[axis_value], perm[-1] = perm[-1], perm[axis_value]
    swapped = layout.transpose(logits, perm)
    out = apply_op(op_type, logits=swapped).outputs[0]
    out = layout.transpose(out, perm, name=name)
    out.set_shape(logits.shape)
    return out


def _axis_arg(axis, dim):
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'.")
    value = axis if axis is not None else dim
    return -1 if value is None else value


def softmax(logits, axis=None, name=None, dim=None):
    """exp(logits) / sum(exp(logits), axis) (`tf.nn.softmax`, op `Softmax`).

    Args:
      logits: a floating Tensor of rank >= 1.
      axis: the axis to normalise over (default -1, the last).
      name: the op name.
      dim: TF1's deprecated spelling of `axis`.

    Returns:
      a Tensor like `logits`.

    Raises:
      InvalidArgumentError: if `axis` is out of range for the rank of `logits`.
      ValueError: if both `axis` and `dim` are given.
    """
    return _last_axis_op("Softmax", logits, _axis_arg(axis, dim), name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """logits - log(sum(exp(logits), axis)) (`tf.nn.log_softmax`, op `LogSoftmax`).

    Same arguments and errors as `softmax`.
    """
    return _last_axis_op("LogSoftmax", logits, _axis_arg(axis, dim), name)


def bias_add(value, bias, data_format=None, name=None):
    """Adds the 1-D `bias` to `value` along its channel axis (`tf.nn.bias_add`).

    Args:
      value: a Tensor of rank >= 2.
      bias: a 1-D Tensor with the size of the channel axis, of `value`'s dtype.
      data_format: "N...C" (channels last, default) or "NC..." (channels second).
      name: the op name (default "BiasAdd").

    Raises:
      ValueError: for a malformed data_format or incompatible shapes.
    """
    with name_scope(name, "BiasAdd", [value, bias]) as name:
        if data_format is not None:
            if data_format.startswith("NC"):
                data_format = "NCHW"
            elif data_format.startswith("N") and data_format.endswith("C"):
                data_format = "NHWC"
            else:
                raise ValueError("`data_format` must be of the form `N...C` or `NC...`. "
                                 f"Received: data_format={data_format}")
        else:
            data_format = "NHWC"
        value = convert_to_tensor(value, name="input")
        bias = convert_to_tensor(bias, dtype=value.dtype.base_dtype, name="bias")
        return apply_op("BiasAdd", value=value, bias=bias, data_format=data_format,
                        name=name).outputs[0]


def _matmul_and_biases(x, weights, biases):
    """(matmul(x, weights), biases), the three inputs converted as "x", "weights" and
    "biases" in the current name scope."""
    x = convert_to_tensor(x, name="x")
    weights = convert_to_tensor(weights, name="weights")
    biases = convert_to_tensor(biases, name="biases")
    return arith.matmul(x, weights), biases


def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases (`tf.nn.xw_plus_b`).

    Args:
      x: a 2-D Tensor [batch, in]; weights [in, out]; biases [out].
      name: the name scope (default "xw_plus_b"); the BiasAdd takes this name.
    """
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as name:
        mm, biases = _matmul_and_biases(x, weights, biases)
        return bias_add(mm, biases, name=name)


def relu_layer(x, weights, biases, name=None):
    """relu(matmul(x, weights) + biases) (`tf.nn.relu_layer`).

    Args:
      x: a 2-D Tensor [batch, in]; weights [in, out]; biases [out].
      name: the name scope (default "relu_layer"); the Relu takes this name.
    """
    with name_scope(name, "relu_layer", [x, weights, biases]) as name:
        mm, biases = _matmul_and_biases(x, weights, biases)
        return relu(bias_add(mm, biases), name=name)
