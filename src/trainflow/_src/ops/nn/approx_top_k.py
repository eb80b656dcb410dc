"""ApproxTopK: the k largest (or smallest) entries along one dimension and their
indices (`tf.math.approx_max_k`, `tf.math.approx_min_k`, `tf.approx_top_k`).

Off TPUs TensorFlow computes the exact answer, and so does this kernel: a stable sort,
so equal values keep their order. Gradient: TensorFlow's scatter of the incoming
gradient to the chosen indices.
"""
import collections

import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather as gather_ops
from trainflow._src.ops.array import join
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, invalid_argument, shape_of)

__all__ = ["approx_max_k", "approx_min_k", "approx_top_k"]

ApproxTopKResult = collections.namedtuple("ApproxTopK", ["values", "indices"])


def _axis(rank, dim):
    return dim + rank if dim < 0 else dim


def _approx_top_k_shape(op):
    dims = dims_of(op.inputs[0])
    if dims is None:
        return [UNKNOWN, UNKNOWN]
    k = op._attrs["k"]
    axis = _axis(len(dims), op._attrs.get("reduction_dimension", -1))
    if not 0 <= axis < len(dims):
        raise ValueError(f"Invalid reduction dimension {axis} for input of rank {len(dims)}")
    if dims[axis] is not None and k > dims[axis]:
        raise ValueError(f"k must be at most the size of the reduction dimension, "
                         f"{k} > {dims[axis]}")
    out = shape_of(dims[:axis] + (k,) + dims[axis + 1:])
    return [out, out]


def _approx_top_k(input, *, k, reduction_dimension, recall_target, is_max_k,  # noqa: A002
                  reduction_input_size_override, aggregate_to_topk):
    x = np.asarray(input)
    axis = _axis(x.ndim, reduction_dimension)
    if k > x.shape[axis]:
        raise invalid_argument(f"k must be at most the size of the reduction dimension, "
                               f"{k} > {x.shape[axis]}")
    keys = -x.astype(np.float32) if is_max_k else x.astype(np.float32)
    order = np.argsort(keys, axis=axis, kind="stable")
    idx = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int32)


register_op("ApproxTopK", inputs=["input: T"], outputs=["values: T", "indices: int32"],
            attrs=["k: int >= 0", "reduction_dimension: int = -1",
                   "recall_target: float = 0.95", "is_max_k: bool = true",
                   "reduction_input_size_override: int = -1",
                   "aggregate_to_topk: bool = true", "T: {half, bfloat16, float}"],
            shape_fn=_approx_top_k_shape, kernel=_approx_top_k)


def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95,  # noqa: A002
                 is_max_k=True, reduction_input_size_override=-1, aggregate_to_topk=True,
                 name=None):
    """(values, indices) of the top k along `reduction_dimension` (`ApproxTopK`)."""
    op = apply_op("ApproxTopK", input=input, k=k, reduction_dimension=reduction_dimension,
                  recall_target=recall_target, is_max_k=is_max_k,
                  reduction_input_size_override=reduction_input_size_override,
                  aggregate_to_topk=aggregate_to_topk, name=name)
    return ApproxTopKResult(*op.outputs)


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """(values, indices) of the k largest entries along `reduction_dimension`."""
    return approx_top_k(operand, k=k, reduction_dimension=reduction_dimension,
                        recall_target=recall_target, is_max_k=True,
                        reduction_input_size_override=reduction_input_size_override,
                        aggregate_to_topk=aggregate_to_topk, name=name)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True, name=None):
    """(values, indices) of the k smallest entries along `reduction_dimension`."""
    return approx_top_k(operand, k=k, reduction_dimension=reduction_dimension,
                        recall_target=recall_target, is_max_k=False,
                        reduction_input_size_override=reduction_input_size_override,
                        aggregate_to_topk=aggregate_to_topk, name=name)


@RegisterGradient("ApproxTopK")
def _approx_top_k_grad(op, grad, _):
    # Each output position's full index: the chosen index on the reduction dimension,
    # an iota on the others; then scatter the gradient there.
    idx_dims = list(op.outputs[1].shape.as_list())
    rank = len(idx_dims)
    lifted = idx_dims + [1]
    count = int(np.prod(idx_dims))
    axis = _axis(rank, op.get_attr("reduction_dimension"))
    parts = []
    for d in range(rank):
        if d == axis:
            parts.append(shape_lib.reshape(op.outputs[1], lifted))
            continue
        iota_shape = [1] * (rank + 1)
        iota_shape[d] = idx_dims[d]
        iota = shape_lib.reshape(create.range(idx_dims[d]), iota_shape)
        parts.append(shape_lib.broadcast_to(iota, lifted))
    flat_idx = shape_lib.reshape(join.concat(parts, axis=rank), [count, rank])
    flat_grad = shape_lib.reshape(grad, [count])
    return gather_ops.scatter_nd(flat_idx, flat_grad, op.inputs[0].shape.as_list())
