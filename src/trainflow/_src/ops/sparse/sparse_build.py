"""SparseTensors made or reshaped from other ops, as TensorFlow builds them:
`tf.sparse.from_dense`, `tf.sparse.eye`, `tf.sparse.expand_dims`, `tf.sparse.reset_shape`,
`tf.sparse.merge` and `tf.sparse.to_indicator`."""
import collections.abc
import numbers

import numpy as np

from trainflow._src.framework import dtypes, tensor_util
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor, SparseTensorValue
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import fill, ones, ones_like, range as range_, zeros, \
    zeros_like
from trainflow._src.ops.array.gather import gather_nd, where_v2
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.array.join import concat, stack
from trainflow._src.ops.array.shape import expand_dims, shape
from trainflow._src.ops.array.slicing import slice as slice_
from trainflow._src.ops.control_flow.check_ops import assert_equal, assert_less_equal
from trainflow._src.ops.control_flow.grouping import with_dependencies
from trainflow._src.ops.math import overloads  # noqa: F401 - the Tensor operators used here
from trainflow._src.ops.math.arith import add, maximum, minimum, not_equal
from trainflow._src.ops.math.reductions import reduce_max
from trainflow._src.ops.sparse.sparse_ops import _as_sparse, sparse_reorder, \
    sparse_tensor_to_dense

__all__ = ["from_dense", "sparse_expand_dims", "sparse_eye", "sparse_merge",
           "sparse_reset_shape", "sparse_to_indicator"]


def from_dense(tensor, name=None):
    """The SparseTensor of the non-zero entries of a dense `tensor`."""
    with name_scope(name, "dense_to_sparse"):
        tensor = convert_to_tensor(tensor)
        indices = where_v2(not_equal(tensor, zeros_like(tensor)))
        values = gather_nd(tensor, indices)
        dense_shape = shape(tensor, out_type=dtypes.int64)
        return SparseTensor(indices, values, dense_shape)


def _int64_tensor(value, name):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return convert_to_tensor(value, name=name, dtype=dtypes.int64)
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be an integer value")
    return value if value.dtype == dtypes.int64 else cast(value, dtypes.int64)


def sparse_eye(num_rows, num_columns=None, dtype=dtypes.float32, name=None):
    """A [num_rows, num_columns] SparseTensor with ones on the diagonal."""
    with name_scope(name, "eye", [num_rows, num_columns]):
        num_rows = _int64_tensor(num_rows, "num_rows")
        num_columns = num_rows if num_columns is None else _int64_tensor(num_columns,
                                                                         "num_columns")
        diag_size = minimum(num_rows, num_columns)
        diag_range = range_(diag_size, dtype=dtypes.int64)
        return SparseTensor(indices=stack([diag_range, diag_range], axis=1),
                            values=ones(diag_size, dtype=dtype),
                            dense_shape=[num_rows, num_columns])


def sparse_expand_dims(sp_input, axis=None, name=None):
    """`sp_input` with a dimension of size 1 inserted at `axis` (default -1, the end).

    Raises:
      TypeError: if `axis` is neither an int nor a Tensor.
    """
    rank = sp_input.dense_shape.shape[0]
    rank = rank if isinstance(rank, int) else getattr(rank, "value", rank)
    if rank is None:
        rank = shape(sp_input.dense_shape)[0]
    axis = -1 if axis is None else axis
    with name_scope(name, "expand_dims", [sp_input]):
        if isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
            axis = convert_to_tensor(axis, name="axis", dtype=dtypes.int32)
        elif not isinstance(axis, Tensor):
            raise TypeError("axis must be an integer value in range [-rank(sp_input) - 1, "
                            "rank(sp_input)]")
        axis = where_v2(axis >= 0, axis, axis + rank + 1)
        column_size = shape(sp_input.indices)[0]
        new_index = zeros([column_size, 1], dtype=dtypes.int64)
        indices_before = slice_(sp_input.indices, [0, 0], [-1, axis])
        indices_after = slice_(sp_input.indices, [0, axis], [-1, -1])
        indices = concat([indices_before, new_index, indices_after], axis=1)
        shape_before = slice_(sp_input.dense_shape, [0], [axis])
        shape_after = slice_(sp_input.dense_shape, [axis], [-1])
        new_shape = convert_to_tensor([1], name="new_shape", dtype=dtypes.int64)
        dense_shape = concat([shape_before, new_shape, shape_after], axis=0)
        if isinstance(rank, int):  # TensorFlow's shape inference folds the axis arithmetic
            indices.set_shape([None, rank + 1])
            dense_shape.set_shape([rank + 1])
        return SparseTensor(indices=indices, values=sp_input.values, dense_shape=dense_shape)


def sparse_reset_shape(sp_input, new_shape=None):
    """`sp_input` with dense shape `new_shape` (no smaller than the old one), or, when
    None, the tightest shape that holds its entries.

    Raises:
      ValueError: if `new_shape` is not a vector, has the wrong length, or (known
        statically) is smaller than the input's shape.
    """
    sp_input = _as_sparse(sp_input)
    in_indices = identity(sp_input.indices)
    in_values = identity(sp_input.values)
    in_shape = identity(sp_input.dense_shape)
    if new_shape is None:
        dim_low_bound = reduce_max(in_indices, axis=0)
        output_shape = maximum(convert_to_tensor(0, dtype=dtypes.int64),
                               add(dim_low_bound, ones_like(in_shape)))
        return SparseTensor(in_indices, in_values, output_shape)
    output_shape = convert_to_tensor(new_shape)
    output_shape.shape.assert_has_rank(1)
    output_shape = cast(output_shape, dtypes.int64)
    if output_shape.shape.rank is not None:
        output_shape.shape.dims[0].assert_is_compatible_with(in_shape.shape.dims[0])
    static = tensor_util.constant_value(output_shape)
    if static is not None and sp_input.shape.is_fully_defined():
        in_static = np.array(sp_input.shape.as_list())
        if not np.all(in_static <= static):
            # TensorFlow's message names the two shapes the other way round
            raise ValueError(f"Requested new_shape should have dimension sizes >= "
                             f"sp_input.shape.  Found new_shape ({in_static}), "
                             f"sp_input.shape ({static}).")
        output_shape = static
    else:
        output_shape = with_dependencies(
            [assert_equal(shape(in_shape), shape(output_shape))], output_shape)
        output_shape = with_dependencies([assert_less_equal(in_shape, output_shape)],
                                         output_shape)
    return SparseTensor(in_indices, in_values, output_shape)


def _is_size(value):
    return isinstance(value, (Tensor, numbers.Integral))


def _merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    if isinstance(sp_ids, (SparseTensor, SparseTensorValue)):
        sp_ids = [sp_ids]
        if not _is_size(vocab_size):
            raise TypeError(f"vocab_size has to be a Tensor or Python int. Found "
                            f"{type(vocab_size)}")
        vocab_size = [vocab_size]
    else:
        if not isinstance(sp_ids, collections.abc.Iterable):
            raise TypeError(f"sp_ids has to be a SparseTensor or list thereof. Found "
                            f"{type(sp_ids)}")
        if not isinstance(vocab_size, collections.abc.Iterable):
            raise TypeError(f"vocab_size has to be a list of Tensors or Python ints. Found "
                            f"{type(vocab_size)}")
        for dim in vocab_size:
            if not _is_size(dim):
                raise TypeError(f"vocab_size has to be a list of Tensors or Python ints. "
                                f"Found {type(dim)}")
    if len(sp_ids) != len(vocab_size):
        raise ValueError("sp_ids and vocab_size have to have equal lengths.")
    with name_scope(name, "SparseMerge", [sp_ids, sp_values]):
        sp_ids = [_as_sparse(s) for s in sp_ids]
        sp_values = _as_sparse(sp_values)
        ids = []
        for sp_ids_dim in sp_ids:
            ids_dim = sp_ids_dim.values
            if sp_ids_dim.dtype != dtypes.int64:
                ids_dim = cast(ids_dim, dtypes.int64)
            ids.append(expand_dims(ids_dim, axis=1))
        vocab_size = [cast(x, dtypes.int64) for x in vocab_size]
        kept_columns = sp_ids[0].indices[:, :-1]
        new_indices = concat([kept_columns] + ids, 1)
        new_shape = concat([sp_ids[0].dense_shape[:-1], vocab_size], 0)
        result = SparseTensor(new_indices, sp_values.values, new_shape)
        if already_sorted:
            return result
        ordered = sparse_reorder(result)
        return SparseTensor(ordered.indices, ordered.values, new_shape)


def sparse_merge(sp_ids, sp_values, vocab_size, name=None, already_sorted=False):
    """Combines id and value SparseTensors into one whose last index is the id: for
    `sp_ids[d]` (and `vocab_size[d]`) given as lists, one new dimension per list item.

    Raises:
      TypeError: if `sp_ids` or `vocab_size` has the wrong type.
      ValueError: if `sp_ids` and `vocab_size` differ in length.
    """
    return _merge(sp_ids, sp_values, vocab_size, name, already_sorted)


def sparse_to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor, one more dimension of `vocab_size`, True at each id that
    `sp_input` (a SparseTensor of int ids) holds in its last dimension."""
    sp_input = _as_sparse(sp_input)
    with name_scope(name, "SparseToIndicator", [sp_input]) as name:
        num_entries = shape(sp_input.indices)[0]
        new_values = fill(expand_dims(num_entries, 0), True)
        sp_values = SparseTensor(sp_input.indices, new_values, sp_input.dense_shape)
        sp_new = _merge(sp_input, sp_values, vocab_size, name)
        return sparse_tensor_to_dense(sp_new, default_value=False, validate_indices=False,
                                      name=name)
