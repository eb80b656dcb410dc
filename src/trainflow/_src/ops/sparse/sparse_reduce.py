"""Reductions of SparseTensors over their present values: SparseReduceSum and
SparseReduceMax (dense results; a group with no values gives 0) and their `*Sparse`
forms (SparseTensor results holding the groups that had values), for
`tf.sparse_reduce_sum` / `tf.sparse.reduce_sum` and friends. SparseReduceSum has TF's
gradient; TensorFlow defines none for the other three."""
import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import range as range_
from trainflow._src.ops.array.gather import gather_nd
from trainflow._src.ops.array.shape import rank, reshape
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, invalid_argument, shape_of, static_value)
from trainflow._src.ops.math import arith
from trainflow._src.ops.math.reductions import _NUMBER, _REAL
from trainflow._src.ops.math.reductions_grad import reduced_shape

__all__ = ["sparse_reduce_max", "sparse_reduce_max_sparse", "sparse_reduce_sum",
           "sparse_reduce_sum_sparse"]


# -- kernels ---------------------------------------------------------------------------------
def _axes(reduction_axes, ndim):
    axes = np.asarray(reduction_axes).reshape(-1).tolist()
    out = set()
    for a in axes:
        if not -ndim <= a < ndim:
            raise invalid_argument(f"Invalid reduction dimension {a}, for input with {ndim} "
                                   "dimensions.")
        out.add(a % ndim)
    return sorted(out)


def _groups(input_indices, input_values, input_shape, reduction_axes, keep_dims, reducer):
    """(output dense shape, {output index tuple: reduced value}) in row-major order."""
    indices = np.asarray(input_indices, np.int64)
    values, shape = np.asarray(input_values), np.asarray(input_shape, np.int64).tolist()
    axes = _axes(reduction_axes, len(shape))
    kept = [d for d in range(len(shape)) if d not in axes]
    out_shape = ([1 if d in axes else shape[d] for d in range(len(shape))] if keep_dims
                 else [shape[d] for d in kept])
    groups = {}
    for row, value in zip(indices.tolist(), values.tolist()):
        key = tuple(0 if d in axes else row[d] for d in range(len(shape))) if keep_dims \
            else tuple(row[d] for d in kept)
        groups.setdefault(key, []).append(value)
    reduced = {k: reducer(np.asarray(v, values.dtype)) for k, v in sorted(groups.items())}
    return out_shape, reduced, values.dtype


def _dense_kernel(reducer):
    def kernel(input_indices, input_values, input_shape, reduction_axes, *, keep_dims):
        out_shape, reduced, dtype = _groups(input_indices, input_values, input_shape,
                                            reduction_axes, keep_dims, reducer)
        out = np.zeros(out_shape, dtype)
        for key, value in reduced.items():
            out[key] = value
        return out
    return kernel


def _sparse_kernel(reducer):
    def kernel(input_indices, input_values, input_shape, reduction_axes, *, keep_dims):
        out_shape, reduced, dtype = _groups(input_indices, input_values, input_shape,
                                            reduction_axes, keep_dims, reducer)
        indices = np.array(list(reduced), np.int64).reshape(-1, len(out_shape))
        values = np.array(list(reduced.values()), dtype).reshape(-1)
        return indices, values, np.array(out_shape, np.int64)
    return kernel


def _dense_shape(op):
    shape = static_value(op.inputs[2])
    axes = static_value(op.inputs[3])
    if shape is None or axes is None:
        return [UNKNOWN]
    shape = shape.tolist()
    try:
        axes = _axes(axes, len(shape))
    except errors.InvalidArgumentError:
        return [UNKNOWN]  # TF's: the kernel reports a bad axis when it runs
    if op._attrs.get("keep_dims", False):
        return [shape_of([1 if d in axes else s for d, s in enumerate(shape)])]
    return [shape_of([s for d, s in enumerate(shape) if d not in axes])]


def _sparse_shape(op):
    return [UNKNOWN, UNKNOWN, UNKNOWN]  # TF's shape function leaves all three unknown


_INPUTS = ["input_indices: int64", "input_values: T", "input_shape: int64",
           "reduction_axes: int32"]
_ATTRS_SUM = ["keep_dims: bool = false", f"T: {_NUMBER}"]
_ATTRS_MAX = ["keep_dims: bool = false", f"T: {_REAL}"]
register_op("SparseReduceSum", inputs=_INPUTS, outputs=["output: T"], attrs=_ATTRS_SUM,
            shape_fn=_dense_shape, kernel=_dense_kernel(np.sum))
register_op("SparseReduceMax", inputs=_INPUTS, outputs=["output: T"], attrs=_ATTRS_MAX,
            shape_fn=_dense_shape, kernel=_dense_kernel(np.max))
_SPARSE_OUTPUTS = ["output_indices: int64", "output_values: T", "output_shape: int64"]
register_op("SparseReduceSumSparse", inputs=_INPUTS, outputs=_SPARSE_OUTPUTS,
            attrs=_ATTRS_SUM, shape_fn=_sparse_shape, kernel=_sparse_kernel(np.sum))
register_op("SparseReduceMaxSparse", inputs=_INPUTS, outputs=_SPARSE_OUTPUTS,
            attrs=_ATTRS_MAX, shape_fn=_sparse_shape, kernel=_sparse_kernel(np.max))


@RegisterGradient("SparseReduceSum")
def _sparse_reduce_sum_grad(op, out_grad):
    """TF's: each value gets the gradient of the output element it was summed into."""
    sp_indices, sp_shape = op.inputs[0], op.inputs[2]
    output_shape_kept_dims = reduced_shape(sp_shape, op.inputs[3])
    out_grad_reshaped = reshape(out_grad, output_shape_kept_dims)
    scale = arith.floordiv(sp_shape, cast(output_shape_kept_dims, dtypes.int64))
    return (None, gather_nd(out_grad_reshaped, arith.floordiv(sp_indices, scale)), None, None)


# -- graph functions -------------------------------------------------------------------------
def _lookup(new_name, new_value, old_name, old_value):
    if new_value is not None and old_value is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'.")
    return new_value if new_value is not None else old_value


def _reduction_dims(sp_input, axis):
    if axis is not None:
        return axis
    n = sp_input.dense_shape.shape.as_list()[0] if sp_input.dense_shape.shape.rank else None
    if n is not None:
        return constant(np.arange(n, dtype=np.int32))
    return range_(0, rank(sp_input))


def _reduce(op_type, sp_input, axis, keepdims, reduction_axes, keep_dims, sparse_out):
    keepdims = _lookup("keepdims", keepdims, "keep_dims", keep_dims)
    axis = _lookup("axis", axis, "reduction_axes", reduction_axes)
    op = apply_op(op_type, input_indices=sp_input.indices, input_values=sp_input.values,
                  input_shape=sp_input.dense_shape,
                  reduction_axes=_reduction_dims(sp_input, axis), keep_dims=bool(keepdims))
    return SparseTensor(*op.outputs) if sparse_out else op.outputs[0]


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The sum of a SparseTensor's values over `axis` (all axes if None), as a dense
    tensor (`SparseReduceSum`).

    Raises:
      ValueError: if both an argument and its deprecated name are given.
    """
    return _reduce("SparseReduceSum", sp_input, axis, keepdims, reduction_axes, keep_dims,
                   False)


def sparse_reduce_sum_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None,
                             keep_dims=None):
    """`sparse_reduce_sum` as a SparseTensor of the groups that hold values."""
    return _reduce("SparseReduceSumSparse", sp_input, axis, keepdims, reduction_axes,
                   keep_dims, True)


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None, keep_dims=None):
    """The maximum of a SparseTensor's present values over `axis` (implicit zeros take no
    part; a group with no values gives 0), as a dense tensor (`SparseReduceMax`)."""
    return _reduce("SparseReduceMax", sp_input, axis, keepdims, reduction_axes, keep_dims,
                   False)


def sparse_reduce_max_sparse(sp_input, axis=None, keepdims=None, reduction_axes=None,
                             keep_dims=None):
    """`sparse_reduce_max` as a SparseTensor of the groups that hold values."""
    return _reduce("SparseReduceMaxSparse", sp_input, axis, keepdims, reduction_axes,
                   keep_dims, True)
