"""SparseTensor functions built from other ops, as TensorFlow builds them:
`tf.sparse_retain` (keep the values a mask selects), `tf.sparse_transpose` (permute the
index columns, then reorder) and `tf.sparse_mask` (IndexedSlices without some indices)."""
import numpy as np

from trainflow._src.framework import dtypes, tensor_util
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import dimension_at_index
from trainflow._src.ops.array.create import range as range_
from trainflow._src.ops.array.gather import gather, where_v2
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.array.layout import transpose
from trainflow._src.ops.array.shape import rank as rank_, reshape
from trainflow._src.ops.math import overloads  # noqa: F401 - the Tensor operators used here
from trainflow._src.ops.sparse.sparse_ops import _as_sparse, sparse_reorder

__all__ = ["sparse_mask", "sparse_retain", "sparse_transpose"]


def sparse_retain(sp_input, to_retain):
    """The SparseTensor of the entries of `sp_input` whose `to_retain` (a bool vector, one
    per value) is True; the dense shape stays.

    Raises:
      ValueError: if `to_retain` is not a vector as long as the values.
    """
    sp_input = _as_sparse(sp_input)
    to_retain = convert_to_tensor(to_retain)
    retain_shape = to_retain.shape
    retain_shape.assert_has_rank(1)
    if sp_input.values.shape.dims is not None:
        sp_input.values.shape.dims[0].assert_is_compatible_with(
            dimension_at_index(retain_shape, 0))
    where_true = reshape(where_v2(to_retain), [-1])
    new_indices = gather(sp_input.indices, where_true)
    new_values = gather(sp_input.values, where_true)
    return SparseTensor(new_indices, new_values, identity(sp_input.dense_shape))


def sparse_transpose(sp_input, perm=None, name=None):
    """`sp_input` with its dimensions permuted by `perm` (reversed when None), its
    entries reordered to row-major order."""
    with name_scope(name, "SparseTranspose", [sp_input]):
        if perm is None:
            if sp_input.shape.rank is not None:
                rank = sp_input.shape.rank
                perm = (rank - 1) - np.arange(0, rank, 1)
            else:
                rank = rank_(sp_input)
                perm = (rank - 1) - range_(0, rank, 1)
        indices = sp_input.indices
        transposed_indices = transpose(gather(transpose(indices), perm))
        perm_ = tensor_util.constant_value(convert_to_tensor(perm))
        if perm_ is not None and sp_input.shape.is_fully_defined():
            old_shape = sp_input.shape.as_list()
            transposed_dense_shape = list(old_shape)
            for i, p in enumerate(perm_):
                transposed_dense_shape[i] = old_shape[p]
        else:
            transposed_dense_shape = gather(sp_input.dense_shape, perm)
        transposed = SparseTensor(transposed_indices, sp_input.values, transposed_dense_shape)
        return sparse_reorder(transposed)


def sparse_mask(a, mask_indices, name=None):
    """The IndexedSlices `a` without the slices whose indices are in `mask_indices`."""
    with name_scope(name, "sparse_mask", [a, mask_indices]) as scope:
        op = apply_op("ListDiff", x=a.indices, y=mask_indices, out_idx=dtypes.int32)
        out_indices, to_gather = op.outputs
        out_values = gather(a.values, to_gather, name=scope)
        return IndexedSlices(out_values, out_indices, a.dense_shape)
