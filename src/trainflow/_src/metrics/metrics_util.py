"""Building blocks of the streaming metrics: metric variables, input squeezing, the
thresholded confusion counts and the streaming confusion matrix."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import add_to_collections, control_dependencies, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.losses.shape_checks import broadcast_weights, remove_squeezable_dimensions
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops, control_flow_ops
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import state_ops, variables

_ALL_INCLUDES = ("tp", "fn", "tn", "fp")
_COUNT_NAMES = {"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives",
                "fp": "false_positives"}


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A zero-initialised, non-trainable variable in LOCAL_VARIABLES and
    METRIC_VARIABLES (initialise it with `tf.local_variables_initializer()`)."""
    return variables.Variable(
        lambda: array_ops.zeros(shape, dtype), trainable=False,
        collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
        validate_shape=validate_shape, name=name)


def add_to(collections, value):
    """Adds `value` to each collection named in `collections` (None: none)."""
    if collections:
        add_to_collections(collections, value)


def value_and_update(compute, values, updates, metrics_collections, updates_collections):
    """(compute(values, "value"), compute(updates, "update_op")), each added to its
    collections: a metric read from its variables and from their update ops."""
    value = compute(values, "value")
    add_to(metrics_collections, value)
    update_op = compute(updates, "update_op")
    add_to(updates_collections, update_op)
    return value, update_op


def squeeze_inputs(predictions, labels, weights):
    """Squeezes a trailing size-1 axis off labels/predictions whose ranks differ by one
    and brings weights to the predictions' rank (squeeze or expand one axis).

    Returns:
      (predictions, labels, weights) as tensors (labels/weights may be None).

    Raises:
      ValueError: if predictions and labels have incompatible shapes.
    """
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = remove_squeezable_dimensions(labels, predictions)
        predictions.shape.assert_is_compatible_with(labels.shape)
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    w_rank = weights.shape.ndims
    if w_rank == 0:
        return predictions, labels, weights
    p_rank = predictions.shape.ndims
    if p_rank is not None and w_rank is not None:
        if w_rank - p_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
        elif p_rank - w_rank == 1:
            weights = array_ops.expand_dims(weights, [-1])
        return predictions, labels, weights
    w_rank_t = array_ops.rank(weights)
    rank_diff = w_rank_t - array_ops.rank(predictions)
    w = weights
    # A last axis known not to be 1 is never squeezed.
    can_squeeze = w_rank is None or weights.shape.dims[-1].is_compatible_with(1)

    def maybe_expand():
        return cond(math_ops.equal(rank_diff, -1), lambda: array_ops.expand_dims(w, [-1]),
                    lambda: w)

    def maybe_squeeze():
        return array_ops.squeeze(w, [-1]) if can_squeeze else w

    def maybe_adjust():
        return cond(math_ops.equal(rank_diff, 1), maybe_squeeze, maybe_expand)
    weights = cond(math_ops.equal(w_rank_t, 0), lambda: w, maybe_adjust)
    return predictions, labels, weights


def confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None,
                                   includes=None):
    """Streaming true/false positive/negative counts at each threshold: an example is
    predicted positive at threshold t when its prediction is > t.

    Args:
      labels: bool-castable labels, shaped like predictions.
      predictions: floats in [0, 1] (checked by assert ops).
      thresholds: a Python list of floats.
      weights: optional weights broadcastable to predictions.
      includes: the subset of ("tp", "fn", "tn", "fp") to count.

    Returns:
      (values, update_ops): dicts from the include keys to the float32 [len(thresholds)]
      count variables and their AssignAdd update tensors.

    Raises:
      ValueError: for an unknown include key.
    """
    m, a = math_ops, array_ops
    includes = _ALL_INCLUDES if includes is None else includes
    for include in includes:
        if include not in _ALL_INCLUDES:
            raise ValueError(f"Invalid key: {include}")
    predictions = convert_to_tensor(predictions)
    with control_dependencies([
            check_ops.assert_greater_equal(predictions, m.cast(0.0, predictions.dtype),
                                           message="predictions must be in [0, 1]"),
            check_ops.assert_less_equal(predictions, m.cast(1.0, predictions.dtype),
                                        message="predictions must be in [0, 1]")]):
        predictions, labels, weights = squeeze_inputs(
            m.cast(predictions, dtypes.float32), m.cast(labels, dtypes.bool), weights)
    num_thresholds = len(thresholds)
    predictions_2d = a.reshape(predictions, [-1, 1])
    labels_2d = a.reshape(m.cast(labels, dtypes.bool), [1, -1])
    num_predictions = predictions_2d.shape.as_list()[0]
    if num_predictions is None:
        num_predictions = a.shape(predictions_2d)[0]
    thresh_tiled = a.tile(a.expand_dims(convert_to_tensor(list(map(float, thresholds)),
                                                          dtype=dtypes.float32), [1]),
                          a.stack([1, num_predictions]))
    pred_is_pos = m.greater(a.tile(a.transpose(predictions_2d), [num_thresholds, 1]),
                            thresh_tiled)
    pred_is_neg = m.logical_not(pred_is_pos) if ("fn" in includes or "tn" in includes) \
        else None
    label_is_pos = a.tile(labels_2d, [num_thresholds, 1])
    label_is_neg = m.logical_not(label_is_pos) if ("fp" in includes or "tn" in includes) \
        else None
    weights_tiled = None
    if weights is not None:
        weights = broadcast_weights(m.cast(weights, dtypes.float32), predictions)
        weights_tiled = a.tile(a.reshape(weights, [1, -1]), [num_thresholds, 1])
        thresh_tiled.shape.assert_is_compatible_with(weights_tiled.shape)
    conditions = {"tp": (label_is_pos, pred_is_pos), "fn": (label_is_pos, pred_is_neg),
                  "tn": (label_is_neg, pred_is_neg), "fp": (label_is_neg, pred_is_pos)}
    values, update_ops = {}, {}
    for key in _ALL_INCLUDES:
        if key not in includes:
            continue
        var = metric_variable([num_thresholds], dtypes.float32, name=_COUNT_NAMES[key])
        hits = m.cast(m.logical_and(*conditions[key]), dtypes.float32)
        if weights_tiled is not None:
            hits = hits * weights_tiled
        update_ops[key] = state_ops.assign_add(var, m.reduce_sum(hits, 1))
        values[key] = var
    return values, update_ops


def confusion_matrix(labels, predictions, num_classes, weights=None, dtype=dtypes.int32,
                     name=None):
    """The [num_classes, num_classes] confusion matrix (rows: labels, columns:
    predictions) of 1-D class ids, each example counting its weight (default 1).

    Raises:
      InvalidArgumentError (at run time): for negative or out-of-range ids.
    """
    m, a = math_ops, array_ops
    with name_scope(name, "confusion_matrix", [predictions, labels, num_classes, weights]):
        labels, predictions = remove_squeezable_dimensions(
            convert_to_tensor(labels, name="labels"),
            convert_to_tensor(predictions, name="predictions"))
        predictions = m.cast(predictions, dtypes.int64)
        labels = m.cast(labels, dtypes.int64)
        n = m.cast(num_classes, dtypes.int64)
        labels = control_flow_ops.with_dependencies(
            [check_ops.assert_non_negative(labels, message="`labels` contains negative values"),
             check_ops.assert_less(labels, n, message="`labels` out of bound")], labels)
        predictions = control_flow_ops.with_dependencies(
            [check_ops.assert_non_negative(predictions,
                                           message="`predictions` contains negative values"),
             check_ops.assert_less(predictions, n, message="`predictions` out of bound")],
            predictions)
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            predictions.shape.assert_is_compatible_with(weights.shape)
            values = m.cast(weights, dtype)
        else:
            values = a.ones_like(predictions, dtype=dtype)
        indices = a.stack([labels, predictions], axis=1)
        return a.scatter_nd(indices, values, m.cast(a.stack([n, n]), dtypes.int64))


def streaming_confusion_matrix(labels, predictions, num_classes, weights=None):
    """A float64 `total_confusion_matrix` metric variable and the AssignAdd adding this
    batch's confusion matrix to it."""
    m, a = math_ops, array_ops
    total_cm = metric_variable([num_classes, num_classes], dtypes.float64,
                               name="total_confusion_matrix")
    predictions = m.cast(predictions, dtypes.int64)
    labels = m.cast(labels, dtypes.int64)
    if predictions.shape.ndims is not None and predictions.shape.ndims > 1:
        predictions = a.reshape(predictions, [-1])
    if labels.shape.ndims is not None and labels.shape.ndims > 1:
        labels = a.reshape(labels, [-1])
    if weights is not None:
        weights = convert_to_tensor(weights)
        if weights.shape.ndims is not None and weights.shape.ndims > 1:
            weights = a.reshape(weights, [-1])
    current = confusion_matrix(labels, predictions, num_classes, weights=weights,
                               dtype=dtypes.float64)
    return total_cm, state_ops.assign_add(total_cm, current)
