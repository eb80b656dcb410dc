"""FusedBatchNorm, FusedBatchNormV2/V3 and their Grad ops, their gradients (and those of
the Grad ops), and `tf.nn.fused_batch_norm` (which builds FusedBatchNormV3, as TensorFlow
2.x does).
"""
from trainflow._src.framework import constant_op
from trainflow._src.gradients.gradients_impl import gradients
from trainflow._src.ops.array import shape
from trainflow._src.ops.math import arith, reductions
from trainflow._src.ops.array import cast
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.nn import batch_norm_kernels as K
from trainflow._src.ops.nn.shape_util import decoded, merge_dims
from trainflow._src.ops.array.shape_util import dims_of, merge_dim, with_rank

__all__ = ["fused_batch_norm"]

_FORMATS_4D = "data_format: {'NHWC', 'NCHW'} = 'NHWC'"
_FORMATS_V3 = "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'"
_COMMON = ["epsilon: float = 0.0001", "exponential_avg_factor: float = 1",
           "is_training: bool = true"]
_GRAD_COMMON = ["epsilon: float = 0.0001", "is_training: bool = true"]


def _rank_of(op):
    return 5 if decoded(op._attrs.get("data_format", b"NHWC")) in ("NDHWC", "NCDHW") else 4


def _forward_shape(op):
    rank = _rank_of(op)
    x = with_rank(dims_of(op.inputs[0]), rank)
    channel, _ = K.layout(rank, op._attrs.get("data_format", b"NHWC"))
    c = x[channel]
    uses_stats = not op._attrs.get("is_training", True) or \
        op._attrs.get("exponential_avg_factor", 1.0) != 1.0
    for t in op.inputs[1:5 if uses_stats else 3]:
        c = merge_dim(c, with_rank(dims_of(t), 1)[0])
    y = list(x)
    y[channel] = c
    vec = TensorShape([c])
    extra = [TensorShape(None)] if len(op.outputs) == 6 else []
    return [TensorShape(y), vec, vec, vec, vec] + extra


def _grad_shape(op):
    rank = _rank_of(op)
    dy = merge_dims(with_rank(dims_of(op.inputs[0]), rank), with_rank(dims_of(op.inputs[1]), rank))
    channel, _ = K.layout(rank, op._attrs.get("data_format", b"NHWC"))
    c = dy[channel]
    for t in op.inputs[2:5]:
        c = merge_dim(c, with_rank(dims_of(t), 1)[0])
    dx = list(dy)
    dx[channel] = c
    return [TensorShape(dx), TensorShape([c]), TensorShape([c]), TensorShape([0]),
            TensorShape([0])]


_FWD_OUT = ["y: T", "batch_mean: U", "batch_variance: U", "reserve_space_1: U",
            "reserve_space_2: U"]
_GRAD_OUT = ["x_backprop: T", "scale_backprop: U", "offset_backprop: U", "reserve_space_3: U",
             "reserve_space_4: U"]

register_op("FusedBatchNorm",
            inputs=["x: T", "scale: T", "offset: T", "mean: T", "variance: T"],
            outputs=[o.replace(": U", ": T") for o in _FWD_OUT],
            attrs=["T: {float}", *_COMMON, _FORMATS_4D], shape_fn=_forward_shape,
            kernel=K.fused_batch_norm)
register_op("FusedBatchNormV2",
            inputs=["x: T", "scale: U", "offset: U", "mean: U", "variance: U"],
            outputs=_FWD_OUT, attrs=["T: {half, bfloat16, float}", "U: {float}", *_COMMON,
                                     _FORMATS_4D],
            shape_fn=_forward_shape, kernel=K.fused_batch_norm)
register_op("FusedBatchNormV3",
            inputs=["x: T", "scale: U", "offset: U", "mean: U", "variance: U"],
            outputs=_FWD_OUT + ["reserve_space_3: U"],
            attrs=["T: {half, bfloat16, float}", "U: {bfloat16, float}", *_COMMON, _FORMATS_V3],
            shape_fn=_forward_shape, kernel=K.fused_batch_norm_v3)
register_op("FusedBatchNormGrad",
            inputs=["y_backprop: T", "x: T", "scale: T", "reserve_space_1: T",
                    "reserve_space_2: T"],
            outputs=[o.replace(": U", ": T") for o in _GRAD_OUT],
            attrs=["T: {float}", *_GRAD_COMMON, _FORMATS_4D], shape_fn=_grad_shape,
            kernel=K.fused_batch_norm_grad)
register_op("FusedBatchNormGradV2",
            inputs=["y_backprop: T", "x: T", "scale: float", "reserve_space_1: U",
                    "reserve_space_2: U"],
            outputs=_GRAD_OUT, attrs=["T: {half, bfloat16, float}", "U: {float}",
                                      *_GRAD_COMMON, _FORMATS_4D],
            shape_fn=_grad_shape, kernel=K.fused_batch_norm_grad)
register_op("FusedBatchNormGradV3",
            inputs=["y_backprop: T", "x: T", "scale: float", "reserve_space_1: U",
                    "reserve_space_2: U", "reserve_space_3: U"],
            outputs=[o.replace("reserve_space_4", "reserve_space_5")
                     .replace("reserve_space_3", "reserve_space_4") for o in _GRAD_OUT],
            attrs=["T: {half, bfloat16, float}", "U: {float}", *_GRAD_COMMON, _FORMATS_V3],
            shape_fn=_grad_shape, kernel=K.fused_batch_norm_grad_v3)


def _fused_batch_norm_grad(op, grad_y, grad_op_type):
    """The gradient of a FusedBatchNorm op with respect to x, scale and offset.

    As in TensorFlow, only the gradient reaching y is propagated; gradients reaching
    the batch statistics outputs are ignored.
    """
    attrs = {"epsilon": op._attrs["epsilon"], "data_format": op._attrs["data_format"],
             "is_training": op._attrs["is_training"]}
    x, scale = op.inputs[0], op.inputs[1]
    if op._attrs["is_training"]:
        stats = {"reserve_space_1": op.outputs[3], "reserve_space_2": op.outputs[4]}
    else:
        stats = {"reserve_space_1": op.inputs[3], "reserve_space_2": op.inputs[4]}
    if grad_op_type == "FusedBatchNormGradV3":
        stats["reserve_space_3"] = op.outputs[5]
    grad_op = apply_op(grad_op_type, y_backprop=grad_y, x=x, scale=scale, **stats, **attrs)
    dx, dscale, doffset = grad_op.outputs[:3]
    return dx, dscale, doffset, None, None


@RegisterGradient("FusedBatchNorm")
def _fused_batch_norm_v1_grad(op, *grads):
    return _fused_batch_norm_grad(op, grads[0], "FusedBatchNormGrad")


@RegisterGradient("FusedBatchNormV2")
def _fused_batch_norm_v2_grad(op, *grads):
    return _fused_batch_norm_grad(op, grads[0], "FusedBatchNormGradV2")


@RegisterGradient("FusedBatchNormV3")
def _fused_batch_norm_v3_grad(op, *grads):
    return _fused_batch_norm_grad(op, grads[0], "FusedBatchNormGradV3")


def _batch_norm_backprop(grad_y, x, scale, pop_mean, pop_var, epsilon, data_format,
                         is_training):
    """The FusedBatchNormGrad outputs (dx, dscale, doffset) as a graph of primitive ops,
    so that they can be differentiated once more (TensorFlow's second derivative)."""
    x_dtype = x.dtype.base_dtype
    if x_dtype in (dtypes.float16, dtypes.bfloat16):  # the arithmetic runs in float32
        x, grad_y = cast.cast(x, dtypes.float32), cast.cast(grad_y, dtypes.float32)
    channels_first = data_format in ("NCHW", "NCDHW")
    rank = 5 if data_format in ("NDHWC", "NCDHW") else 4
    axes = [0] + list(range(2, rank)) if channels_first else list(range(rank - 1))
    if channels_first:  # per-channel vectors broadcast as [1, C, 1, 1(, 1)]
        bshape = [1, -1] + [1] * (rank - 2)
        scale = shape.reshape(scale, bshape)
        pop_mean = shape.reshape(pop_mean, bshape)
        pop_var = shape.reshape(pop_var, bshape)
    grad_offset = reductions.reduce_sum(grad_y, axis=axes)
    if is_training:
        mean = reductions.reduce_mean(x, axes, keepdims=True)
        centered = x - mean
        var = reductions.reduce_mean(
            arith.squared_difference(x, cast.stop_gradient(mean)), axes, keepdims=True)
        inv_std = arith.rsqrt(var + epsilon)
        dy_centered = grad_y - reductions.reduce_mean(grad_y, axes, keepdims=True)
        proj = reductions.reduce_mean(grad_y * centered, axes, keepdims=True)
        grad_x = scale * inv_std * (dy_centered - proj * centered * arith.reciprocal(
            var + epsilon))
        grad_scale = reductions.reduce_sum(grad_y * centered * inv_std, axis=axes)
    else:
        inv_std = arith.rsqrt(pop_var + epsilon)
        grad_x = grad_y * scale * inv_std
        grad_scale = reductions.reduce_sum(grad_y * (x - pop_mean) * inv_std, axis=axes)
    return cast.cast(grad_x, x_dtype), grad_scale, grad_offset


def _fused_batch_norm_grad_grad(op, *grads):
    """Gradients of a FusedBatchNormGrad op's inputs (y_backprop, x, scale; none for the
    statistics): differentiates `_batch_norm_backprop` with the incoming gradients."""
    grad_y, x, scale, pop_mean, pop_var = op.inputs[:5]
    outs = _batch_norm_backprop(grad_y, x, scale, pop_mean, pop_var, op._attrs["epsilon"],
                                decoded(op._attrs["data_format"]), op._attrs["is_training"])
    pairs = [(y, g) for y, g in zip(outs, grads[:3]) if g is not None]
    if not pairs:
        return [None] * len(op.inputs)
    ys, grad_ys = zip(*pairs)
    dgrad_y, dx, dscale = gradients(list(ys), [grad_y, x, scale], grad_ys=list(grad_ys))
    return [dgrad_y, dx, dscale] + [None] * (len(op.inputs) - 3)


for _op_type in ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"):
    RegisterGradient(_op_type)(_fused_batch_norm_grad_grad)


_MIN_EPSILON = 1.001e-5  # TensorFlow raises smaller epsilons to this (a cuDNN limit).


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None,
                     exponential_avg_factor=1.0):
    """Batch normalization of a 4-D (or 5-D) tensor in one op (`tf.nn.fused_batch_norm`).

    Args:
      x: input [N, H, W, C] (NHWC) or [N, C, H, W] (NCHW); half/bfloat16/float32.
      scale, offset: float32 vectors [C].
      mean, variance: float32 vectors [C]: the population statistics for inference,
        or the running statistics when `exponential_avg_factor` != 1.
      epsilon: added to the variance (at least 1.001e-5, as TensorFlow enforces).
      data_format: "NHWC", "NCHW", "NDHWC" or "NCDHW".
      is_training: normalise with the batch statistics (True) or `mean`/`variance`.
      name: the op name (default "FusedBatchNormV3").
      exponential_avg_factor: weight of the batch statistics in the running ones.

    Returns:
      (y, batch_mean, batch_variance); in training batch_variance is unbiased.

    Raises:
      ValueError: if mean/variance are needed but missing.
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError("Both `mean` and `variance` must be a 1D tensor when `is_training` is "
                         "False or `exponential_avg_factor` != 1.0. Received: `mean` "
                         f"{mean!r} and `variance` {variance!r}")
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    offset = convert_to_tensor(offset, name="offset")
    if mean is None:
        mean = constant_op.constant([], dtype=dtypes.float32)
    if variance is None:
        variance = constant_op.constant([], dtype=dtypes.float32)
    epsilon = max(float(epsilon), _MIN_EPSILON)
    op = apply_op("FusedBatchNormV3", x=x, scale=scale, offset=offset, mean=mean,
                  variance=variance, epsilon=epsilon,
                  exponential_avg_factor=float(exponential_avg_factor),
                  data_format=data_format, is_training=bool(is_training), name=name)
    return op.outputs[0], op.outputs[1], op.outputs[2]
