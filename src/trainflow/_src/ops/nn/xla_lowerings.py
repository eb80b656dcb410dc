"""XLA lowerings of the nn ops (activations and their gradients, BiasAdd, softmax and
the cross-entropy losses, L2Loss, FusedBatchNorm and its Grad ops, and the window ops of
`xla_window` and `xla_conv_cpu`), registered with the registry's "xla" backend; imported
only when XLA is on.

The backprop ops are the vector-Jacobian products of the forward lowerings.
"""
import jax
import jax.numpy as jnp
import numpy as np

from trainflow._src.framework.registry import register_kernel
from trainflow._src.ops.nn import xla_conv_cpu, xla_window

XLA = "xla"


def _channel_axis(data_format, ndim):
    return 1 if data_format.startswith("NC") else ndim - 1


def _bias_add(value, bias, *, data_format="NHWC"):
    axis = _channel_axis(data_format, jnp.ndim(value))
    shape = [1] * jnp.ndim(value)
    shape[axis] = -1
    return value + jnp.reshape(bias, shape)


def _bias_add_grad(out_backprop, *, data_format="NHWC"):
    axis = _channel_axis(data_format, jnp.ndim(out_backprop))
    return jnp.sum(out_backprop, axis=tuple(i for i in range(jnp.ndim(out_backprop))
                                            if i != axis))


def _xent(features, labels):
    logp = jax.nn.log_softmax(features, axis=-1)
    loss = -jnp.sum(labels * logp, axis=-1)
    return loss, jnp.exp(logp) - labels


def _sparse_xent(features, labels, *, check):
    n = jnp.shape(features)[-1]
    check(jnp.any((labels < 0) | (labels >= n)), "Received a label value outside the "
                                                 "valid range")
    logp = jax.nn.log_softmax(features, axis=-1)
    hot = jax.nn.one_hot(labels, n, dtype=logp.dtype)
    return -jnp.sum(hot * logp, axis=-1), jnp.exp(logp) - hot


def _elu_grad(gradients, outputs):
    return jnp.where(outputs < 0, gradients * (outputs + 1), gradients)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _selu_grad(gradients, outputs):
    return jnp.where(outputs < 0, gradients * (outputs + _SELU_SCALE * _SELU_ALPHA),
                     gradients * _SELU_SCALE)


# -- fused batch norm ---------------------------------------------------------------------
def _bn_layout(x, scale, data_format):
    """(per-channel reshape, reduction axes, compute dtype, x in that dtype)."""
    if jnp.ndim(x) not in (4, 5) or jnp.ndim(scale) != 1:
        raise ValueError("FusedBatchNorm: bad ranks (the NumPy kernel reports them)")
    channel = _channel_axis(data_format, jnp.ndim(x))
    shape = [1] * jnp.ndim(x)
    shape[channel] = -1
    axes = tuple(a for a in range(jnp.ndim(x)) if a != channel)
    u = jnp.float32 if jnp.result_type(scale).name in ("float16", "bfloat16") else \
        jnp.result_type(scale)
    xw = x.astype(jnp.float32) if jnp.result_type(x).name in ("float16", "bfloat16") else x
    return (lambda v: jnp.reshape(v, shape)), axes, u, xw


def _fused_batch_norm(x, scale, offset, mean, variance, *, epsilon, data_format, is_training,
                      exponential_avg_factor=1.0):
    """FusedBatchNorm/V2: the NumPy kernel's arithmetic (ops/nn/batch_norm_kernels.py)."""
    per_channel, axes, u, xw = _bn_layout(x, scale, data_format)
    channels = jnp.shape(x)[_channel_axis(data_format, jnp.ndim(x))]
    for v in (scale, offset) + ((mean, variance) if not is_training or
                                exponential_avg_factor != 1.0 else ()):
        if jnp.shape(v) != (channels,):
            raise ValueError("FusedBatchNorm: a per-channel vector has the wrong size")
    scale, offset = scale.astype(u), offset.astype(u)
    eps = jnp.asarray(epsilon, u)
    if is_training:
        count = int(np.prod(jnp.shape(x))) // channels if channels else 0
        batch_mean = jnp.mean(xw, axis=axes, dtype=u)
        centered = xw - per_channel(batch_mean)
        batch_var = jnp.mean(jnp.square(centered), axis=axes, dtype=u)
        y = centered * per_channel(scale / jnp.sqrt(batch_var + eps)) + per_channel(offset)
        unbiased = batch_var * jnp.asarray(count / (count - 1) if count > 1 else 1, u)
        new_mean, new_var = batch_mean, unbiased
        if exponential_avg_factor != 1.0:
            f = jnp.asarray(exponential_avg_factor, u)
            new_mean = (1 - f) * mean.astype(u) + f * batch_mean
            new_var = (1 - f) * variance.astype(u) + f * unbiased
        outputs = (new_mean, new_var, batch_mean, batch_var)
    else:
        mean, variance = mean.astype(u), variance.astype(u)
        y = (xw - per_channel(mean)) * per_channel(scale / jnp.sqrt(variance + eps)) + \
            per_channel(offset)
        outputs = (mean, variance, mean, variance)
    return (y.astype(x.dtype),) + outputs


def _fused_batch_norm_v3(*args, **attrs):
    outs = _fused_batch_norm(*args, **attrs)
    return outs + (jnp.zeros((), outs[1].dtype),)


def _fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2, *,
                           epsilon, data_format, is_training):
    """FusedBatchNormGrad/V2: (x_backprop, scale_backprop, offset_backprop, empty, empty)."""
    if jnp.shape(y_backprop) != jnp.shape(x):
        raise ValueError("FusedBatchNormGrad: x and y_backprop differ in shape")
    per_channel, axes, _, xw = _bn_layout(x, scale, data_format)
    u = jnp.float32 if jnp.result_type(reserve_space_1).name in ("float16", "bfloat16") \
        else jnp.result_type(reserve_space_1)
    dy, xw = y_backprop.astype(u), xw.astype(u)
    inv_std = 1 / jnp.sqrt(reserve_space_2.astype(u) + jnp.asarray(epsilon, u))
    centered = xw - per_channel(reserve_space_1.astype(u))
    offset_bp = jnp.sum(dy, axis=axes, dtype=u)
    scale_bp = jnp.sum(dy * centered, axis=axes, dtype=u) * inv_std
    coef = per_channel(scale.astype(u) * inv_std)
    if is_training:
        dy_mean = jnp.mean(dy, axis=axes, dtype=u, keepdims=True)
        dyc_mean = jnp.mean(dy * centered, axis=axes, dtype=u, keepdims=True)
        x_bp = coef * (dy - dy_mean - centered * dyc_mean * jnp.square(per_channel(inv_std)))
    else:
        x_bp = dy * coef
    empty = jnp.zeros((0,), u)
    return x_bp.astype(x.dtype), scale_bp, offset_bp, empty, empty


def _fused_batch_norm_grad_v3(y_backprop, x, scale, reserve_space_1, reserve_space_2,
                              reserve_space_3, **attrs):
    return _fused_batch_norm_grad(y_backprop, x, scale, reserve_space_1, reserve_space_2,
                                  **attrs)


def register_all():
    """Registers the lowerings of this module (idempotent)."""
    table = {
        "Relu": jax.nn.relu, "Relu6": jax.nn.relu6, "Elu": jax.nn.elu,
        "Selu": jax.nn.selu, "Softplus": jax.nn.softplus, "Softsign": jax.nn.soft_sign,
        "ReluGrad": lambda gradients, features: jnp.where(features > 0, gradients, 0),
        "Relu6Grad": lambda gradients, features: jnp.where(
            (features > 0) & (features < 6), gradients, 0),
        "EluGrad": _elu_grad, "SeluGrad": _selu_grad,
        "SoftplusGrad": lambda gradients, features: gradients * jax.nn.sigmoid(features),
        "SoftsignGrad": lambda gradients, features: gradients / jnp.square(
            1 + jnp.abs(features)),
        "LeakyRelu": lambda features, *, alpha: jnp.where(features > 0, features,
                                                          features * alpha),
        "LeakyReluGrad": lambda gradients, features, *, alpha: jnp.where(
            features > 0, gradients, gradients * alpha),
        "BiasAdd": _bias_add, "BiasAddV1": lambda value, bias: _bias_add(value, bias),
        "BiasAddGrad": _bias_add_grad,
        "Softmax": lambda logits: jax.nn.softmax(logits, axis=-1),
        "LogSoftmax": lambda logits: jax.nn.log_softmax(logits, axis=-1),
        "SoftmaxCrossEntropyWithLogits": _xent,
        "SparseSoftmaxCrossEntropyWithLogits": _sparse_xent,
        "L2Loss": lambda t: jnp.sum(jnp.square(t)) / 2,
        "FusedBatchNorm": _fused_batch_norm, "FusedBatchNormV2": _fused_batch_norm,
        "FusedBatchNormV3": _fused_batch_norm_v3,
        "FusedBatchNormGrad": _fused_batch_norm_grad,
        "FusedBatchNormGradV2": _fused_batch_norm_grad,
        "FusedBatchNormGradV3": _fused_batch_norm_grad_v3,
    }
    table.update(xla_window.TABLE)
    table.update(xla_conv_cpu.TABLE)
    for name, fn in table.items():
        register_kernel(name, fn, backend=XLA)


register_all()
