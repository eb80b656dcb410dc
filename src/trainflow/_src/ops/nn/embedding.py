"""Embedding lookups of `tf.nn`: embedding_lookup over one tensor/Variable, a list of
shards or a PartitionedVariable ("mod" and "div" sharding), with max_norm
clipping, and embedding_lookup_sparse with the sum/mean/sqrtn combiners.

The lookups are Gather ops, so the gradient with respect to the params is an
IndexedSlices that touches only the looked-up rows.
"""
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.ops.array import cast, gather, identity, join, shape
from trainflow._src.ops.math import arith, reductions, segment
from trainflow._src.ops.array import create
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import colocate_with, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import dimension_value
from trainflow._src.ops.data_flow import partition

__all__ = ["embedding_lookup", "embedding_lookup_sparse"]


def _as_param_list(params):
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if hasattr(params, "_get_variable_list"):  # a PartitionedVariable
        params = list(params)
    if not isinstance(params, (list, tuple)):
        params = [params]
    return list(params)


def _clip_by_norm(t, clip_norm, axes):
    """t * clip_norm / max(||t||_axes, clip_norm), with TensorFlow's clip_by_norm names."""
    with name_scope(None, "clip_by_norm", [t, clip_norm]) as name:
        values = convert_to_tensor(t, name="t")
        l2sum = reductions.reduce_sum(arith.multiply(values, values, name="mul"), axes,
                                    keepdims=True)
        positive = arith.greater(l2sum, convert_to_tensor(0, dtype=l2sum.dtype.base_dtype))
        # Guard the sqrt against zero so its gradient stays finite.
        safe = gather.where(positive, l2sum, create.ones_like(l2sum))
        l2norm = gather.where(positive, arith.sqrt(safe), l2sum)
        clip = convert_to_tensor(clip_norm, dtype=values.dtype.base_dtype)
        scaled = arith.multiply(values, clip, name="mul")
        out = arith.truediv(scaled, arith.maximum(l2norm, clip))
        return identity.identity(out, name=name)


def _clip(params, ids, max_norm):
    """Clips each looked-up embedding (the axes after ids' axes) to L2 norm `max_norm`."""
    if max_norm is None:
        return params
    ids_rank, params_rank = ids.shape.ndims, params.shape.ndims
    if ids_rank is not None and params_rank is not None:
        axes = list(range(ids_rank, params_rank))
    else:
        axes = create.range(shape.rank(ids), shape.rank(params))
    return _clip_by_norm(params, max_norm, axes)


def _partition_assignments(flat_ids, params, partition_strategy):
    """(partition of each id, id within its partition) for "mod" or "div" sharding."""
    n = len(params)
    if partition_strategy == "mod":
        return arith.floormod(flat_ids, n), arith.floordiv(flat_ids, n)
    if partition_strategy != "div":
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}."
                         "Must be one of either `mod` or `div`.")
    sizes = [dimension_value(p.shape[0]) if p.shape.ndims else None for p in params]
    id_dtype = flat_ids.dtype.base_dtype
    if all(s is not None for s in sizes):
        total = convert_to_tensor(sum(sizes), dtype=id_dtype)
    else:
        dims = []
        for p, s in zip(params, sizes):
            if s is not None:
                dims.append(s)
            else:
                with colocate_with(p.op):
                    dims.append(shape.shape(p)[0])
        total = reductions.reduce_sum(cast.cast(join.stack(dims), id_dtype))
    # The first `extras` shards hold one id more than the others.
    per_shard = arith.floordiv(total, n)
    extras = arith.floormod(total, n)
    big = arith.add(per_shard, 1)
    shard = arith.maximum(arith.floordiv(flat_ids, big),
                             arith.floordiv(arith.subtract(flat_ids, extras), per_shard))
    local = gather.where(arith.less(shard, extras), arith.floormod(flat_ids, big),
                            arith.floormod(arith.subtract(flat_ids, extras), per_shard))
    return shard, local


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None):
    """Looks up the rows `ids` of `params` (`tf.nn.embedding_lookup`).

    Args:
      params: a Tensor or Variable, a list of shards (tensors/Variables sharing all
        but the first dimension), or a PartitionedVariable.
      ids: an int32/int64 Tensor of ids.
      partition_strategy: with several shards, "mod" (id i lives in shard i % n at
        row i // n) or "div" (contiguous ranges, the first shards one row longer when
        the total does not divide evenly).
      name: the name scope (default "embedding_lookup").
      validate_indices: unused (ids are always checked, as on TensorFlow's CPU).
      max_norm: if set, each embedding is clipped to this L2 norm.

    Returns:
      a Tensor of shape ids.shape + params.shape[1:].

    Raises:
      ValueError: for empty params or an unknown partition strategy.
    """
    params = _as_param_list(params)
    with name_scope(name, "embedding_lookup", params + [ids]) as name:
        n = len(params)
        if not any(getattr(p, "_is_resource_variable", False) for p in params):
            # Resource variables stay variables: gathering one reads only the rows
            # (ResourceGather), not the whole table.
            params = [convert_to_tensor(p, name="params") for p in params]
        ids = convert_to_tensor(ids, name="ids")
        if n == 1:
            with colocate_with(params[0].op):
                result = _clip(gather.gather(params[0], ids, name=name), ids, max_norm)
            return identity.identity(result)
        flat_ids = shape.reshape(ids, [-1])
        positions = create.range(shape.size(flat_ids))
        shard, local = _partition_assignments(flat_ids, params, partition_strategy)
        shard = cast.cast(shard, dtypes.int32)
        shard_ids = partition.dynamic_partition(local, shard, n)
        shard_positions = partition.dynamic_partition(positions, shard, n)
        pieces = []
        for p in range(n):
            with colocate_with(params[p].op):
                pieces.append(gather.gather(params[p], shard_ids[p]))
        ret = partition.parallel_dynamic_stitch(shard_positions, pieces, name=name)
        element_shape = params[0].shape[1:]
        for p in params[1:]:
            element_shape = element_shape.merge_with(p.shape[1:])
        if element_shape.is_fully_defined():
            element_dims = element_shape.as_list()
        else:
            with colocate_with(params[0].op):
                element_dims = shape.shape(params[0])[1:]
        ret = shape.reshape(ret, join.concat([shape.shape(ids), element_dims], 0))
        ret.set_shape(ids.shape.concatenate(element_shape))
        return _clip(ret, ids, max_norm)


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None,
                            combiner=None, max_norm=None):
    """Combines the embeddings of the ids in each row of a SparseTensor
    (`tf.nn.embedding_lookup_sparse`).

    Args:
      params: as in `embedding_lookup`.
      sp_ids: a SparseTensor of int64 ids, [batch, max_ids]; rows are segments.
      sp_weights: a SparseTensor of float weights with sp_ids' indices, or None for
        weight 1 everywhere.
      partition_strategy: "mod" or "div" (see `embedding_lookup`).
      name: the name scope (default "embedding_lookup_sparse").
      combiner: "sum", "mean" (default; the weighted mean) or "sqrtn" (the weighted
        sum divided by the root of the sum of squared weights).
      max_norm: clip each embedding to this L2 norm before combining.

    Returns:
      a dense Tensor [max row id + 1] + params.shape[1:].

    Raises:
      TypeError: if sp_ids / sp_weights are not SparseTensors.
      ValueError: for an unknown combiner.
    """
    if combiner is None:
        combiner = "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    params = _as_param_list(params)
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    if sp_weights is not None:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError(f"sp_weights must be either None or SparseTensor, got "
                            f"{type(sp_weights)}")
        sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
        sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
        sp_ids.dense_shape.shape.assert_is_compatible_with(sp_weights.dense_shape.shape)
    with name_scope(name, "embedding_lookup_sparse", params + [sp_ids]) as name:
        segment_ids = cast.cast(sp_ids.indices[:, 0], dtypes.int32)
        ids, idx = gather.unique(sp_ids.values)
        embeddings = embedding_lookup(params, ids, partition_strategy=partition_strategy,
                                      max_norm=max_norm)
        embeddings = gather.gather(embeddings, idx)
        original_dtype = embeddings.dtype.base_dtype
        if original_dtype in (dtypes.float16, dtypes.bfloat16):
            embeddings = cast.cast(embeddings, dtypes.float32)
        compute_dtype = embeddings.dtype.base_dtype
        if sp_weights is None:
            weights = create.ones_like(segment_ids, dtype=compute_dtype)
        else:
            weights = cast.cast(sp_weights.values, compute_dtype)
        # Weights become [n, 1, ..., 1] so they scale whole embeddings.
        ones = create.ones(shape.expand_dims(shape.rank(embeddings) - 1, 0),
                              dtype=dtypes.int32)
        flat_shape = weights.shape
        weights = shape.reshape(
            weights, join.concat([shape.shape(weights), ones], 0))
        if embeddings.shape.ndims is not None:
            weights.set_shape(flat_shape.concatenate([1] * (embeddings.shape.ndims - 1)))
        embeddings = arith.multiply(embeddings, weights)
        if combiner == "sum":
            out = segment.segment_sum(embeddings, segment_ids, name=name)
        else:
            summed = segment.segment_sum(embeddings, segment_ids)
            if combiner == "mean":
                norm = segment.segment_sum(weights, segment_ids)
            else:
                norm = arith.sqrt(segment.segment_sum(arith.square(weights),
                                                          segment_ids))
            out = arith.div_no_nan(summed, norm, name=name)
        if out.dtype.base_dtype != original_dtype:
            out = cast.cast(out, original_dtype)
        return out

