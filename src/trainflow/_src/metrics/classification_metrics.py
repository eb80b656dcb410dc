"""Streaming binary-classification metrics (`tf.metrics`): confusion counts, precision,
recall, their thresholded forms, AUC and sensitivity/specificity trade-offs.

`predictions` are bools for the plain counts and floats in [0, 1] for the thresholded
ones (positive when > threshold). Each returns `(value, update_op)`; the counts live
in local variables such as `precision/true_positives/count` or `auc/true_positives`.
"""
from trainflow._src import tf_logging
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import control_dependencies
from trainflow._src.metrics.metrics_util import (
    add_to, confusion_matrix_at_thresholds, metric_variable, squeeze_inputs, value_and_update)
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import variable_scope as vs
from trainflow._src.ops.state import state_ops

__all__ = ["auc", "false_negatives", "false_negatives_at_thresholds", "false_positives",
           "false_positives_at_thresholds", "precision", "precision_at_thresholds", "recall",
           "recall_at_thresholds", "sensitivity_at_specificity", "specificity_at_sensitivity",
           "true_negatives", "true_negatives_at_thresholds", "true_positives",
           "true_positives_at_thresholds"]

_KEPSILON = 1e-7


def _count_condition(values, weights, metrics_collections, updates_collections):
    """A `count` variable summing the (weighted) true entries of bool `values`."""
    m, a = math_ops, array_ops
    check_ops.assert_type(values, dtypes.bool)
    count = metric_variable([], dtypes.float32, name="count")
    values = m.cast(values, dtypes.float32)
    if weights is not None:
        with control_dependencies([check_ops.assert_rank_in(weights, (0, a.rank(values)))]):
            weights = m.cast(weights, dtypes.float32)
            values = m.multiply(values, weights)
    value = a.identity(count)
    add_to(metrics_collections, value)
    update_op = state_ops.assign_add(count, m.reduce_sum(values))
    add_to(updates_collections, update_op)
    return value, update_op


def _counting_metric(default_name, label_value, prediction_value):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        m = math_ops
        with vs.variable_scope(name, default_name, [predictions, labels, weights]):
            predictions, labels, weights = squeeze_inputs(
                m.cast(predictions, dtypes.bool), m.cast(labels, dtypes.bool), weights)
            hit = m.logical_and(m.equal(labels, label_value),
                                m.equal(predictions, prediction_value))
            return _count_condition(hit, weights, metrics_collections, updates_collections)
    metric.__name__ = default_name
    metric.__doc__ = (f"The streaming (weighted) number of {default_name.replace('_', ' ')} "
                      f"(`tf.metrics.{default_name}`): labels == {label_value} and "
                      f"predictions == {prediction_value}.\n\n    Returns:\n      (count, "
                      "update_op), float32 scalars.\n")
    return metric


true_positives = _counting_metric("true_positives", True, True)
false_positives = _counting_metric("false_positives", False, True)
true_negatives = _counting_metric("true_negatives", False, False)
false_negatives = _counting_metric("false_negatives", True, False)


def _at_thresholds_count(key, default_name):
    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with vs.variable_scope(name, default_name, [predictions, labels, weights]):
            values, updates = confusion_matrix_at_thresholds(
                labels, predictions, thresholds, weights=weights, includes=(key,))
            value = array_ops.identity(values[key])
            add_to(metrics_collections, value)
            add_to(updates_collections, updates[key])
            return value, updates[key]
    metric.__name__ = default_name + "_at_thresholds"
    metric.__doc__ = (f"The streaming (weighted) {default_name.replace('_', ' ')} at each "
                      f"threshold (`tf.metrics.{default_name}_at_thresholds`).\n\n"
                      "    Returns:\n      (counts, update_op), float32 [len(thresholds)].\n")
    return metric


true_positives_at_thresholds = _at_thresholds_count("tp", "true_positives")
false_positives_at_thresholds = _at_thresholds_count("fp", "false_positives")
true_negatives_at_thresholds = _at_thresholds_count("tn", "true_negatives")
false_negatives_at_thresholds = _at_thresholds_count("fn", "false_negatives")


def _ratio(num, other, name):
    """num / (num + other), 0 where the sum is 0 (a Select named `name`)."""
    m, a = math_ops, array_ops
    return a.where(m.greater(num + other, 0), m.divide(num, num + other), 0, name)


def _tp_ratio(default_name, other_count, labels, predictions, weights, metrics_collections,
              updates_collections, name):
    """tp / (tp + other) of bool predictions, `other_count` being the metric counting
    false positives (precision) or false negatives (recall)."""
    m = math_ops
    with vs.variable_scope(name, default_name, [predictions, labels, weights]):
        predictions, labels, weights = squeeze_inputs(
            m.cast(predictions, dtypes.bool), m.cast(labels, dtypes.bool), weights)
        tp, tp_update = true_positives(labels, predictions, weights)
        other, other_update = other_count(labels, predictions, weights)
        return value_and_update(lambda pair, suffix: _ratio(*pair, suffix), (tp, other),
                                (tp_update, other_update), metrics_collections,
                                updates_collections)


def precision(labels, predictions, weights=None, metrics_collections=None,
              updates_collections=None, name=None):
    """The streaming precision tp / (tp + fp) of bool predictions (`tf.metrics.precision`).

    Returns:
      (precision, update_op), float32 scalars (0 while tp + fp is 0).
    """
    return _tp_ratio("precision", false_positives, labels, predictions, weights,
                     metrics_collections, updates_collections, name)


def recall(labels, predictions, weights=None, metrics_collections=None,
           updates_collections=None, name=None):
    """The streaming recall tp / (tp + fn) of bool predictions (`tf.metrics.recall`).

    Returns:
      (recall, update_op), float32 scalars (0 while tp + fn is 0).
    """
    return _tp_ratio("recall", false_negatives, labels, predictions, weights,
                     metrics_collections, updates_collections, name)


def _tp_ratio_at_thresholds(kind, other_key, labels, predictions, thresholds, weights,
                            metrics_collections, updates_collections, name):
    """tp / (tp + other + 1e-7) at each threshold, ops named `<kind>_value` and
    `<kind>_update_op` in scope `<kind>_at_thresholds`."""
    m = math_ops
    with vs.variable_scope(name, kind + "_at_thresholds", [predictions, labels, weights]):
        values, updates = confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                         weights, includes=("tp", other_key))

        def compute(counts, suffix):
            tp, other = counts["tp"], counts[other_key]
            return m.divide(tp, _KEPSILON + tp + other, name=f"{kind}_{suffix}")
        return value_and_update(compute, values, updates, metrics_collections,
                                updates_collections)


def precision_at_thresholds(labels, predictions, thresholds, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """tp / (tp + fp + 1e-7) at each threshold (`tf.metrics.precision_at_thresholds`)."""
    return _tp_ratio_at_thresholds("precision", "fp", labels, predictions, thresholds, weights,
                                   metrics_collections, updates_collections, name)


def recall_at_thresholds(labels, predictions, thresholds, weights=None,
                         metrics_collections=None, updates_collections=None, name=None):
    """tp / (tp + fn + 1e-7) at each threshold (`tf.metrics.recall_at_thresholds`)."""
    return _tp_ratio_at_thresholds("recall", "fn", labels, predictions, thresholds, weights,
                                   metrics_collections, updates_collections, name)


def _evenly_spaced_thresholds(num_thresholds, last):
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _KEPSILON] + inner + [last]


def _interpolate_pr_auc(tp, fp, fn, n):
    """PR-AUC by interpolating precision linearly in the true-positive count between
    thresholds (Davis & Goadrich 2006), the "careful_interpolation" method."""
    m, a = math_ops, array_ops
    dtp = tp[:n - 1] - tp[1:]
    p = tp + fp
    prec_slope = m.div_no_nan(dtp, m.maximum(p[:n - 1] - p[1:], 0), name="prec_slope")
    intercept = tp[1:] - m.multiply(prec_slope, p[1:])
    safe_p_ratio = a.where(
        m.logical_and(p[:n - 1] > 0, p[1:] > 0),
        m.div_no_nan(p[:n - 1], m.maximum(p[1:], 0), name="recall_relative_ratio"),
        a.ones_like(p[1:]))
    increments = m.div_no_nan(prec_slope * (dtp + intercept * m.log(safe_p_ratio)),
                              m.maximum(tp[1:] + fn[1:], 0), name="pr_auc_increment")
    return m.reduce_sum(increments, name="interpolate_pr_auc")


def _compute_auc(tp, fn, tn, fp, n, curve, summation_method, name):
    m = math_ops
    if curve == "PR" and summation_method == "careful_interpolation":
        return _interpolate_pr_auc(tp, fp, fn, n)
    epsilon = 1.0e-6
    rec = m.divide(tp + epsilon, tp + fn + epsilon)
    if curve == "ROC":
        x, y = m.divide(fp, fp + tn + epsilon), rec
    else:
        x, y = rec, m.divide(tp + epsilon, tp + fp + epsilon)
    if summation_method in ("trapezoidal", "careful_interpolation"):
        heights = (y[:n - 1] + y[1:]) / 2.0
    elif summation_method == "minoring":
        heights = m.minimum(y[:n - 1], y[1:])
    else:
        heights = m.maximum(y[:n - 1], y[1:])
    return m.reduce_sum(m.multiply(x[:n - 1] - x[1:], heights), name=name)


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None):
    """The streaming area under the ROC or PR curve, from tp/fn/tn/fp counts at
    `num_thresholds` evenly spaced thresholds (`tf.metrics.auc`).

    Args:
      labels: bool-castable labels.
      predictions: floats in [0, 1].
      weights: optional weights broadcastable to predictions.
      num_thresholds: number of thresholds (the first just below 0, the last just
        above 1).
      curve: "ROC" or "PR".
      summation_method: "trapezoidal", "careful_interpolation" (PR: interpolated
        precision; ROC: trapezoidal), "minoring" or "majoring" (Riemann sums from
        below / above).
      thresholds: explicit thresholds in (0, 1), overriding num_thresholds.
      metrics_collections, updates_collections, name: as the other metrics.

    Returns:
      (auc, update_op), float32 scalars.

    Raises:
      ValueError: for an unknown curve or summation method.
    """
    with vs.variable_scope(name, "auc", [labels, predictions, weights]):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        if summation_method not in ("trapezoidal", "careful_interpolation", "minoring",
                                    "majoring"):
            raise ValueError(f"Invalid summation_method: {summation_method} summation_method "
                             "should be 'trapezoidal', 'careful_interpolation', 'minoring', "
                             "or 'majoring'.")
        if curve == "PR" and summation_method == "trapezoidal":
            tf_logging.warning("Trapezoidal rule is known to produce incorrect PR-AUCs; "
                               'please switch to "careful_interpolation" instead.')
        if thresholds is not None:
            inner = sorted(thresholds)
            num_thresholds = len(inner) + 2
            thresholds = [0.0 - _KEPSILON] + inner + [1.0 + _KEPSILON]
        else:
            thresholds = _evenly_spaced_thresholds(num_thresholds, 1.0 + _KEPSILON)
        values, updates = confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                         weights)

        def compute(counts, name):
            return _compute_auc(counts["tp"], counts["fn"], counts["tn"], counts["fp"],
                                num_thresholds, curve, summation_method, name)
        return value_and_update(compute, values, updates, metrics_collections,
                                updates_collections)


def sensitivity_at_specificity(labels, predictions, specificity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The streaming sensitivity (recall) at the threshold whose specificity is closest
    to `specificity` (`tf.metrics.sensitivity_at_specificity`).

    Raises:
      ValueError: if specificity is outside [0, 1].
    """
    if specificity < 0 or specificity > 1:
        raise ValueError("`specificity` must be in the range [0, 1]. Currently, "
                         f"`specificity` got {specificity}.")
    m = math_ops
    with vs.variable_scope(name, "sensitivity_at_specificity",
                           [predictions, labels, weights]):
        thresholds = _evenly_spaced_thresholds(num_thresholds, 1.0 + _KEPSILON)
        values, updates = confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                         weights)

        def compute(counts, name):
            tp, tn, fp, fn = (counts[k] for k in ("tp", "tn", "fp", "fn"))
            specificities = m.divide(tn, tn + fp + _KEPSILON)
            index = m.cast(m.argmin(m.abs(specificities - specificity), 0), dtypes.int32)
            return m.divide(tp[index], tp[index] + fn[index] + _KEPSILON, name)
        return value_and_update(compute, values, updates, metrics_collections,
                                updates_collections)


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The streaming specificity at the (last) threshold whose sensitivity is closest to
    `sensitivity` (`tf.metrics.specificity_at_sensitivity`).

    Raises:
      ValueError: if sensitivity is outside [0, 1].
    """
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError("`sensitivity` must be in the range [0, 1]. Currently, "
                         f"`sensitivity` is {sensitivity}.")
    m = math_ops
    with vs.variable_scope(name, "specificity_at_sensitivity",
                           [predictions, labels, weights]):
        thresholds = _evenly_spaced_thresholds(num_thresholds, 1.0 - _KEPSILON)
        values, updates = confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                         weights)

        def compute(counts, name):
            tp, tn, fp, fn = (counts[k] for k in ("tp", "tn", "fp", "fn"))
            sensitivities = m.divide(tp, tp + fn + _KEPSILON)
            gap = m.abs(sensitivities - sensitivity)
            at_min = m.cast(m.equal(gap, m.reduce_min(gap)), dtypes.int64)
            index = m.cast(m.argmax(m.cumsum(at_min), 0), dtypes.int32)
            return m.divide(tn[index], tn[index] + fp[index] + _KEPSILON, name)
        return value_and_update(compute, values, updates, metrics_collections,
                                updates_collections)
