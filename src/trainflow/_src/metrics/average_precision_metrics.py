"""`tf.metrics.average_precision_at_k` (and its older name
`sparse_average_precision_at_k`): the streaming mean over rows of the average precision
of the top-k classes, sum over relevant ranks i of precision@i / min(k, #labels).

Local variables, as TF names them: `<scope>/max` (the weight seen) and `<scope>/total`
(the weighted sum of average precisions), both float64.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import (
    SparseTensor, SparseTensorValue, convert_to_tensor_or_sparse_tensor)
from trainflow._src.losses.shape_checks import broadcast_weights
from trainflow._src.metrics.metrics_util import add_to, metric_variable
from trainflow._src.metrics.top_k_metrics import _at_k_name, _expand_labels, _true_positives
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.math.argmax_scan import cumsum
from trainflow._src.ops.nn import nn_ops
from trainflow._src.ops.sparse import sets
from trainflow._src.ops.sparse.sparse_concat import sparse_concat
from trainflow._src.ops.sparse.sparse_reshape import sparse_reshape
from trainflow._src.ops.state import state_ops

__all__ = ["average_precision_at_k", "sparse_average_precision_at_k"]


def _expand_and_tile(tensor, multiple, dim=0, name=None):
    """`tensor` with a new axis before `dim` (counted from the end when negative),
    repeated `multiple` times along it.

    Raises:
      ValueError: for multiple < 1.
    """
    if multiple < 1:
        raise ValueError(f"Invalid argument multiple={multiple} for expand_and_tile  call. "
                         "`multiple` must be an integer > 0")
    with name_scope(name, "expand_and_tile", (tensor, multiple, dim)) as scope:
        tensor = convert_to_tensor_or_sparse_tensor(tensor)
        if isinstance(tensor, SparseTensor):
            if dim < 0:
                at = array_ops.reshape(array_ops.size(tensor.dense_shape) + dim, [1])
            else:
                at = [dim]
            shape = array_ops.concat((array_ops.slice(tensor.dense_shape, [0], at), [1],
                                      array_ops.slice(tensor.dense_shape, at, [-1])), 0,
                                     name="expanded_shape")
            expanded = sparse_reshape(tensor, shape, name="expand")
            if multiple == 1:
                return expanded
            return sparse_concat(dim - 1 if dim < 0 else dim, [expanded] * multiple,
                                 name=scope)
        expanded = array_ops.expand_dims(tensor, dim if dim >= 0 else dim - 1,
                                         name="expand")
        if multiple == 1:
            return expanded
        ones = array_ops.ones_like(array_ops.shape(tensor))
        multiples = array_ops.concat((ones[:dim], (multiple,), ones[dim:]), 0,
                                     name="multiples")
        return array_ops.tile(expanded, multiples, name=scope)


def _num_relevant(labels, k):
    """min(k, the number of labels) per row (dense labels: the ids >= 0)."""
    if k < 1:
        raise ValueError(f"Invalid k={k}")
    with name_scope(None, "num_relevant", (labels,)) as scope:
        labels = convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, SparseTensor):
            return math_ops.minimum(sets.set_size(labels), k, name=scope)
        count = math_ops.reduce_sum(
            array_ops.where_v2(math_ops.greater_equal(labels, 0), array_ops.ones_like(labels),
                               array_ops.zeros_like(labels)), axis=-1)
        return math_ops.minimum(count, k, name=scope)


def _average_precision_per_row(labels, predictions_idx):
    with name_scope(None, "average_precision", (predictions_idx, labels)) as scope:
        predictions_idx = math_ops.cast(predictions_idx, dtypes.int64, name="predictions_idx")
        if predictions_idx.shape.ndims == 0:
            raise ValueError("The rank of `predictions_idx` must be at least 1.")
        k = predictions_idx.shape.as_list()[-1]
        if k is None:
            raise ValueError("The last dimension of predictions_idx must be set. "
                             "Currently, it is None.")
        labels = _expand_labels(labels, predictions_idx)
        idx_per_k = array_ops.expand_dims(predictions_idx, -1, name="predictions_idx_per_k")
        labels_per_k = _expand_and_tile(labels, multiple=k, dim=-1, name="labels_per_k")
        with name_scope(None, "relevant_per_k"):
            relevant = _true_positives(labels_per_k, idx_per_k)
        tp_per_k = cumsum(relevant, axis=-1, name="tp_per_k")
        retrieved_per_k = cumsum(array_ops.ones_like(relevant), axis=-1,
                                 name="retrieved_per_k")
        precision_per_k = math_ops.divide(math_ops.cast(tp_per_k, dtypes.float64),
                                          math_ops.cast(retrieved_per_k, dtypes.float64),
                                          name="precision_per_k")
        relevant_precision = math_ops.multiply(precision_per_k,
                                               math_ops.cast(relevant, dtypes.float64),
                                               name="relevant_precision_per_k")
        precision_sum = math_ops.reduce_sum(relevant_precision, axis=(-1,),
                                            name="precision_sum")
        relevant_items = math_ops.cast(_num_relevant(labels, k), dtypes.float64)
        return math_ops.divide(precision_sum, relevant_items, name=scope)


def _clean_out_of_range(labels, num_classes):
    """Labels with ids >= num_classes replaced by -1 (no label)."""
    sparse = isinstance(labels, (SparseTensor, SparseTensorValue))

    def clean(values):
        return array_ops.where_v2(math_ops.greater_equal(values, num_classes),
                                  -1 * array_ops.ones_like(values), values)

    def cleaned():
        if sparse:
            return type(labels)(indices=labels.indices, values=clean(labels.values),
                                dense_shape=labels.dense_shape)
        return clean(labels)

    largest = math_ops.reduce_max(labels.values if sparse else labels)
    return cond(math_ops.greater_equal(largest, num_classes), cleaned, lambda: labels)


def _streaming_average_precision(labels, predictions_idx, weights, metrics_collections,
                                 updates_collections, name):
    with name_scope(name, "average_precision_at_top_k",
                    (predictions_idx, labels, weights)) as scope:
        average_precision = _average_precision_per_row(labels, predictions_idx)
        if weights is not None:
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float64),
                                        average_precision)
            average_precision = math_ops.multiply(average_precision, weights)
        with name_scope(None, "max", (average_precision,)) as max_scope:
            max_var = metric_variable([], dtypes.float64, name=max_scope)
            if weights is None:
                batch_max = math_ops.cast(array_ops.size(average_precision, name="batch_max"),
                                          dtypes.float64)
            else:
                batch_max = math_ops.reduce_sum(weights, name="batch_max")
            max_update = state_ops.assign_add(max_var, batch_max, name="update")
        with name_scope(None, "total", (average_precision,)) as total_scope:
            total_var = metric_variable([], dtypes.float64, name=total_scope)
            batch_total = math_ops.reduce_sum(average_precision, name="batch_total")
            total_update = state_ops.assign_add(total_var, batch_total, name="update")
        metric = math_ops.div_no_nan(total_var, max_var, name="mean")
        add_to(metrics_collections, metric)
        update = math_ops.div_no_nan(total_update, max_update, name=scope)
        add_to(updates_collections, update)
        return metric, update


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                           updates_collections=None, name=None):
    """Streaming mean average precision of the k highest-scoring classes of
    `predictions` [..., num_classes] against class-id `labels`; label ids >=
    num_classes count as none. Returns (mean_average_precision, update_op).

    Raises:
      ValueError: for k < 1.
    """
    if k < 1:
        raise ValueError(f"Invalid k={k}. `k` should be >= 1.")
    with name_scope(name, _at_k_name("average_precision", k),
                    (predictions, labels, weights)) as scope:
        _, predictions_idx = nn_ops.top_k(predictions, k)
        labels = _clean_out_of_range(
            labels, math_ops.cast(array_ops.shape(predictions)[-1], dtypes.int64))
        return _streaming_average_precision(labels, predictions_idx, weights,
                                            metrics_collections, updates_collections, scope)


def sparse_average_precision_at_k(labels, predictions, k, weights=None,
                                  metrics_collections=None, updates_collections=None,
                                  name=None):
    """TF's older name of `average_precision_at_k`."""
    return average_precision_at_k(labels, predictions, k, weights=weights,
                                  metrics_collections=metrics_collections,
                                  updates_collections=updates_collections, name=name)
