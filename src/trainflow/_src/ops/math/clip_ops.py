"""Gradient clipping: the ClipByValue op (registration, kernel, gradient) and the
`tf.clip_by_value`, `clip_by_norm`, `clip_by_average_norm`, `global_norm`,
`clip_by_global_norm` functions, built from the ops TensorFlow uses and under its names.

IndexedSlices inputs stay sparse: the values are clipped, indices and dense_shape kept.
"""
import collections.abc
import numpy as np

from trainflow._src.ops.nn.norm import l2_loss
from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather
from trainflow._src.ops.array import identity
from trainflow._src.ops.array import join
from trainflow._src.ops.array import shape
from trainflow._src.ops.array.shape_util import fmt_dims, invalid_argument
from trainflow._src.ops.array import cast
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions
from trainflow._src.ops.math.grad_util import broadcast_gradient_args

__all__ = ["clip_by_average_norm", "clip_by_global_norm", "clip_by_norm", "clip_by_value",
           "global_norm"]


def _clip_kernel(t, clip_value_min, clip_value_max):
    for bound in (clip_value_min, clip_value_max):
        if np.ndim(bound) != 0 and np.shape(bound) != np.shape(t):
            raise invalid_argument(
                "clip_value_min and clip_value_max must be either scalars or have the same "
                f"shape as the input: t {fmt_dims(np.shape(t))}, clip_value_min "
                f"{fmt_dims(np.shape(clip_value_min))}, clip_value_max "
                f"{fmt_dims(np.shape(clip_value_max))}")
    return np.maximum(np.minimum(t, clip_value_max), clip_value_min).astype(t.dtype, copy=False)


register_op("ClipByValue", inputs=["t: T", "clip_value_min: T", "clip_value_max: T"],
            outputs=["output: T"],
            attrs=["T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
                   "quint8, qint32, bfloat16, uint16, complex128, half, uint32, uint64}"],
            shape_fn=lambda op: [op.inputs[0].shape], kernel=_clip_kernel)


@RegisterGradient("ClipByValue")
def _clip_by_value_grad(op, grad):
    """The gradient flows to t inside the bounds and to the bound that clipped outside."""
    x, y, z = op.inputs
    sx, sy, sz = shape.shape(x), shape.shape(y), shape.shape(z)
    zeros = create.zeros(shape.shape(grad), grad.dtype)
    below = arith.less(x, y)
    above = arith.greater(x, z)
    _, ry = broadcast_gradient_args(sx, sy)
    _, rz = broadcast_gradient_args(sx, sz)
    xgrad = gather.where(arith.logical_or(below, above), zeros, grad)
    ygrad = gather.where(below, grad, zeros)
    zgrad = gather.where(above, grad, zeros)
    gy = shape.reshape(reductions.reduce_sum(ygrad, ry), sy)
    gz = shape.reshape(reductions.reduce_sum(zgrad, rz), sz)
    return xgrad, gy, gz


def clip_by_value_op(t, clip_value_min, clip_value_max, name=None):
    """The raw ClipByValue op (TF's `gen_math_ops._clip_by_value`)."""
    return apply_op("ClipByValue", t=t, clip_value_min=clip_value_min,
                    clip_value_max=clip_value_max, name=name).outputs[0]


def _values(t, name="t"):
    return convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=name)


def _like(t, values):
    if isinstance(t, IndexedSlices):
        return IndexedSlices(values, t.indices, t.dense_shape)
    return values


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clips `t` (a Tensor or IndexedSlices) to [clip_value_min, clip_value_max].

    Built as TF builds it: Minimum with the upper bound, then Maximum named `name`.

    Raises:
      ValueError: if the bounds would broadcast `t` to a bigger shape.
    """
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = _values(t)
        t_min = arith.minimum(values, clip_value_max)
        values.shape.assert_is_compatible_with(t_min.shape)
        t_max = arith.maximum(t_min, clip_value_min, name=scope)
        values.shape.assert_is_compatible_with(t_max.shape)
    return _like(t, t_max)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """Scales `t` so its L2 norm (over `axes`, default all) is at most `clip_norm`:
    t * clip_norm / max(norm, clip_norm). A zero norm gives zero gradients, not NaN.

    Raises:
      ValueError: if `clip_norm` would broadcast `t` to a bigger shape.
    """
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = _values(t)
        if np.isscalar(clip_norm):
            clip_norm = max(clip_norm, 0)
        else:
            clip_norm = cast.cast(arith.maximum(clip_norm, 0), dtype=values.dtype)
        l2sum = reductions.reduce_sum(values * values, axes, keepdims=True)
        pred = l2sum > 0
        l2sum_safe = gather.where(pred, l2sum, create.ones_like(l2sum))
        l2norm = gather.where(pred, arith.sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.assert_is_compatible_with(intermediate.shape)
        clipped = identity.identity(intermediate / arith.maximum(l2norm, clip_norm),
                                     name=scope)
    return _like(t, clipped)


def _check_list(t_list):
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def global_norm(t_list, name=None):
    """sqrt(sum of squared L2 norms) of the Tensors/IndexedSlices in `t_list` (None
    entries are skipped).

    Raises:
      TypeError: if `t_list` is not a sequence.
    """
    t_list = _check_list(t_list)
    with name_scope(name, "global_norm", t_list):
        values = [_values(t, "t_%d" % i) if t is not None else None
                  for i, t in enumerate(t_list)]
        half_squared = []
        graph = get_default_graph()
        for v in values:
            if v is not None:
                with graph.colocate_with(v.op):
                    half_squared.append(l2_loss(v))
        half_squared_norm = reductions.reduce_sum(join.stack(half_squared))
        return arith.sqrt(half_squared_norm *
                             constant(2.0, dtype=half_squared_norm.dtype), name="global_norm")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scales every entry of `t_list` by clip_norm / max(global_norm, clip_norm).

    If the global norm is Inf or NaN, every entry becomes NaN (as in TF).

    Returns:
      (list of clipped tensors, with None entries kept; the global norm used).

    Raises:
      TypeError: if `t_list` is not a sequence.
    """
    t_list = _check_list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with name_scope(name, "clip_by_global_norm", t_list + [clip_norm]) as scope:
        scale_for_finite = clip_norm * arith.minimum(
            1.0 / use_norm, constant(1.0, dtype=use_norm.dtype) / clip_norm)
        # use_norm - use_norm is NaN when the norm is not finite, poisoning every output.
        scale = scale_for_finite + (use_norm - use_norm)
        values = [_values(t, "t_%d" % i) if t is not None else None
                  for i, t in enumerate(t_list)]
        clipped = []
        graph = get_default_graph()
        for i, v in enumerate(values):
            if v is None:
                clipped.append(None)
                continue
            with graph.colocate_with(v.op):
                clipped.append(identity.identity(v * cast.cast(scale, v.dtype),
                                                  name="%s_%d" % (scope.rstrip("/"), i)))
        out = [_like(t, c) if c is not None else None for c, t in zip(clipped, t_list)]
    return out, use_norm


def clip_by_average_norm(t, clip_norm, name=None):
    """Scales `t` so its L2 norm divided by its number of elements is at most
    `clip_norm` (TF1's deprecated `tf.clip_by_average_norm`)."""
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = convert_to_tensor(t, name="t")
        n_element = cast.cast(shape.size(t), dtypes.float32)
        l2norm_inv = arith.rsqrt(reductions.reduce_sum(
            t * t, create.range(shape.rank(t))))
        return identity.identity(
            t * clip_norm * arith.minimum(l2norm_inv * n_element,
                                             constant(1.0) / clip_norm), name=scope)
