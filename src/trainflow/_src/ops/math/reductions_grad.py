"""Gradients of the reductions and scans: Sum, Mean, Prod, Max, Min, EuclideanNorm,
ArgMax/ArgMin (None), Cumsum and Cumprod; and the `ListDiff` op the Prod gradient
uses (TF's `setdiff1d`).

The graphs are TensorFlow's: a reduction to a scalar of a known-rank input is a
Reshape and a Tile; with fully known shapes the kept-dims shape and the tile
multiples are computed once per graph and baked in as constants; otherwise
they are computed at run time (`reduced_shape`). So the
gradient nodes of a training graph get TensorFlow's names
(`gradients/loss_grad/Tile`, `.../Prod`, `.../truediv`).

Imported at the end of `math_ops`.
"""
import weakref

import numpy as np

from trainflow._src.framework import dtypes, tensor_util
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array import gather
from trainflow._src.ops.array import join
from trainflow._src.ops.array import layout
from trainflow._src.ops.array import shape
from trainflow._src.framework import constant_op
from trainflow._src.ops.array import cast
from trainflow._src.ops.array import create
from trainflow._src.ops.math import argmax_scan
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions
from trainflow._src.ops.math.grad_util import safe_shape_div, shape_tuple


def reduced_shape(input_shape, axes):
    """The shape of a reduction's output with kept dims: `input_shape` with 1 at `axes`
    (TF's `math_ops.reduced_shape`, used by the reduction gradients).

    Args:
      input_shape: the input's shape as a 1-D int tensor, list or array.
      axes: the reduction axes (int, list or int tensor; negative values count from
        the end).

    Returns:
      an int32 ndarray when both arguments are static, else a 1-D int tensor
      (a `DynamicStitch` of the shape and ones at the axes).
    """
    # lazy: data_flow.partition (DynamicStitch) stays out of `import trainflow`.
    from trainflow._src.ops.data_flow import partition
    static_shape = (tensor_util.constant_value(input_shape) if isinstance(input_shape, Tensor)
                    else np.asarray(input_shape))
    if static_shape is not None:
        static_axes = (tensor_util.constant_value(axes) if isinstance(axes, Tensor)
                       else np.asarray(axes))
        if static_axes is not None:
            out = np.array(static_shape, dtype=np.int32)
            out[np.asarray(static_axes, dtype=np.int32)] = 1
            return out
    input_shape = convert_to_tensor(input_shape)
    axes = convert_to_tensor(axes)
    if axes.dtype.base_dtype != dtypes.int32:
        # DynamicStitch takes int32 indices only (TF fails here for int64 axes).
        axes = cast.cast(axes, dtypes.int32)
    input_rank = shape.size(input_shape, out_type=axes.dtype.base_dtype)
    axes = (axes + input_rank) % input_rank
    axes_shape = shape.shape(axes)
    return partition.dynamic_stitch(
        [create.range(input_rank), axes],
        [input_shape, create.ones(axes_shape, dtype=input_shape.dtype.base_dtype)])


# -- ListDiff: the values of x not in y, and their positions ----------------------------------
def _list_diff_kernel(x, y, *, out_idx):
    keep = ~np.isin(x, y)
    return x[keep], np.flatnonzero(keep).astype(out_idx.as_numpy_dtype)


def _list_diff_shape(op):
    for t in op.inputs:
        dims = t.shape._dims
        if dims is not None and len(dims) != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {len(dims)}")
    return [TensorShape([None]), TensorShape([None])]


register_op("ListDiff", inputs=["x: T", "y: T"], outputs=["out: T", "idx: out_idx"],
            attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"],
            shape_fn=_list_diff_shape, kernel=_list_diff_kernel)


@tensor_util.register_constant_value("ListDiff")
def _list_diff_value(op, index, partial):
    x = tensor_util.constant_value(op.inputs[0])
    y = tensor_util.constant_value(op.inputs[1])
    if x is None or y is None or np.ndim(x) != 1:
        return None
    return _list_diff_kernel(np.asarray(x), np.asarray(y), out_idx=op._attrs["out_idx"])[index]


# -- Sum and Mean ---------------------------------------------------------------------------
# Per graph: (input shape, axes) -> (kept-dims shape, tile multiples), as TF caches them.
_REDUCED_SHAPE_CACHE = weakref.WeakKeyDictionary()


def _static_kept_dims_and_multiples(graph, input_shape, axes):
    cache = _REDUCED_SHAPE_CACHE.setdefault(graph, {})
    key = (input_shape, axes)
    if key not in cache:
        kept = reduced_shape(input_shape, axes)
        # TF computes the multiples with Maximum and floordiv ops that it then folds to
        # constants, leaving them unused in the graph; building them too keeps the graph
        # (and the names in this scope) identical to TF's.
        safe_shape_div(input_shape, kept)
        multiples = np.asarray(input_shape, np.int32) // np.maximum(kept, 1)
        cache[key] = (tuple(int(d) for d in kept), tuple(int(d) for d in multiples))
    return cache[key]


@RegisterGradient("Sum")
def _sum_grad(op, grad):
    input_dims = shape_tuple(op.inputs[0])
    if input_dims is not None:
        axes = tensor_util.constant_value(op.inputs[1])
        if axes is not None:
            rank = len(input_dims)
            if np.array_equal(axes, np.arange(rank)):
                # Reduced to a scalar: reshape to all-ones dims and tile back.
                grad = shape.reshape(grad, [1] * rank)
                if None not in input_dims:
                    input_shape = constant_op.constant(list(input_dims), dtype=dtypes.int32)
                else:
                    input_shape = shape.shape(op.inputs[0])
                return [layout.tile(grad, input_shape), None]
            if None not in input_dims:
                axes = tuple(int(a) for a in np.asarray(axes).reshape(-1))
                kept, multiples = _static_kept_dims_and_multiples(op.graph, input_dims, axes)
                grad = shape.reshape(grad, kept)
                return [layout.tile(grad, multiples), None]
    input_shape = shape.shape(op.inputs[0])
    if not op.get_attr("keep_dims"):
        with op.graph.colocate_with(input_shape.op):
            kept = reduced_shape(input_shape, op.inputs[1])
        grad = shape.reshape(grad, kept)
    return [shape.broadcast_to(grad, input_shape), None]


@RegisterGradient("Mean")
def _mean_grad(op, grad):
    sum_grad = _sum_grad(op, grad)[0]
    input_dims = shape_tuple(op.inputs[0])
    output_dims = shape_tuple(op.outputs[0])
    if (input_dims is not None and output_dims is not None and None not in input_dims
            and None not in output_dims):
        factor = int(np.prod(input_dims)) // max(int(np.prod(output_dims)), 1)
        factor = constant_op.constant(factor, dtype=sum_grad.dtype.base_dtype)
    else:
        input_shape = shape.shape(op.inputs[0])
        input_rank = shape.size(input_shape)
        axes = cast.cast(op.inputs[1], input_rank.dtype.base_dtype)
        axes = (axes + input_rank) % input_rank
        factor = reductions.reduce_prod(gather.gather(input_shape, axes))
    return arith.truediv(sum_grad, cast.cast(factor, sum_grad.dtype.base_dtype)), None


# -- Max and Min ------------------------------------------------------------------------------
def _min_or_max_grad(op, grad):
    """The gradient goes to the selected elements, split evenly between ties."""
    input_shape = shape.shape(op.inputs[0])
    y = op.outputs[0]
    if not op.get_attr("keep_dims"):
        kept = reduced_shape(input_shape, op.inputs[1])
        y = shape.reshape(y, kept)
        grad = shape.reshape(grad, kept)
    else:
        kept = shape.shape(y)
    indicators = cast.cast(arith.equal(y, op.inputs[0]), grad.dtype.base_dtype)
    num_selected = shape.reshape(reductions.reduce_sum(indicators, op.inputs[1]), kept)
    return [arith.divide(indicators, num_selected) * grad, None]


RegisterGradient("Max")(_min_or_max_grad)
RegisterGradient("Min")(_min_or_max_grad)


# -- Prod ----------------------------------------------------------------------------------
@RegisterGradient("Prod")
def _prod_grad(op, grad):
    # The product of all the other entries, without dividing (zeros are allowed): move
    # the reduced axes to the front, flatten them, and multiply the exclusive cumulative
    # products from the left and from the right.
    x = op.inputs[0]
    input_shape = shape.shape(x)
    reduction_indices = shape.reshape(op.inputs[1], [-1])
    if not op.get_attr("keep_dims"):
        grad = shape.reshape(grad, reduced_shape(input_shape, op.inputs[1]))
    grad = shape.broadcast_to(grad, input_shape)
    with op.graph.device("/cpu:0"):
        rank = shape.rank(x)
        reduction_indices = cast.cast(reduction_indices, rank.dtype.base_dtype)
        reduced = (reduction_indices + rank) % rank
        idx = create.range(0, rank)
        other = arith._out("ListDiff", None, x=idx, y=reduced,
                              out_idx=reduced.dtype.base_dtype)
        perm = join.concat([reduced, other], 0)
        reduced_num = reductions.reduce_prod(gather.gather(input_shape, reduced))
        other_num = reductions.reduce_prod(gather.gather(input_shape, other))
    permuted = layout.transpose(x, perm)
    permuted_shape = shape.shape(permuted)
    reshaped = shape.reshape(permuted, (reduced_num, other_num))
    left = argmax_scan.cumprod(reshaped, axis=0, exclusive=True)
    right = argmax_scan.cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    y = shape.reshape(arith.conj(left) * arith.conj(right), permuted_shape)
    out = grad * layout.transpose(y, gather.invert_permutation(perm))
    return shape.reshape(out, input_shape), None


# -- EuclideanNorm, ArgMax/ArgMin ------------------------------------------------------------
@RegisterGradient("EuclideanNorm")
def _euclidean_norm_grad(op, grad):
    # d ||x|| = x / ||x||
    output = op.outputs[0]
    if not op.get_attr("keep_dims"):
        kept = reduced_shape(shape.shape(op.inputs[0]), op.inputs[1])
        output = shape.reshape(output, kept)
        grad = shape.reshape(grad, kept)
    return arith.truediv(op.inputs[0], output / grad), None


def _arg_grad(op, grad):
    return [None, None]


RegisterGradient("ArgMax")(_arg_grad)
RegisterGradient("ArgMin")(_arg_grad)


# -- scans ----------------------------------------------------------------------------------
@RegisterGradient("Cumsum")
def _cumsum_grad(op, grad):
    # Each input feeds every later (or, reversed, earlier) output: a cumsum the other way.
    exclusive = op.get_attr("exclusive")
    reverse = op.get_attr("reverse")
    return [argmax_scan.cumsum(grad, op.inputs[1], exclusive=exclusive, reverse=not reverse),
            None]


@RegisterGradient("Cumprod")
def _cumprod_grad(op, grad):
    x, axis = op.inputs
    exclusive = op.get_attr("exclusive")
    reverse = op.get_attr("reverse")
    prod = argmax_scan.cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = argmax_scan.cumsum(prod * grad, axis, exclusive=exclusive, reverse=not reverse)
    return [arith.div_no_nan(out, x), None]
