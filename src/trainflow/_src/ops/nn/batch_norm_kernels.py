"""NumPy kernels of FusedBatchNorm (V1/V2/V3) and FusedBatchNormGrad (V1/V2/V3).

Statistics are per channel: the last axis for NHWC/NDHWC, axis 1 for NCHW/NCDHW.
Arithmetic runs in float32 (TensorFlow's U type); y and x_backprop come back in
x's dtype. In training the reserve spaces hold the batch mean and the biased
batch variance, which is what the gradient kernel expects; the batch_variance
output is the unbiased (Bessel-corrected) one, as in TensorFlow.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.nn.activation_kernels import upcast


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def layout(ndim, data_format):
    """(channel axis, reduction axes) of an `ndim`-D tensor in `data_format`."""
    fmt = data_format.decode() if isinstance(data_format, bytes) else data_format
    channel = 1 if fmt.startswith("NC") else ndim - 1
    return channel, tuple(a for a in range(ndim) if a != channel)


def _per_channel(vec, ndim, channel):
    shape = [1] * ndim
    shape[channel] = -1
    return vec.reshape(shape)


def _check_input(x, scale, offset):
    if x.ndim not in (4, 5):
        raise _invalid(f"input must be 4 or 5-dimensional{_shape_str(x.shape)}")
    if scale.ndim != 1:
        raise _invalid(f"scale must be 1-dimensional{_shape_str(scale.shape)}")
    if offset.ndim != 1:
        raise _invalid(f"offset must be 1-dimensional{_shape_str(offset.shape)}")


def _check_channels(what, vec, channels, is_training):
    if vec.shape != (channels,):
        mode = "true" if is_training else "false"
        raise _invalid(f"When is_training={mode}, {what} must have the same number of "
                       f"elements as the channels of x, got {vec.size} and {channels}")


def fused_batch_norm(x, scale, offset, mean, variance, *, epsilon, data_format, is_training,
                     exponential_avg_factor=1.0):
    """The FusedBatchNorm forward pass.

    Returns:
      (y, batch_mean, batch_variance, reserve_space_1, reserve_space_2).

    Raises:
      InvalidArgumentError: for bad ranks or per-channel vectors of the wrong size.
    """
    _check_input(x, scale, offset)
    channel, axes = layout(x.ndim, data_format)
    channels = x.shape[channel]
    _check_channels("scale", scale, channels, is_training)
    _check_channels("offset", offset, channels, is_training)
    u = np.dtype(np.float32) if scale.dtype.name in ("float16", "bfloat16") else scale.dtype
    xw = upcast(x)
    scale_w, offset_w = scale.astype(u, copy=False), offset.astype(u, copy=False)
    running_update = is_training and exponential_avg_factor != 1.0
    if not is_training or running_update:
        _check_channels("mean", mean, channels, is_training)
        _check_channels("variance", variance, channels, is_training)
    eps = u.type(epsilon)
    if is_training:
        count = x.size // channels if channels else 0
        batch_mean = np.mean(xw, axis=axes, dtype=u)
        centered = xw - _per_channel(batch_mean, x.ndim, channel)
        batch_var = np.mean(np.square(centered), axis=axes, dtype=u)
        factor = scale_w / np.sqrt(batch_var + eps)
        y = centered * _per_channel(factor, x.ndim, channel) + \
            _per_channel(offset_w, x.ndim, channel)
        adjust = u.type(count / (count - 1) if count > 1 else 1)
        unbiased = batch_var * adjust
        if running_update:
            f = u.type(exponential_avg_factor)
            new_mean = (u.type(1) - f) * mean.astype(u) + f * batch_mean
            new_var = (u.type(1) - f) * variance.astype(u) + f * unbiased
        else:
            new_mean, new_var = batch_mean, unbiased
        outputs = (new_mean, new_var, batch_mean, batch_var)
    else:
        mean_w, var_w = mean.astype(u, copy=False), variance.astype(u, copy=False)
        factor = scale_w / np.sqrt(var_w + eps)
        y = (xw - _per_channel(mean_w, x.ndim, channel)) * _per_channel(factor, x.ndim, channel) \
            + _per_channel(offset_w, x.ndim, channel)
        outputs = (mean_w.copy(), var_w.copy(), mean_w.copy(), var_w.copy())
    return (y.astype(x.dtype, copy=False),) + tuple(np.asarray(o, dtype=u) for o in outputs)


def fused_batch_norm_v3(x, scale, offset, mean, variance, *, epsilon, data_format,
                        is_training, exponential_avg_factor):
    """FusedBatchNormV3: the V2 outputs plus an (unused) scalar reserve_space_3."""
    outs = fused_batch_norm(x, scale, offset, mean, variance, epsilon=epsilon,
                            data_format=data_format, is_training=is_training,
                            exponential_avg_factor=exponential_avg_factor)
    return outs + (np.zeros((), dtype=outs[1].dtype),)


def fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2, *, epsilon,
                          data_format, is_training):
    """The FusedBatchNormGrad kernel.

    In training, reserve_space_1/2 are the batch mean and biased variance the forward
    pass saved; in inference they are the population mean and variance it used.

    Returns:
      (x_backprop, scale_backprop, offset_backprop, empty, empty).

    Raises:
      InvalidArgumentError: if y_backprop and x differ in shape or ranks are wrong.
    """
    if y_backprop.shape != x.shape:
        raise _invalid("x and y_backprop must have same shape, but x has shape "
                       f"{_shape_str(x.shape)} and y_backprop has shape "
                       f"{_shape_str(y_backprop.shape)}")
    if x.ndim not in (4, 5):
        raise _invalid(f"input must be 4 or 5-dimensional{_shape_str(x.shape)}")
    channel, axes = layout(x.ndim, data_format)
    u = np.dtype(np.float32) if reserve_space_1.dtype.name in ("float16", "bfloat16") \
        else reserve_space_1.dtype
    dy, xw = upcast(y_backprop).astype(u, copy=False), upcast(x).astype(u, copy=False)
    mean = _per_channel(reserve_space_1.astype(u, copy=False), x.ndim, channel)
    inv_std = np.asarray(1, dtype=u) / np.sqrt(
        reserve_space_2.astype(u, copy=False) + u.type(epsilon))
    scale_w = scale.astype(u, copy=False)
    centered = xw - mean
    offset_bp = np.sum(dy, axis=axes, dtype=u)
    scale_bp = np.sum(dy * centered, axis=axes, dtype=u) * inv_std
    inv = _per_channel(inv_std, x.ndim, channel)
    coef = _per_channel(scale_w * inv_std, x.ndim, channel)
    if is_training:
        dy_mean = np.mean(dy, axis=axes, dtype=u, keepdims=True)
        dyc_mean = np.mean(dy * centered, axis=axes, dtype=u, keepdims=True)
        x_bp = coef * (dy - dy_mean - centered * dyc_mean * np.square(inv))
    else:
        x_bp = dy * coef
    empty = np.zeros((0,), dtype=u)
    return x_bp.astype(x.dtype, copy=False), scale_bp, offset_bp, empty, empty.copy()


def fused_batch_norm_grad_v3(y_backprop, x, scale, reserve_space_1, reserve_space_2,
                             reserve_space_3, *, epsilon, data_format, is_training):
    """FusedBatchNormGradV3: FusedBatchNormGrad with an unused reserve_space_3 input."""
    return fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2,
                                 epsilon=epsilon, data_format=data_format,
                                 is_training=is_training)
