"""`tf.losses` loss functions (TF1): weighted, reduced and added to LOSSES.

Every loss takes `weights` (a scalar, or a tensor broadcastable to the per-element
losses: each dimension 1 or equal), builds its ops under a `<loss name>/` scope, then
`compute_weighted_loss` multiplies by the weights and reduces as `reduction` says;
the default SUM_BY_NONZERO_WEIGHTS divides the weighted sum by the number of
elements whose weight is not zero (`<loss name>/value`, 0 when there are none).
Inputs are cast to float32; a loss is added to `loss_collection` (default LOSSES).
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.losses import util
from trainflow._src.losses.shape_checks import (
    assert_broadcastable, broadcast_weights, remove_squeezable_dimensions)
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.nn import nn_ops

__all__ = ["Reduction", "absolute_difference", "compute_weighted_loss", "cosine_distance",
           "hinge_loss", "huber_loss", "log_loss", "mean_pairwise_squared_error",
           "mean_squared_error", "sigmoid_cross_entropy", "softmax_cross_entropy",
           "sparse_softmax_cross_entropy"]

_LOSSES = GraphKeys.LOSSES


class Reduction:
    """How `compute_weighted_loss` reduces the weighted losses (`tf.losses.Reduction`).

    NONE: no reduction (same shape as the losses). SUM: the weighted sum. MEAN: the
    weighted sum over the sum of the weights. SUM_OVER_BATCH_SIZE: the weighted sum
    over the number of elements. SUM_BY_NONZERO_WEIGHTS (= SUM_OVER_NONZERO_WEIGHTS,
    the default): the weighted sum over the number of non-zero weights.
    """

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        """Every reduction key."""
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        """Raises ValueError for an unknown reduction key."""
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of {cls.all()}.")


def _safe_mean(losses, num_present):
    m = math_ops
    return m.div_no_nan(m.reduce_sum(losses), num_present, name="value")


def _num_elements(losses):
    with name_scope(None, "num_elements", [losses]) as scope:
        return math_ops.cast(array_ops.size(losses, name=scope), losses.dtype.base_dtype)


def _num_present(losses, weights, per_batch=False):
    """The number of elements of `losses` with a non-zero (broadcast) weight, in total
    or (per_batch) per first-axis entry."""
    m, a = math_ops, array_ops
    if isinstance(weights, float) and weights != 0.0:
        return _num_elements(losses)
    with name_scope(None, "num_present", [losses, weights]) as scope:
        weights = m.cast(weights, dtypes.float32)
        present = a.where(m.equal(weights, 0.0), a.zeros_like(weights), a.ones_like(weights))
        present = broadcast_weights(present, losses)
        if per_batch:
            return m.reduce_sum(present, axis=m.range(1, a.rank(present)), keepdims=True,
                                name=scope)
        return m.reduce_sum(present, name=scope)


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=_LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weights and reduces `losses` (`tf.losses.compute_weighted_loss`).

    Args:
      losses: a Tensor of per-element losses [batch, d1, ...].
      weights: a scalar or a tensor broadcastable to `losses`.
      scope: the name scope (default "weighted_loss").
      loss_collection: where the result goes (None: nowhere).
      reduction: a `Reduction` key.

    Returns:
      the loss, in `losses`' dtype: a scalar, or `losses`' shape for NONE.

    Raises:
      ValueError: for an unknown reduction or weights that don't broadcast.
    """
    m = math_ops
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss", [losses, weights]):
        with control_dependencies([assert_broadcastable(weights, losses)]):
            losses = convert_to_tensor(losses)
            input_dtype = losses.dtype.base_dtype
            losses = m.cast(losses, dtypes.float32)
            weights = m.cast(weights, dtypes.float32)
            weighted = m.multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted
            else:
                loss = m.reduce_sum(weighted)
                if reduction == Reduction.MEAN:
                    loss = _safe_mean(loss, m.reduce_sum(array_ops.ones_like(losses) * weights))
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = _safe_mean(loss, _num_present(losses, weights))
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    loss = _safe_mean(loss, _num_elements(losses))
            loss = m.cast(loss, input_dtype)
            util.add_loss(loss, loss_collection)
            return loss


def _check_args(**named):
    for name, value in named.items():
        if value is None:
            raise ValueError(f"Argument `{name}` must not be None.")


def _as_float_pair(predictions, labels):
    m = math_ops
    predictions = m.cast(predictions, dtypes.float32)
    labels = m.cast(labels, dtypes.float32)
    predictions.shape.assert_is_compatible_with(labels.shape)
    return predictions, labels


def _labels_like_logits(labels, logits):
    """(labels cast to logits' dtype, logits as a tensor), checked to have compatible
    shapes."""
    logits = convert_to_tensor(logits)
    labels = math_ops.cast(labels, logits.dtype.base_dtype)
    logits.shape.assert_is_compatible_with(labels.shape)
    return labels, logits


def absolute_difference(labels, predictions, weights=1.0, scope=None,
                        loss_collection=_LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted |predictions - labels| (`tf.losses.absolute_difference`).

    Raises:
      ValueError: for None inputs, incompatible shapes or weights.
    """
    _check_args(labels=labels, predictions=predictions)
    with name_scope(scope, "absolute_difference", [predictions, labels, weights]) as scope:
        predictions, labels = _as_float_pair(predictions, labels)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=_LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
                    dim=None):
    """Weighted 1 - sum(predictions * labels, axis) for unit-normalised inputs
    (`tf.losses.cosine_distance`); the loss keeps `axis` with size 1.

    Raises:
      ValueError: if neither axis nor dim is given, for None inputs or bad shapes.
    """
    if axis is None:
        axis = dim
    elif dim is not None and dim != axis:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    _check_args(labels=labels, predictions=predictions)
    with name_scope(scope, "cosine_distance_loss", [predictions, labels, weights]) as scope:
        predictions, labels = _as_float_pair(predictions, labels)
        radial = math_ops.multiply(predictions, labels)
        losses = 1 - math_ops.reduce_sum(radial, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=_LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted max(0, 1 - (2 * labels - 1) * logits) for 0/1 labels
    (`tf.losses.hinge_loss`).

    Raises:
      ValueError: for None inputs, incompatible shapes or weights.
    """
    _check_args(labels=labels, logits=logits)
    m, a = math_ops, array_ops
    with name_scope(scope, "hinge_loss", [logits, labels, weights]) as scope:
        logits, labels = _as_float_pair(logits, labels)
        ones = a.ones_like(labels)
        signs = m.subtract(2 * labels, ones)
        losses = nn_ops.relu(m.subtract(ones, m.multiply(signs, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=_LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted Huber loss: 0.5 * e**2 for |e| <= delta, else
    0.5 * delta**2 + delta * (|e| - delta) (`tf.losses.huber_loss`).

    Raises:
      ValueError: for None inputs, incompatible shapes or weights.
    """
    _check_args(labels=labels, predictions=predictions)
    m = math_ops
    with name_scope(scope, "huber_loss", [predictions, labels, weights]) as scope:
        predictions, labels = _as_float_pair(predictions, labels)
        abs_error = m.abs(m.subtract(predictions, labels))
        quadratic = m.minimum(abs_error, delta)
        linear = m.subtract(abs_error, quadratic)
        half = convert_to_tensor(0.5, dtype=quadratic.dtype.base_dtype)
        losses = m.add(m.multiply(half, m.multiply(quadratic, quadratic)),
                       m.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=_LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted -y log(p + eps) - (1 - y) log(1 - p + eps) (`tf.losses.log_loss`).

    Raises:
      ValueError: for None inputs, incompatible shapes or weights.
    """
    _check_args(labels=labels, predictions=predictions)
    m = math_ops
    with name_scope(scope, "log_loss", [predictions, labels, weights]) as scope:
        predictions, labels = _as_float_pair(predictions, labels)
        losses = (-m.multiply(labels, m.log(predictions + epsilon)) -
                  m.multiply(1 - labels, m.log(1 - predictions + epsilon)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None,
                                loss_collection=_LOSSES):
    """Weighted mean over each batch entry of the squared differences between all pairs
    of (prediction - label) errors (`tf.losses.mean_pairwise_squared_error`).

    `weights` is a scalar or [batch] broadcastable to [batch, 1, ...] (e.g. [batch, 1]).

    Raises:
      ValueError: for None inputs, incompatible shapes or weights.
    """
    _check_args(labels=labels, predictions=predictions)
    m, a = math_ops, array_ops
    with name_scope(scope, "mean_pairwise_squared_error",
                    [predictions, labels, weights]) as scope:
        weights = m.cast(weights, dtypes.float32)
        labels = m.cast(labels, dtypes.float32)
        with control_dependencies([assert_broadcastable(weights, labels)]):
            predictions = m.cast(predictions, dtypes.float32)
            predictions.shape.assert_is_compatible_with(labels.shape)
            diffs = m.subtract(predictions, labels)
            axis = m.range(1, a.rank(diffs))
            sum_sq = m.reduce_sum(m.square(diffs), axis=axis, keepdims=True)
            present = _num_present(diffs, weights, per_batch=True)
            term1 = 2.0 * m.div_no_nan(sum_sq, m.maximum(present - 1, 0), name="value")
            sum_diff = m.reduce_sum(diffs, axis=axis, keepdims=True)
            term2 = 2.0 * m.div_no_nan(m.square(sum_diff),
                                       m.maximum(m.multiply(present, present - 1), 0),
                                       name="value")
            loss = m.reduce_sum(m.multiply(term1 - term2, weights))
            mean_loss = a.where(m.reduce_sum(present) > 0, loss, a.zeros_like(loss),
                                name="value")
            util.add_loss(mean_loss, loss_collection)
            return mean_loss


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=_LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted (predictions - labels)**2 (`tf.losses.mean_squared_error`).

    Raises:
      ValueError: for None inputs, incompatible shapes or weights.
    """
    _check_args(labels=labels, predictions=predictions)
    with name_scope(scope, "mean_squared_error", [predictions, labels, weights]) as scope:
        predictions, labels = _as_float_pair(predictions, labels)
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0,
                          scope=None, loss_collection=_LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted sigmoid cross entropy of independent 0/1 labels
    (`tf.losses.sigmoid_cross_entropy`); label_smoothing s uses
    labels * (1 - s) + 0.5 * s.

    Raises:
      ValueError: for None inputs, incompatible shapes or weights.
    """
    _check_args(multi_class_labels=multi_class_labels, logits=logits)
    with name_scope(scope, "sigmoid_cross_entropy_loss",
                    [logits, multi_class_labels, weights]) as scope:
        labels, logits = _labels_like_logits(multi_class_labels, logits)
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits,
                                                          name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=_LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted softmax cross entropy of one-hot (or soft) labels [batch, classes]
    (`tf.losses.softmax_cross_entropy`); label_smoothing s uses
    labels * (1 - s) + s / classes. `weights` is a scalar or [batch].

    Raises:
      ValueError: for None inputs, incompatible shapes or weights.
    """
    _check_args(onehot_labels=onehot_labels, logits=logits)
    with name_scope(scope, "softmax_cross_entropy_loss",
                    [logits, onehot_labels, weights]) as scope:
        labels, logits = _labels_like_logits(onehot_labels, logits)
        if label_smoothing > 0:
            num_classes = math_ops.cast(array_ops.shape(labels)[-1], logits.dtype.base_dtype)
            smooth_positives = 1.0 - label_smoothing
            smooth_negatives = label_smoothing / num_classes
            labels = labels * smooth_positives + smooth_negatives
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits,
                                                             name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def _squeeze_sparse_args(labels, logits, weights):
    """Squeezes labels [batch, 1] to [batch] and weights one rank above the labels."""
    labels, logits = remove_squeezable_dimensions(labels, logits, expected_rank_diff=1)
    if weights is not None:
        weights = convert_to_tensor(weights)
        l_rank, w_rank = labels.shape.ndims, weights.shape.ndims
        if l_rank is not None and w_rank is not None:
            if w_rank - l_rank == 1:
                weights = array_ops.squeeze(weights, [-1])
            return labels, logits, weights
        rank_diff = array_ops.rank(weights) - array_ops.rank(labels)
        if w_rank is None or (w_rank > 0 and weights.shape.dims[-1].is_compatible_with(1)):
            w = weights
            weights = cond(math_ops.equal(1, rank_diff), lambda: array_ops.squeeze(w, [-1]),
                           lambda: w)
    return labels, logits, weights


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=_LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted softmax cross entropy of integer class ids [batch] (or [batch, 1])
    against logits [batch, classes] (`tf.losses.sparse_softmax_cross_entropy`).

    Raises:
      ValueError: for None inputs, incompatible shapes or weights.
    """
    _check_args(labels=labels, logits=logits)
    with name_scope(scope, "sparse_softmax_cross_entropy_loss",
                    [logits, labels, weights]) as scope:
        labels, logits, weights = _squeeze_sparse_args(labels, logits, weights)
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                                 name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)
