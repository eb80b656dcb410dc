"""Norms and normalisation of `tf.nn`: the L2Loss op, l2_normalize, moments,
weighted_moments, sufficient_statistics, normalize_moments and batch_normalization,
composed from math ops with TensorFlow's names.
"""
from trainflow._src.ops.array import cast, create, gather, shape as shape_lib
from trainflow._src.ops.math import arith, reductions
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.shape_inference import scalar_shapes
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.nn import xent_kernels

__all__ = ["batch_norm_with_global_normalization", "batch_normalization", "l2_loss",
           "l2_normalize", "moments", "normalize_moments", "sufficient_statistics",
           "weighted_moments"]

register_op("L2Loss", inputs=["t: T"], outputs=["output: T"],
            attrs=["T: {half, bfloat16, float, double}"], shape_fn=scalar_shapes,
            kernel=xent_kernels.l2_loss)


@RegisterGradient("L2Loss")
def _l2_loss_grad(op, grad):
    return arith.multiply(op.inputs[0], grad)


def _pick(new_name, new_value, old_name, old_value):
    if new_value is not None and old_value is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'.")
    return new_value if new_value is not None else old_value


def l2_loss(t, name=None):
    """sum(t ** 2) / 2, a scalar (`tf.nn.l2_loss`, op `L2Loss`).

    Args:
      t: a floating Tensor.
      name: the op name (default "L2Loss").
    """
    return apply_op("L2Loss", t=t, name=name).outputs[0]


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon)) (`tf.nn.l2_normalize`).

    Args:
      x: a floating Tensor.
      axis: the axis or axes to normalise over (all when None); `dim` is TF1's spelling.
      epsilon: the lower bound of the squared norm (avoids dividing by zero).
      name: the op name (default "l2_normalize").
    """
    axis = _pick("axis", axis, "dim", dim)
    with name_scope(name, "l2_normalize", [x]) as name:
        x = convert_to_tensor(x, name="x")
        square_sum = reductions.reduce_sum(arith.square(x), axis, keepdims=True)
        eps = convert_to_tensor(epsilon, dtype=x.dtype.base_dtype)
        inv_norm = arith.rsqrt(arith.maximum(square_sum, eps))
        return arith.multiply(x, inv_norm, name=name)


def _keep_dims_arg(keep_dims, keepdims):
    value = _pick("keepdims", keepdims, "keep_dims", keep_dims)
    return bool(value) if value is not None else False


def _finish_moments(mean, variance, axes, keep, half):
    """(mean, variance) with the reduced `axes` squeezed unless `keep`, cast back to
    float16 when the input was `half`."""
    if not keep:
        mean = shape_lib.squeeze(mean, axes)
        variance = shape_lib.squeeze(variance, axes)
    if half:
        return cast.cast(mean, dtypes.float16), cast.cast(variance, dtypes.float16)
    return mean, variance


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """The mean and (biased) variance of `x` over `axes` (`tf.nn.moments`).

    float16 inputs are reduced in float32 and the results cast back.

    Args:
      x: a Tensor.
      axes: the axes to reduce over (a list of ints).
      shift: unused (kept for TF1 compatibility, as in TensorFlow 2).
      name: the name scope (default "moments").
      keep_dims: keep the reduced axes with size 1; `keepdims` is the newer spelling.

    Returns:
      (mean, variance).
    """
    keep = _keep_dims_arg(keep_dims, keepdims)
    with name_scope(name, "moments", [x, axes]):
        x = convert_to_tensor(x, name="x")
        half = x.dtype.base_dtype == dtypes.float16
        y = cast.cast(x, dtypes.float32) if half else x
        mean = reductions.reduce_mean(y, axes, keepdims=True, name="mean")
        # The variance uses a stopped copy of the mean: its gradient through the mean is zero.
        variance = reductions.reduce_mean(
            arith.squared_difference(y, cast.stop_gradient(mean)), axes,
            keepdims=True, name="variance")
        return _finish_moments(mean, variance, axes, keep, half)


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """The frequency-weighted mean and variance of `x` over `axes`
    (`tf.nn.weighted_moments`).

    Args:
      x: a Tensor.
      axes: the axes to reduce over.
      frequency_weights: weights broadcastable to `x`.
      name: the name scope (default "weighted_moments").
      keep_dims: keep the reduced axes; `keepdims` is the newer spelling.

    Returns:
      (weighted mean, weighted variance); 0 where the weights sum to 0.
    """
    keep = _keep_dims_arg(keep_dims, keepdims)
    with name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(frequency_weights, name="frequency_weights")
        half = x.dtype.base_dtype == dtypes.float16
        if half:
            x = cast.cast(x, dtypes.float32)
        if weights.dtype.base_dtype != x.dtype.base_dtype:
            weights = cast.cast(weights, x.dtype.base_dtype)
        weighted_sum = reductions.reduce_sum(arith.multiply(weights, x, name="mul"), axes,
                                           name="weighted_input_sum", keepdims=True)
        # Adding zeros broadcasts the weights to one weight per element of x.
        per_element = arith.add(weights, create.zeros_like(x), name="add")
        total_weight = reductions.reduce_sum(per_element, axes, name="sum_of_weights",
                                           keepdims=True)
        mean = arith.div_no_nan(weighted_sum, total_weight)
        dist = reductions.reduce_sum(
            arith.multiply(weights, arith.squared_difference(x, mean), name="mul"), axes,
            name="weighted_distsq", keepdims=True)
        variance = arith.div_no_nan(dist, total_weight)
        return _finish_moments(mean, variance, axes, keep, half)


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """The count, sum, sum of squares (and shift) of `x` over `axes`
    (`tf.nn.sufficient_statistics`).

    Returns:
      (count, mean_ss, var_ss, shift): the element count as a scalar of x's dtype, the
      (shifted) sum, the (shifted) sum of squares, and the shift (None if not given).
    """
    keep = _keep_dims_arg(keep_dims, keepdims)
    axes = list(set(axes))
    with name_scope(name, "sufficient_statistics", [x, shift]):
        x = convert_to_tensor(x, name="x")
        dims = x.shape.as_list() if x.shape.ndims is not None else None
        if dims is not None and all(dims[d] is not None for d in axes):
            n = 1
            for d in axes:
                n *= dims[d]
            counts = convert_to_tensor(n, dtype=x.dtype.base_dtype, name="count")
        else:
            shape = shape_lib.shape(x)
            picked = gather.gather(cast.cast(shape, x.dtype.base_dtype), axes)
            counts = reductions.reduce_prod(picked, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, name="shift")
            centered = arith.subtract(x, shift)
            mean_ss = reductions.reduce_sum(centered, axes, keepdims=keep, name="mean_ss")
            var_ss = reductions.reduce_sum(arith.squared_difference(x, shift), axes,
                                         keepdims=keep, name="var_ss")
        else:
            mean_ss = reductions.reduce_sum(x, axes, keepdims=keep, name="mean_ss")
            var_ss = reductions.reduce_sum(arith.square(x), axes, keepdims=keep,
                                         name="var_ss")
        return counts, mean_ss, var_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """The mean and variance from sufficient statistics (`tf.nn.normalize_moments`).

    Returns:
      (mean, variance).
    """
    with name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = arith.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = arith.multiply(mean_ss, divisor, name="shifted_mean")
            mean = arith.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = arith.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = arith.subtract(
            arith.multiply(variance_ss, divisor),
            arith.square(shifted_mean), name="variance")
        return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset
    (`tf.nn.batch_normalization`).

    Args:
      x: the input Tensor.
      mean, variance: statistics broadcastable to `x`.
      offset, scale: optional (None) shift and scale broadcastable to `x`.
      variance_epsilon: a small float added to the variance.
      name: the name scope (default "batchnorm").
    """
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        x = convert_to_tensor(x, name="x")
        variance = convert_to_tensor(variance, name="variance")
        eps = convert_to_tensor(variance_epsilon, dtype=variance.dtype.base_dtype)
        inv = arith.rsqrt(arith.add(variance, eps, name="add"))
        if scale is not None:
            inv = arith.multiply(inv, scale, name="mul")
        xdt = x.dtype.base_dtype
        scaled = arith.multiply(x, cast.cast(inv, xdt), name="mul")
        shifted_mean = arith.multiply(mean, inv, name="mul")
        if offset is not None:
            shift = arith.subtract(offset, shifted_mean, name="sub")
        else:
            shift = arith.negative(shifted_mean)
        return arith.add(scaled, cast.cast(shift, xdt), name="add")


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None,
                                         variance_epsilon=None, scale_after_normalization=None,
                                         name=None, input=None, mean=None,  # noqa: A002
                                         variance=None):
    """The deprecated TF1 batch norm: `batch_normalization(t, m, v, beta, gamma if
    scale_after_normalization else None, variance_epsilon)`
    (`tf.nn.batch_norm_with_global_normalization`). `input`, `mean` and `variance` are
    the newer spellings of `t`, `m` and `v`.
    """
    t = _pick("input", input, "t", t)
    m = _pick("mean", mean, "m", m)
    v = _pick("variance", variance, "v", v)
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None,
                               variance_epsilon, name or "batchnorm")
