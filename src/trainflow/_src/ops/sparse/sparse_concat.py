"""`tf.sparse_concat` / `tf.sparse.concat` (SparseConcat): SparseTensors joined along an
axis, entries in row-major order; with `expand_nonconcat_dim` the other dimensions take
the largest size. TensorFlow marks SparseConcat not differentiable."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import reshape
from trainflow._src.ops.array.shape_util import invalid_argument, shape_of
from trainflow._src.ops.math import reductions
from trainflow._src.ops.sparse.sparse_ops import _as_sparse

__all__ = ["sparse_concat"]


def _sparse_concat(indices, values, shapes, *, concat_dim, N, T):  # noqa: N803 - TF's attrs
    shapes = [[int(d) for d in np.asarray(s).tolist()] for s in shapes]
    rank = len(shapes[0])
    axis = concat_dim + rank if concat_dim < 0 else concat_dim
    if not 0 <= axis < rank:
        raise invalid_argument(f"Concat dimension must be in range [{-rank}, {rank}), got "
                               f"{concat_dim}")
    for i, s in enumerate(shapes):
        if len(s) != rank:
            raise invalid_argument(f"Ranks of all input tensors must match: expected {rank} "
                                   f"but got {len(s)} at position {i}")
        for d in range(rank):
            if d != axis and s[d] != shapes[0][d]:
                raise invalid_argument(f"All dimensions except {axis} must match. Input {i} "
                                       f"has shape {s} and doesn't match input 0 with shape "
                                       f"{shapes[0]}.")
    rows, offset = [], 0
    for idx, val, s in zip(indices, values, shapes):
        idx = np.array(idx, np.int64).reshape(-1, rank)
        idx[:, axis] += offset
        rows.extend(zip(map(tuple, idx.tolist()), np.asarray(val).tolist()))
        offset += s[axis]
    rows.sort(key=lambda r: r[0])
    out_shape = list(shapes[0])
    out_shape[axis] = offset
    out_dtype = np.asarray(values[0]).dtype
    return (np.array([r[0] for r in rows], np.int64).reshape(-1, rank),
            np.array([r[1] for r in rows], dtype=out_dtype).reshape(-1),
            np.array(out_shape, np.int64))


def _sparse_concat_shape(op):
    n = op._attrs["N"]
    rank = None
    for t in op.inputs[2 * n:]:
        if t.shape.rank:
            rank = t.shape.as_list()[0]
    counts = [t.shape.as_list()[0] if t.shape.rank else None for t in op.inputs[n:2 * n]]
    nnz = None if None in counts else sum(counts)
    return [shape_of([nnz, rank]), shape_of([nnz]), shape_of([rank])]


register_op("SparseConcat",
            inputs=["indices: N * int64", "values: N * T", "shapes: N * int64"],
            outputs=["output_indices: int64", "output_values: T", "output_shape: int64"],
            attrs=["concat_dim: int", "N: int >= 2", "T: type"],
            shape_fn=_sparse_concat_shape, kernel=_sparse_concat)
NotDifferentiable("SparseConcat")


def _dim(shape, i):
    return None if shape.rank is None else shape.as_list()[i]


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=None):
    """The SparseTensors of `sp_inputs` concatenated along `axis` (TF1's signature:
    `concat_dim` and `expand_nonconcat_dims` are older names).

    Raises:
      TypeError: if `sp_inputs` is not a list.
      ValueError: if it is empty, or both an argument and its older name are given.
    """
    if axis is not None and concat_dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'concat_dim'.")
    axis = concat_dim if axis is None else axis
    if expand_nonconcat_dims is not None:
        # TF's argument lookup: expand_nonconcat_dim defaults to False, not None, so the
        # newer name always meets a value for the older one.
        if expand_nonconcat_dim is not None:
            raise ValueError("Cannot specify both 'expand_nonconcat_dims' and "
                             "'expand_nonconcat_dim'.")
        expand_nonconcat_dim = expand_nonconcat_dims
    if not isinstance(sp_inputs, list):
        raise TypeError("Inputs must be a list")
    if not sp_inputs:
        raise ValueError("Must have at least 1 input")
    sp_inputs = [_as_sparse(sp) for sp in sp_inputs]
    if len(sp_inputs) == 1:
        return sp_inputs[0]
    inds = [sp.indices for sp in sp_inputs]
    vals = [sp.values for sp in sp_inputs]
    shapes = [sp.dense_shape for sp in sp_inputs]
    if expand_nonconcat_dim:
        max_shape = reductions.reduce_max(concat([reshape(s, [1, -1]) for s in shapes], 0), 0)
        shapes = [concat([max_shape[:axis], s[-1:] if axis == -1 else s[axis:axis + 1],
                          [] if axis == -1 else max_shape[axis + 1:]], 0) for s in shapes]
    out_ind, out_val, out_shape = apply_op("SparseConcat", indices=inds, values=vals,
                                           shapes=shapes, concat_dim=axis,
                                           name=name).outputs
    input_shapes = [sp.shape for sp in sp_inputs]
    if all(s.rank is not None for s in input_shapes):
        dims = []
        for d in range(input_shapes[0].rank):
            sizes = [_dim(s, d) for s in input_shapes]
            if expand_nonconcat_dim:
                dims.append(None if None in sizes else max(sizes))
            else:
                dims.append(sizes[0])
        sizes = [_dim(s, axis) for s in input_shapes]
        dims[axis] = None if None in sizes else sum(sizes)
        static = TensorShape(dims)
    else:
        static = unknown_shape()
    if all(s.is_fully_defined() for s in input_shapes):
        return SparseTensor(out_ind, out_val,
                            convert_to_tensor(static.as_list(), dtype=dtypes.int64))
    output = SparseTensor(out_ind, out_val, out_shape)
    output.set_shape(static)
    return output
