"""`tf.nn.safe_embedding_lookup_sparse`: embedding_lookup_sparse that drops invalid ids
(< 0) and, unless combining by "sum", non-positive weights, and gives empty rows the
`default_id` embedding (or zeros); ids of any rank >= 2."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import Dimension, unknown_shape, dimension_value
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import ones_like, zeros_like
from trainflow._src.ops.array.gather import gather, where
from trainflow._src.ops.array.join import concat, stack
from trainflow._src.ops.array.layout import tile
from trainflow._src.ops.array.shape import reshape, shape, size
from trainflow._src.ops.array.slicing import slice as slice_
from trainflow._src.ops.math.arith import greater, greater_equal, logical_and
from trainflow._src.ops.math.reductions import reduce_prod
from trainflow._src.ops.nn.embedding import embedding_lookup_sparse
from trainflow._src.ops.sparse.sparse_compose import sparse_retain
from trainflow._src.ops.sparse.sparse_ops import sparse_fill_empty_rows
from trainflow._src.ops.sparse.sparse_reshape import sparse_reshape
from trainflow._src.ops.state.partitioned_variables import PartitionedVariable

__all__ = ["safe_embedding_lookup_sparse"]


def _prune_invalid_ids(sparse_ids, sparse_weights):
    is_id_valid = greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        is_id_valid = logical_and(is_id_valid,
                                  ones_like(sparse_weights.values, dtype=dtypes.bool))
    sparse_ids = sparse_retain(sparse_ids, is_id_valid)
    if sparse_weights is not None:
        sparse_weights = sparse_retain(sparse_weights, is_id_valid)
    return sparse_ids, sparse_weights


def _prune_invalid_weights(sparse_ids, sparse_weights):
    if sparse_weights is not None:
        is_weights_valid = greater(sparse_weights.values, 0)
        sparse_ids = sparse_retain(sparse_ids, is_weights_valid)
        sparse_weights = sparse_retain(sparse_weights, is_weights_valid)
    return sparse_ids, sparse_weights


def _as_weight_list(embedding_weights, dtype):
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if isinstance(embedding_weights, PartitionedVariable):
        embedding_weights = list(embedding_weights)
    if not isinstance(embedding_weights, list):
        embedding_weights = [embedding_weights]
    if len(embedding_weights) < 1:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    return [w if getattr(w, "_is_resource_variable", False) and dtype in (None, w.dtype)
            else convert_to_tensor(w, dtype=dtype) for w in embedding_weights]


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, name=None,
                                 partition_strategy="div", max_norm=None):
    """The combined embeddings of each row of `sparse_ids` ([d_0, ..., d_n-1, ids]):
    a dense [d_0, ..., d_n-1] + embedding shape tensor.

    Raises:
      ValueError: when embedding_weights is None or empty.
    """
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = _as_weight_list(embedding_weights, dtype)
    with name_scope(name, "embedding_lookup",
                    embedding_weights + [sparse_ids, sparse_weights]) as scope:
        original_shape = sparse_ids.dense_shape
        original_rank_dim = dimension_value(sparse_ids.dense_shape.get_shape()[0])
        original_rank = size(original_shape) if original_rank_dim is None \
            else original_rank_dim
        sparse_ids = sparse_reshape(sparse_ids, [
            reduce_prod(slice_(original_shape, [0], [original_rank - 1])),
            gather(original_shape, original_rank - 1)])
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values,
                                          sparse_ids.dense_shape)
        sparse_ids, sparse_weights = _prune_invalid_ids(sparse_ids, sparse_weights)
        if combiner != "sum":
            sparse_ids, sparse_weights = _prune_invalid_weights(sparse_ids, sparse_weights)
        sparse_ids, is_row_empty = sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(
            embedding_weights, sparse_ids, sparse_weights, combiner=combiner,
            partition_strategy=partition_strategy,
            name=None if default_id is None else scope, max_norm=max_norm)
        if default_id is None:
            is_row_empty = tile(reshape(is_row_empty, [-1, 1]),
                                stack([1, shape(result)[1]]))
            result = where(is_row_empty, zeros_like(result), result, name=scope)
        final_result = reshape(result, concat([
            slice_(cast(original_shape, dtypes.int32), [0], [original_rank - 1]),
            slice_(shape(result), [1], [-1])], 0))
        final_result.set_shape(unknown_shape(
            (Dimension(original_rank_dim) - 1).value).concatenate(result.get_shape()[1:]))
        return final_result
