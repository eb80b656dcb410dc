"""Streaming means (`tf.metrics`): mean, mean_tensor, accuracy and the error means.

Each metric makes local variables `<name>/total` and `<name>/count` and returns
`(value, update_op)`: `value` reads total / count (0 before any update), `update_op`
adds a batch and returns the new value. Run `tf.local_variables_initializer()` first.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import control_dependencies
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.losses.shape_checks import broadcast_weights, remove_squeezable_dimensions
from trainflow._src.metrics.metrics_util import (
    add_to, metric_variable, squeeze_inputs, streaming_confusion_matrix)
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import variable_scope as vs
from trainflow._src.ops.state import state_ops

__all__ = ["accuracy", "mean", "mean_absolute_error", "mean_cosine_distance", "mean_iou",
           "mean_per_class_accuracy", "mean_relative_error", "mean_squared_error",
           "mean_tensor", "percentage_below", "root_mean_squared_error"]


def _streaming_mean(values, weights, metrics_collections, updates_collections, name,
                    default_name, shape=None):
    """The shared body of mean and mean_tensor (per-element when `shape` is given)."""
    m, a = math_ops, array_ops
    with vs.variable_scope(name, default_name, [values, weights]):
        values = m.cast(values, dtypes.float32)
        elementwise = shape is not None
        total = metric_variable(values.shape if elementwise else [], dtypes.float32,
                                name="total_tensor" if elementwise else "total")
        count = metric_variable(values.shape if elementwise else [], dtypes.float32,
                                name="count_tensor" if elementwise else "count")
        num_values = a.ones_like(values) if elementwise else None
        if weights is None:
            if not elementwise:
                num_values = m.cast(a.size(values), dtypes.float32)
        else:
            values, _, weights = squeeze_inputs(values, None, weights)
            weights = broadcast_weights(m.cast(weights, dtypes.float32), values)
            values = m.multiply(values, weights)
            num_values = m.multiply(num_values, weights) if elementwise else \
                m.reduce_sum(weights)
        update_total = state_ops.assign_add(total, values if elementwise else
                                            m.reduce_sum(values))
        with control_dependencies([values]):
            update_count = state_ops.assign_add(count, num_values)
        value = m.div_no_nan(total, m.maximum(count, 0), name="value")
        add_to(metrics_collections, value)
        update_op = m.div_no_nan(update_total, m.maximum(update_count, 0), name="update_op")
        add_to(updates_collections, update_op)
        return value, update_op


def mean(values, weights=None, metrics_collections=None, updates_collections=None,
         name=None):
    """The streaming (weighted) mean of `values` (`tf.metrics.mean`).

    Args:
      values: a numeric Tensor.
      weights: None, or broadcastable to `values` (a trailing size-1 axis may differ).
      metrics_collections, updates_collections: collections for the value / update op.
      name: the variable scope (default "mean").

    Returns:
      (mean, update_op), float32 scalars.

    Raises:
      ValueError: if weights don't broadcast to values.
    """
    return _streaming_mean(values, weights, metrics_collections, updates_collections, name,
                           "mean")


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None,
                name=None):
    """The element-wise streaming mean of `values` (`tf.metrics.mean_tensor`); variables
    `<name>/total_tensor`, `count_tensor` have `values`' (fully defined) shape."""
    return _streaming_mean(values, weights, metrics_collections, updates_collections, name,
                           "mean", shape=True)


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """The streaming fraction of predictions equal to labels (`tf.metrics.accuracy`).

    Raises:
      ValueError: if labels and predictions (or weights) have incompatible shapes.
    """
    m = math_ops
    predictions, labels, weights = squeeze_inputs(predictions, labels, weights)
    predictions.shape.assert_is_compatible_with(labels.shape)
    if labels.dtype.base_dtype != predictions.dtype.base_dtype:
        predictions = m.cast(predictions, labels.dtype.base_dtype)
    is_correct = m.cast(m.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections,
                name or "accuracy")


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The streaming mean of |predictions - labels| (`tf.metrics.mean_absolute_error`)."""
    predictions, labels, weights = squeeze_inputs(predictions, labels, weights)
    errors = math_ops.abs(predictions - labels)
    return mean(errors, weights, metrics_collections, updates_collections,
                name or "mean_absolute_error")


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """The streaming mean of (predictions - labels)**2 (`tf.metrics.mean_squared_error`)."""
    predictions, labels, weights = squeeze_inputs(predictions, labels, weights)
    errors = math_ops.squared_difference(labels, predictions)
    return mean(errors, weights, metrics_collections, updates_collections,
                name or "mean_squared_error")


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """sqrt of the streaming mean squared error (`tf.metrics.root_mean_squared_error`)."""
    predictions, labels, weights = squeeze_inputs(predictions, labels, weights)
    mse, update_mse = mean_squared_error(labels, predictions, weights, None, None,
                                         name or "root_mean_squared_error")
    rmse = math_ops.sqrt(mse)
    add_to(metrics_collections, rmse)
    update_op = math_ops.sqrt(update_mse)
    add_to(updates_collections, update_op)
    return rmse, update_op


def mean_relative_error(labels, predictions, normalizer, weights=None,
                        metrics_collections=None, updates_collections=None, name=None):
    """The streaming mean of |labels - predictions| / normalizer, 0 where the normalizer
    is 0 (`tf.metrics.mean_relative_error`)."""
    m, a = math_ops, array_ops
    predictions, labels, weights = squeeze_inputs(predictions, labels, weights)
    predictions, normalizer = remove_squeezable_dimensions(predictions, normalizer)
    predictions.shape.assert_is_compatible_with(normalizer.shape)
    relative = a.where(m.equal(normalizer, 0.0), a.zeros_like(labels),
                       m.divide(m.abs(labels - predictions), normalizer))
    return mean(relative, weights, metrics_collections, updates_collections,
                name or "mean_relative_error")


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """1 - the streaming mean of sum(labels * predictions, dim) for unit-normalised
    inputs (`tf.metrics.mean_cosine_distance`)."""
    m = math_ops
    predictions, labels, weights = squeeze_inputs(predictions, labels, weights)
    radial = m.reduce_sum(m.multiply(predictions, labels), axis=[dim], keepdims=True)
    mean_distance, update_op = mean(radial, weights, None, None,
                                    name or "mean_cosine_distance")
    mean_distance = m.subtract(1.0, mean_distance)
    update_op = m.subtract(1.0, update_op)
    add_to(metrics_collections, mean_distance)
    add_to(updates_collections, update_op)
    return mean_distance, update_op


def percentage_below(values, threshold, weights=None, metrics_collections=None,
                     updates_collections=None, name=None):
    """The streaming fraction of `values` below `threshold` (`tf.metrics.percentage_below`,
    scope "percentage_below_threshold")."""
    m = math_ops
    below = m.cast(m.less(values, threshold), dtypes.float32)
    return mean(below, weights, metrics_collections, updates_collections,
                name or "percentage_below_threshold")


def mean_per_class_accuracy(labels, predictions, num_classes, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """The mean over classes of the streaming per-class accuracy
    (`tf.metrics.mean_per_class_accuracy`, scope "mean_accuracy"; variables `total`
    and `count` are [num_classes])."""
    m, a = math_ops, array_ops
    with vs.variable_scope(name, "mean_accuracy", [predictions, labels, weights]):
        labels = m.cast(labels, dtypes.int64)
        predictions = convert_to_tensor(predictions)
        if labels.shape.ndims is not None and labels.shape.ndims > 1:
            labels = a.reshape(labels, [-1])
        if predictions.shape.ndims is not None and predictions.shape.ndims > 1:
            predictions = a.reshape(predictions, [-1])
        predictions.shape.assert_is_compatible_with(labels.shape)
        total = metric_variable([num_classes], dtypes.float32, name="total")
        count = metric_variable([num_classes], dtypes.float32, name="count")
        ones = a.ones([a.size(labels)], dtypes.float32)
        if labels.dtype.base_dtype != predictions.dtype.base_dtype:
            predictions = m.cast(predictions, labels.dtype.base_dtype)
        is_correct = m.cast(m.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            weights = convert_to_tensor(weights)
            if weights.shape.ndims is not None and weights.shape.ndims > 1:
                weights = a.reshape(weights, [-1])
            weights = m.cast(weights, dtypes.float32)
            is_correct = is_correct * weights
            ones = ones * weights
        update_total = state_ops.scatter_add(total, labels, ones)
        update_count = state_ops.scatter_add(count, labels, is_correct)
        per_class = m.div_no_nan(count, m.maximum(total, 0))
        value = m.reduce_mean(per_class, name="mean_accuracy")
        add_to(metrics_collections, value)
        update_op = m.div_no_nan(update_count, m.maximum(update_total, 0), name="update_op")
        add_to(updates_collections, update_op)
        return value, update_op


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """The mean over classes of the streaming intersection-over-union, from a float64
    `total_confusion_matrix` variable (`tf.metrics.mean_iou`); classes that never occur
    are left out of the mean. The update op returns the confusion matrix."""
    m, a = math_ops, array_ops
    with vs.variable_scope(name, "mean_iou", [predictions, labels, weights]):
        predictions, labels = convert_to_tensor(predictions), convert_to_tensor(labels)
        predictions.shape.assert_is_compatible_with(labels.shape)
        total_cm, update_op = streaming_confusion_matrix(labels, predictions, num_classes,
                                                         weights)
        sum_over_row = m.cast(m.reduce_sum(total_cm, 0), dtypes.float32)
        sum_over_col = m.cast(m.reduce_sum(total_cm, 1), dtypes.float32)
        cm_diag = m.cast(a.diag_part(total_cm), dtypes.float32)
        denominator = sum_over_row + sum_over_col - cm_diag
        num_valid = m.reduce_sum(m.cast(m.not_equal(denominator, 0), dtypes.float32))
        denominator = a.where(m.greater(denominator, 0), denominator,
                              a.ones_like(denominator))
        iou = m.divide(cm_diag, denominator)
        value = a.where(m.greater(num_valid, 0),
                        m.reduce_sum(iou, name="mean_iou") / num_valid, 0)
        add_to(metrics_collections, value)
        add_to(updates_collections, update_op)
        return value, update_op
