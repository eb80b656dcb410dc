"""NumPy kernels of the activation, softmax and bias ops of `tf.nn`.

Every kernel returns arrays of its input's dtype. half and bfloat16 inputs are
computed in float32 and rounded back once, as TensorFlow's CPU kernels do for the
transcendental functions; integer inputs (Relu, Relu6, BiasAdd) stay integers.
"""
import numpy as np

from trainflow._src.framework import errors

# SELU's constants (Klambauer et al., 2017), as TensorFlow's kernel spells them.
SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717

_LOW_PRECISION = ("float16", "bfloat16")


def compute_dtype(dtype):
    """float32 for half/bfloat16 (computed wider), else `dtype` itself."""
    return np.dtype(np.float32) if np.dtype(dtype).name in _LOW_PRECISION else np.dtype(dtype)


def upcast(x):
    """`x` as an array of its compute dtype (a float32 copy for half/bfloat16)."""
    x = np.asarray(x)
    return x.astype(np.float32) if x.dtype.name in _LOW_PRECISION else x


def _const(value, dtype):
    return np.asarray(value, dtype=dtype)[()]


def _zero(dtype):
    return np.zeros((), dtype=dtype)[()]


def stable_sigmoid(x):
    """1 / (1 + exp(-x)) without overflow for large |x| (x of a float dtype)."""
    e = np.exp(-np.abs(x))
    one = _const(1, x.dtype)
    return np.where(x >= 0, one / (one + e), e / (one + e))


# -- Relu family ---------------------------------------------------------------------------
def relu(features):
    """max(features, 0)."""
    return np.maximum(features, _zero(features.dtype))


def relu_grad(gradients, features):
    """gradients where features > 0, else 0."""
    return np.where(features > 0, gradients, _zero(gradients.dtype))


def relu6(features):
    """min(max(features, 0), 6)."""
    return np.minimum(np.maximum(features, _zero(features.dtype)), _const(6, features.dtype))


def relu6_grad(gradients, features):
    """gradients where 0 < features < 6, else 0."""
    inside = (features > 0) & (features < 6)
    return np.where(inside, gradients, _zero(gradients.dtype))


def elu(features):
    """features if > 0, else exp(features) - 1."""
    x = upcast(features)
    out = np.where(x < 0, np.expm1(np.minimum(x, 0)), x)
    return out.astype(features.dtype, copy=False)


def elu_grad(gradients, outputs):
    """gradients * (outputs + 1) where outputs < 0, else gradients."""
    g, y = upcast(gradients), upcast(outputs)
    out = np.where(y < 0, g * (y + _const(1, y.dtype)), g)
    return out.astype(gradients.dtype, copy=False)


def selu(features):
    """scale * features if > 0, else scale * alpha * (exp(features) - 1)."""
    x = upcast(features)
    scale = _const(SELU_SCALE, x.dtype)
    neg = _const(SELU_SCALE * SELU_ALPHA, x.dtype) * np.expm1(np.minimum(x, 0))
    return np.where(x < 0, neg, scale * x).astype(features.dtype, copy=False)


def selu_grad(gradients, outputs):
    """gradients * (outputs + scale * alpha) where outputs < 0, else gradients * scale."""
    g, y = upcast(gradients), upcast(outputs)
    out = np.where(y < 0, g * (y + _const(SELU_SCALE * SELU_ALPHA, y.dtype)),
                   g * _const(SELU_SCALE, y.dtype))
    return out.astype(gradients.dtype, copy=False)


def leaky_relu(features, *, alpha):
    """features if > 0, else alpha * features."""
    return np.where(features > 0, features, features * _const(alpha, features.dtype))


def leaky_relu_grad(gradients, features, *, alpha):
    """gradients where features > 0, else alpha * gradients."""
    return np.where(features > 0, gradients, gradients * _const(alpha, gradients.dtype))


def softplus(features):
    """log(1 + exp(features)), computed without overflow."""
    x = upcast(features)
    return np.logaddexp(_zero(x.dtype), x).astype(features.dtype, copy=False)


def softplus_grad(gradients, features):
    """gradients * sigmoid(features)."""
    g, x = upcast(gradients), upcast(features)
    return (g * stable_sigmoid(x)).astype(gradients.dtype, copy=False)


def softsign(features):
    """features / (1 + |features|)."""
    x = upcast(features)
    return (x / (_const(1, x.dtype) + np.abs(x))).astype(features.dtype, copy=False)


def softsign_grad(gradients, features):
    """gradients / (1 + |features|)**2."""
    g, x = upcast(gradients), upcast(features)
    return (g / np.square(_const(1, x.dtype) + np.abs(x))).astype(gradients.dtype, copy=False)


# -- Softmax -------------------------------------------------------------------------------
def softmax(logits):
    """exp(logits) / sum(exp(logits)) over the last axis (max subtracted first)."""
    x = upcast(logits)
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    e /= np.sum(e, axis=-1, keepdims=True)
    return e.astype(logits.dtype, copy=False)


def log_softmax(logits):
    """logits - log(sum(exp(logits))) over the last axis, computed stably."""
    x = upcast(logits)
    shifted = x - np.max(x, axis=-1, keepdims=True)
    out = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    return out.astype(logits.dtype, copy=False)


# -- BiasAdd -------------------------------------------------------------------------------
def _format(data_format):
    return data_format.decode() if isinstance(data_format, bytes) else data_format


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def channel_axis(rank, data_format):
    """The axis BiasAdd adds along: the last one, or 1 for NCHW."""
    return 1 if _format(data_format) == "NCHW" else rank - 1


def bias_add(value, bias, *, data_format):
    """value + bias, with bias broadcast along the channel axis."""
    if value.ndim < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input tensor must be at least 2D: {_shape_str(value.shape)}")
    if bias.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"Biases must be 1D: {_shape_str(bias.shape)}")
    axis = channel_axis(value.ndim, data_format)
    if value.shape[axis] != bias.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, "Must provide as many biases as the last dimension of the input "
                        f"tensor: {_shape_str(bias.shape)} vs. {_shape_str(value.shape)}")
    shape = [1] * value.ndim
    shape[axis] = bias.shape[0]
    return np.add(value, bias.reshape(shape), dtype=value.dtype)


def bias_add_v1(value, bias):
    """BiasAddV1: value + bias along the last axis."""
    return bias_add(value, bias, data_format="NHWC")


def bias_add_grad(out_backprop, *, data_format):
    """The sum of out_backprop over every axis except the channel axis."""
    if out_backprop.ndim < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Input tensor must be at least 2D: {_shape_str(out_backprop.shape)}")
    axis = channel_axis(out_backprop.ndim, data_format)
    wide = upcast(out_backprop)
    if wide.dtype.char in "fd" and wide.size:
        # A product with a vector of ones: BLAS sums in blocks, several times faster than
        # NumPy's row-by-row column sums and closer to the exact sum.
        channels = wide.shape[axis]
        if axis == wide.ndim - 1:
            rows = wide.reshape(-1, channels)
            total = np.ones(rows.shape[0], wide.dtype) @ rows
        else:
            planes = wide.reshape(wide.shape[0], channels, -1)
            total = np.sum(planes @ np.ones(planes.shape[2], wide.dtype), axis=0)
    else:
        axes = tuple(a for a in range(wide.ndim) if a != axis)
        total = np.sum(wide, axis=axes)
    return np.asarray(total, dtype=out_backprop.dtype)
