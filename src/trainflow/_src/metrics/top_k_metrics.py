"""`tf.metrics`' ranking metrics over class ids: recall/precision at k (from scores or
from the top-k ids), and mean average precision at k.

Labels are class ids, dense [batch, ..., num_labels] (a trailing axis is added when
they have one axis less than the predictions; ids < 0 or out of range count as no
label) or a SparseTensor. Counts are float64 local variables named as TF names them
(`recall_at_5/true_positive_at_5`, `average_precision_at_3/max` ...).
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.sparse_tensor import (
    SparseTensor, convert_to_tensor_or_sparse_tensor)
from trainflow._src.losses.shape_checks import assert_broadcastable
from trainflow._src.metrics.metrics_util import add_to, metric_variable
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.nn import nn_ops
from trainflow._src.ops.sparse import sets
from trainflow._src.ops.sparse.sparse_compose import sparse_retain
from trainflow._src.ops.sparse.sparse_reshape import sparse_reshape
from trainflow._src.ops.state import state_ops

__all__ = ["precision_at_k", "precision_at_top_k", "recall_at_k", "recall_at_top_k",
           "sparse_precision_at_k"]


def _at_k_name(name, k=None, class_id=None):
    name = f"{name}_at_k" if k is None else f"{name}_at_{k}"
    return name if class_id is None else f"{name}_class{class_id}"


def _expand_labels(labels, predictions):
    """Labels with a trailing axis added when they have one axis less than predictions.

    Raises:
      ValueError: for static ranks that differ otherwise.
    """
    with name_scope(None, "expand_labels", (labels, predictions)) as scope:
        labels = convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, SparseTensor):
            return cond(math_ops.equal(array_ops.rank(predictions),
                                       array_ops.size(labels.dense_shape) + 1),
                        lambda: sparse_reshape(labels, array_ops.concat(
                            (labels.dense_shape, (1,)), 0), name=scope),
                        lambda: labels)
        labels_rank, predictions_rank = labels.shape.ndims, predictions.shape.ndims
        if labels_rank is not None and predictions_rank is not None:
            if predictions_rank == labels_rank:
                return labels
            if predictions_rank == labels_rank + 1:
                return array_ops.expand_dims(labels, -1, name=scope)
            raise ValueError(f"Unexpected labels shape {labels.shape} for predictions "
                             f"shape {predictions.shape}. Predictions rank should be the "
                             "same rank as labels rank or labels rank plus one .")
        return cond(math_ops.equal(array_ops.rank(predictions), array_ops.rank(labels) + 1),
                    lambda: array_ops.expand_dims(labels, -1, name=scope), lambda: labels)


def _select_class_id(ids, selected_id):
    """The entries of `ids` equal to `selected_id`, as a SparseTensor of ids' shape."""
    ids = convert_to_tensor_or_sparse_tensor(ids)
    if isinstance(ids, SparseTensor):
        return sparse_retain(ids, math_ops.equal(ids.values, selected_id))
    ids_shape = array_ops.shape(ids, out_type=dtypes.int64)
    filled_shape = array_ops.concat([ids_shape[:-1], [1]], 0)
    filled = array_ops.fill(filled_shape, math_ops.cast(selected_id, dtypes.int64))
    result = sets.set_intersection(filled, ids)
    return SparseTensor(indices=result.indices, values=result.values, dense_shape=ids_shape)


def _per_row_count(set_fn, labels, predictions_idx, class_id, weights, default_name):
    """set_size(set_fn(predictions_idx, labels)) per row as float64, times weights."""
    with name_scope(None, default_name, (predictions_idx, labels, weights)):
        if class_id is not None:
            labels = _select_class_id(labels, class_id)
            predictions_idx = _select_class_id(predictions_idx, class_id)
        count = math_ops.cast(sets.set_size(set_fn(predictions_idx, labels)), dtypes.float64)
        if weights is not None:
            with control_dependencies((assert_broadcastable(weights, count),)):
                count = math_ops.multiply(count, math_ops.cast(weights, dtypes.float64))
        return count


def _true_positives(labels, predictions_idx, class_id=None, weights=None):
    return _per_row_count(sets.set_intersection, labels, predictions_idx, class_id, weights,
                          "true_positives")


def _false_negatives(labels, predictions_idx, class_id=None, weights=None):
    return _per_row_count(lambda p, la: sets.set_difference(p, la, aminusb=False), labels,
                          predictions_idx, class_id, weights, "false_negatives")


def _false_positives(labels, predictions_idx, class_id=None, weights=None):
    return _per_row_count(lambda p, la: sets.set_difference(p, la, aminusb=True), labels,
                          predictions_idx, class_id, weights, "false_positives")


def _streaming_count(count_fn, stem, labels, predictions_idx, k, class_id, weights):
    """(float64 total variable, its assign_add update) of count_fn's per-row counts."""
    with name_scope(None, _at_k_name(stem, k, class_id),
                    (predictions_idx, labels, weights)) as scope:
        counts = count_fn(labels, predictions_idx, class_id, weights)
        batch_total = math_ops.cast(math_ops.reduce_sum(counts), dtypes.float64)
        var = metric_variable([], dtypes.float64, name=scope)
        return var, state_ops.assign_add(var, batch_total, name="update")


def _ratio_at_top_k(kind, other_fn, other_stem, labels, predictions_idx, k, class_id,
                    weights, metrics_collections, updates_collections, name):
    with name_scope(name, _at_k_name(kind, k, class_id),
                    (predictions_idx, labels, weights)) as scope:
        labels = _expand_labels(labels, predictions_idx)
        top_k_idx = math_ops.cast(predictions_idx, dtypes.int64)
        tp, tp_update = _streaming_count(_true_positives, "true_positive", labels,
                                         top_k_idx, k, class_id, weights)
        other, other_update = _streaming_count(other_fn, other_stem, labels, top_k_idx, k,
                                               class_id, weights)
        metric = math_ops.divide(tp, math_ops.add(tp, other), name=scope)
        add_to(metrics_collections, metric)
        update = math_ops.divide(tp_update, math_ops.add(tp_update, other_update),
                                 name="update")
        add_to(updates_collections, update)
        return metric, update


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                    metrics_collections=None, updates_collections=None, name=None):
    """Streaming recall of top-k ids `predictions_idx` [..., k] against `labels`:
    true positives / (true positives + false negatives), over all labels or only
    `class_id`. Returns (recall, update_op)."""
    return _ratio_at_top_k("recall", _false_negatives, "false_negative", labels,
                           predictions_idx, k, class_id, weights, metrics_collections,
                           updates_collections, name)


def recall_at_k(labels, predictions, k, class_id=None, weights=None,
                metrics_collections=None, updates_collections=None, name=None):
    """`recall_at_top_k` of the k highest-scoring classes of `predictions`
    [..., num_classes] (`tf.metrics.recall_at_k`)."""
    with name_scope(name, _at_k_name("recall", k, class_id),
                    (predictions, labels, weights)) as scope:
        _, top_k_idx = nn_ops.top_k(predictions, k)
        return recall_at_top_k(labels, top_k_idx, k=k, class_id=class_id, weights=weights,
                               metrics_collections=metrics_collections,
                               updates_collections=updates_collections, name=scope)


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                       metrics_collections=None, updates_collections=None, name=None):
    """Streaming precision of top-k ids `predictions_idx` [..., k] against `labels`:
    true positives / (true positives + false positives). Returns (precision, update_op)."""
    return _ratio_at_top_k("precision", _false_positives, "false_positive", labels,
                           predictions_idx, k, class_id, weights, metrics_collections,
                           updates_collections, name)


def precision_at_k(labels, predictions, k, class_id=None, weights=None,
                   metrics_collections=None, updates_collections=None, name=None):
    """`precision_at_top_k` of the k highest-scoring classes of `predictions`
    [..., num_classes] (`tf.metrics.precision_at_k`)."""
    with name_scope(name, _at_k_name("precision", k, class_id),
                    (predictions, labels, weights)) as scope:
        _, top_k_idx = nn_ops.top_k(predictions, k)
        return precision_at_top_k(labels, top_k_idx, k=k, class_id=class_id,
                                  weights=weights, metrics_collections=metrics_collections,
                                  updates_collections=updates_collections, name=scope)


def sparse_precision_at_k(labels, predictions, k, class_id=None, weights=None,
                          metrics_collections=None, updates_collections=None, name=None):
    """TF's older name of `precision_at_k`."""
    return precision_at_k(labels, predictions, k, class_id=class_id, weights=weights,
                          metrics_collections=metrics_collections,
                          updates_collections=updates_collections, name=name)
