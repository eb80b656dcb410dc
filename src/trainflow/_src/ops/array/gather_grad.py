"""Gradients of the indexing ops: Gather, GatherV2, GatherNd, ScatterNd, Select and
SelectV2.

A gather along axis 0 has an IndexedSlices gradient (one row of the incoming
gradient per looked-up index, so optimizers update only those rows); along
another axis, or with batch dims, the gathered slices are summed back into place
with UnsortedSegmentSum. GatherNd and ScatterNd are each other's gradient.
Where, Unique and UniqueWithCounts have no gradient, as in TensorFlow.

Imported at the end of `gather`.
"""
from trainflow._src.framework import tensor_util
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient
from trainflow._src.ops.array.gather import gather, gather_nd, where, where_v2
from trainflow._src.framework import dtypes
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import (
    ones, range as range_, zeros, zeros as zeros_fn, zeros_like)
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.layout import tile, transpose
from trainflow._src.ops.array.shape import (
    expand_dims, rank, reshape, shape, size, squeeze)
from trainflow._src.ops.array.shape_grad import dense_gradient
from trainflow._src.ops.math.grad_util import reduce_gradient_args
from trainflow._src.ops.math.segment import unsorted_segment_sum


def _params_shape(params):
    """shape(params), built next to params (which can be large)."""
    with params.graph.colocate_with(params.op):
        return shape(params)


def _rows_gradient(params_shape, indices, grad, indices_size):
    """IndexedSlices with one row of `grad` per index, of dense shape `params_shape`."""
    values_shape = concat([indices_size, params_shape[1:]], 0)
    values = reshape(dense_gradient(grad), values_shape)
    indices = reshape(indices, indices_size)
    return IndexedSlices(values, indices, params_shape)


def _indices_size(indices):
    return expand_dims(size(indices), 0)


@RegisterGradient("Gather")
def _gather_grad(op, grad):
    params, indices = op.inputs
    params_shape = _params_shape(params)
    return _rows_gradient(params_shape, indices, grad, _indices_size(indices)), None


def _batch_indices(params_shape, indices, batch_dims):
    """`indices` offset by each batch entry's position in the flattened batch."""
    batch_indices = indices
    index_dtype = indices.dtype.base_dtype
    sizes = cast(params_shape, index_dtype)
    accum = ones((), dtype=index_dtype)
    for dim in range(batch_dims, 0, -1):
        dim_value = sizes[dim - 1]
        accum *= sizes[dim]
        dim_indices = range_(zeros((), dtype=index_dtype), dim_value, ones((), dtype=index_dtype))
        dim_indices *= accum
        size_value = dim_value if index_dtype == dtypes.int32 else cast(dim_value, dtypes.int32)
        dim_shape = concat([tile([1], [dim - 1]), [size_value],
                            tile([1], [rank(indices) - dim])], axis=0)
        batch_indices += reshape(dim_indices, dim_shape)
    return batch_indices


def _batch_gather_grad(params_shape, values, indices, batch_dims, gather_dim_size):
    """The dense gradient of a gather along the first non-batch axis of `values`."""
    indices_size = _indices_size(indices)
    if batch_dims:
        values_shape = shape(values)
        outer_shape = values_shape[:batch_dims]
        inner_shape = values_shape[batch_dims:][1:]
        batch_size = apply_op("Prod", input=outer_shape, reduction_indices=[0],
                              keep_dims=False).outputs[0]
        flat_values_shape = concat([[-1], inner_shape], 0)
        gather_dim_size *= batch_size
        indices = _batch_indices(params_shape, indices, batch_dims)
        values = reshape(dense_gradient(values), flat_values_shape)
    indices = reshape(indices, indices_size)
    params_grad = unsorted_segment_sum(values, indices, gather_dim_size)
    if batch_dims:
        params_grad = reshape(params_grad, concat([outer_shape, flat_values_shape], 0))
    return params_grad


def _axis_gradient(params_shape, indices, grad, axis, batch_dims):
    """The dense gradient of a gather along `axis` (a tensor): the axis moves to the first
    non-batch position, the slices are summed into place and the axis moves back."""
    outer_shape = params_shape[:axis]
    inner_shape = params_shape[axis:][1:]
    values_shape = concat([outer_shape, [-1], inner_shape], 0)
    values_dims = size(values_shape)
    axis_dims = size(outer_shape)
    outer_batches = range_(batch_dims)
    batch_axes = range_(batch_dims, axis_dims)
    inner_axes = range_(axis_dims + 1, values_dims)
    values = reshape(dense_gradient(grad), values_shape)
    transpose_dims = concat([outer_batches, [axis_dims], batch_axes, inner_axes], 0)
    values_transpose = transpose(values, transpose_dims)
    params_shape_transpose = gather(params_shape, transpose_dims)
    params_grad = _batch_gather_grad(params_shape_transpose, values_transpose, indices,
                                     batch_dims, params_shape[axis])
    invert_dims = concat([outer_batches, batch_axes + 1, [batch_dims], inner_axes], 0)
    return transpose(params_grad, invert_dims)


@RegisterGradient("GatherV2")
def _gather_v2_grad(op, grad):
    """Raises: ValueError for a negative batch_dims with indices of unknown rank."""
    params, indices, axis = op.inputs
    params_shape = _params_shape(params)
    indices_size = _indices_size(indices)
    axis_static = tensor_util.constant_value(axis)
    batch_dims = int(op._attrs["batch_dims"])
    if batch_dims < 0:
        if indices.shape.rank is None:
            raise ValueError(f"The gradient of {op.name} (tf.gather with batch_dims="
                             f"{batch_dims}) needs indices of known rank; got {indices}")
        batch_dims += indices.shape.rank
    if axis_static is not None and int(axis_static) == 0:
        return _rows_gradient(params_shape, indices, grad, indices_size), None, None
    params_grad = _axis_gradient(params_shape, indices, grad, axis, batch_dims)
    # Keeps the static shape right when some dimensions are zero.
    return reshape(params_grad, shape(params)), None, None


@RegisterGradient("GatherNd")
def _gather_nd_grad(op, grad):
    """IndexedSlices for a matrix of single indices, else a ScatterNd of the gradient."""
    ref, indices = op.inputs
    ref_shape = shape(ref, out_type=indices.dtype.base_dtype)
    dims = indices.shape._dims
    if dims is not None and len(dims) == 2 and dims[-1] == 1:
        return IndexedSlices(grad, squeeze(indices, axis=-1), ref_shape), None
    ref_grad = apply_op("ScatterNd", indices=indices, updates=grad, shape=ref_shape,
                        bad_indices_policy=op._attrs.get("bad_indices_policy", b"")).outputs[0]
    return ref_grad, None


@RegisterGradient("ScatterNd")
def _scatter_nd_grad(op, grad):
    return None, gather_nd(grad, op.inputs[0]), None


@RegisterGradient("Select")
def _select_grad(op, grad):
    c, x = op.inputs[0], op.inputs[1]
    zeros = zeros_like(x)
    return None, where(c, grad, zeros), where(c, zeros, grad)


@RegisterGradient("SelectV2")
def _select_v2_grad(op, grad):
    """Routes the gradient to the chosen side, then sums it over broadcast axes."""
    c, x, y = op.inputs
    z = op.outputs[0]
    zeros = zeros_fn([], dtype=grad.dtype.base_dtype)
    gx = where_v2(c, grad, zeros)
    gy = where_v2(c, zeros, grad)
    gx, _ = reduce_gradient_args(x, z, gx, None)
    gy, _ = reduce_gradient_args(y, z, gy, None)
    return None, gx, gy
