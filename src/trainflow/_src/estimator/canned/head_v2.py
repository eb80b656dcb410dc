"""The v2 heads of tensorflow_estimator 2.x (`tf.estimator.Head`, BinaryClassHead,
MultiClassHead, RegressionHead, PoissonRegressionHead, LogisticRegressionHead).

The formulas live in the v1 heads (`head.py`); a v2 head adds TF 2's arguments (loss_fn,
thresholds, inverse_link_fn, keras reductions defaulting to sum_over_batch_size), the public
`loss` / `predictions` methods, regularization losses passed in rather than collected, and
TF 2's summaries. Eval metrics are `(value, update_op)` pairs under TF's metric keys
(trainflow has no Keras metric objects). An optimizer is a `tf.compat.v1.train` optimizer
(trainflow has no Keras optimizers); it steps the global step as a Keras one does."""
import abc
import inspect

from trainflow._src.estimator import model_fn as model_fn_lib
from trainflow._src.estimator.canned import head as v1
from trainflow._src.estimator.canned.head import MetricKeys, PredictionKeys, _summary_key
from trainflow._src.estimator.mode_keys import ModeKeys
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.losses.losses_impl import Reduction, compute_weighted_loss
from trainflow._src.metrics.classification_metrics import precision, recall
from trainflow._src.metrics.mean_metrics import accuracy, mean
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.control_flow.control_flow_ops import group
from trainflow._src.ops.math.arith import add_n, exp, greater, sigmoid
from trainflow._src.ops.nn.xent import log_poisson_loss, sigmoid_cross_entropy_with_logits
from trainflow._src.ops.summary.summary_ops import scalar as scalar_summary
from trainflow._src.ops.control_flow.check_ops import assert_less_equal, assert_non_negative
from trainflow._src.train import training_util

# tf.keras.losses.Reduction (what TF 2's `tf.losses.Reduction` is): AUTO means the default.
_V2_REDUCTIONS = {"auto": Reduction.SUM_OVER_BATCH_SIZE, "sum": Reduction.SUM,
                  "sum_over_batch_size": Reduction.SUM_OVER_BATCH_SIZE}
SUM_OVER_BATCH_SIZE = "sum_over_batch_size"


def _v1_reduction(loss_reduction):
    if loss_reduction not in _V2_REDUCTIONS:
        raise ValueError(f"Invalid loss_reduction: {loss_reduction}. See `tf.losses.Reduction` "
                         "for valid options.")
    return _V2_REDUCTIONS[loss_reduction]


def _validate_loss_fn_args(loss_fn):
    args = set(inspect.signature(loss_fn).parameters)
    for required in ("labels", "logits"):
        if required not in args:
            raise ValueError(f"loss_fn must contain argument: {required}. Given arguments: "
                             f"{tuple(args)}")
    extra = args - {"labels", "logits", "features", "loss_reduction"}
    if extra:
        raise ValueError(f"loss_fn has unexpected args: {sorted(extra)}")


def _call_loss_fn(loss_fn, labels, logits, features, expected_loss_dim):
    kwargs = {"features": features} if "features" in inspect.signature(loss_fn).parameters else {}
    loss = loss_fn(labels=labels, logits=logits, **kwargs)
    last = loss.shape[-1] if loss.shape.ndims else None
    last = getattr(last, "value", last)
    if loss.shape.ndims is not None and loss.shape.ndims != logits.shape.ndims or (
            last is not None and last != expected_loss_dim):
        raise ValueError(f"loss_fn must return Tensor of shape [D0, D1, ... DN, "
                         f"{expected_loss_dim}]. Given loss shape: {loss.shape}")
    return loss


class Head(abc.ABC):
    """Interface of a head (`tf.estimator.Head`): logits to predictions, loss, an
    EstimatorSpec."""

    @property
    @abc.abstractmethod
    def name(self):
        """The head's name, suffixed to summary and metric keys."""

    @property
    @abc.abstractmethod
    def logits_dimension(self):
        """The last dimension of the logits this head takes."""

    @property
    @abc.abstractmethod
    def loss_reduction(self):
        """How the training loss is reduced over the batch."""

    @abc.abstractmethod
    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """The regularized training loss, a scalar."""

    @abc.abstractmethod
    def predictions(self, logits, keys=None):
        """The dict of predictions."""

    @abc.abstractmethod
    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              trainable_variables=None, train_op_fn=None, update_ops=None,
                              regularization_losses=None):
        """The EstimatorSpec of `mode`."""


class _V2Head(Head):
    """The v2 API over a v1 head's formulas (mixed in before the v1 class)."""

    def _init_v2(self, logits_dimension, loss_reduction, loss_fn, expected_loss_dim=1):
        self._logits_dim = logits_dimension
        self._v2_reduction = loss_reduction
        if loss_fn is not None:
            _validate_loss_fn_args(loss_fn)
        self._loss_fn = loss_fn
        self._expected_loss_dim = expected_loss_dim

    @property
    def name(self):
        return self._name

    @property
    def logits_dimension(self):
        return self._logits_dim

    @property
    def loss_reduction(self):
        return self._v2_reduction

    def _unreduced_loss_and_weights(self, labels, logits, features):
        processed = self._processed_labels(labels)
        if self._loss_fn is not None:
            unreduced = _call_loss_fn(self._loss_fn, processed, logits, features,
                                      self._expected_loss_dim)
        else:
            unreduced = self._unweighted_loss(processed, logits)
        return unreduced, v1._weights(features, self._weight_column, logits), processed

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """The weighted, reduced training loss plus `regularization_losses`."""
        del mode
        with name_scope(None, "losses"):
            logits = v1._check_logits(logits, self.logits_dimension)
            unreduced, weights, _ = self._unreduced_loss_and_weights(labels, logits,
                                                                     features or {})
            training_loss = compute_weighted_loss(unreduced, weights=weights,
                                                  reduction=self._loss_reduction)
            if regularization_losses is not None:
                training_loss = training_loss + add_n(list(regularization_losses))
        return training_loss

    def predictions(self, logits, keys=None):
        """The predictions dict (only `keys` when given)."""
        logits = v1._check_logits(logits, self.logits_dimension)
        predictions = self._predictions(logits)
        if keys is None:
            return predictions
        unknown = [k for k in keys if k not in predictions]
        if unknown:
            raise ValueError(f"Prediction key must be in PredictionKeys, given: {unknown[0]}")
        return {k: predictions[k] for k in keys}

    def _metric_ops(self, features, logits, labels, regularization_losses):
        unreduced, weights, processed = self._unreduced_loss_and_weights(labels, logits,
                                                                         features)
        metrics = self._eval_metrics(processed, self._predictions(logits), weights, unreduced)
        with name_scope(None, "metrics"):
            metrics.update(self._extra_metrics(processed, logits, weights))
            if regularization_losses is not None:
                metrics[_summary_key(self._name, MetricKeys.LOSS_REGULARIZATION)] = mean(
                    add_n(list(regularization_losses)), name=MetricKeys.LOSS_REGULARIZATION)
        return metrics

    def _extra_metrics(self, processed, logits, weights):
        return {}

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              trainable_variables=None, train_op_fn=None, update_ops=None,
                              regularization_losses=None):
        """The EstimatorSpec of `mode` (TF 2's `Head.create_estimator_spec`)."""
        with name_scope(self._name, "head"):
            logits = v1._check_logits(logits, self.logits_dimension)
            predictions = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                return model_fn_lib.EstimatorSpec(
                    mode=mode, predictions=predictions,
                    export_outputs=self._export_outputs(predictions))
            loss = self.loss(labels, logits, features, mode, regularization_losses)
            if mode == ModeKeys.EVAL:
                return model_fn_lib.EstimatorSpec(
                    mode=mode, predictions=predictions, loss=loss,
                    eval_metric_ops=self._metric_ops(features, logits, labels,
                                                     regularization_losses))
            train_op = _train_op(optimizer, trainable_variables, train_op_fn, update_ops, loss)
        with name_scope(""):
            scalar_summary(_summary_key(self._name, MetricKeys.LOSS), loss)
            if regularization_losses is not None:
                scalar_summary(_summary_key(self._name, MetricKeys.LOSS_REGULARIZATION),
                               add_n(list(regularization_losses)))
        return model_fn_lib.EstimatorSpec(mode=mode, predictions=predictions, loss=loss,
                                          train_op=train_op)


def _train_op(optimizer, trainable_variables, train_op_fn, update_ops, loss):
    if update_ops is not None and not isinstance(update_ops, (list, tuple)):
        raise ValueError(f"update_ops must be a list or tuple. Given type: {type(update_ops)}.")
    with name_scope(""), name_scope("training"):
        if optimizer is not None:
            if train_op_fn is not None:
                raise ValueError("train_op_fn and optimizer cannot both be set.")
            if trainable_variables is not None and not isinstance(trainable_variables,
                                                                  (list, tuple)):
                raise ValueError("trainable_variables should be a list or a tuple. Given "
                                 f"type: {type(trainable_variables)}.")
            train_op = optimizer.minimize(loss, global_step=training_util.get_global_step(),
                                          var_list=trainable_variables)
        elif train_op_fn is not None:
            train_op = train_op_fn(loss)
        else:
            raise ValueError("train_op_fn and optimizer cannot both be None.")
        if update_ops:
            train_op = group(train_op, *update_ops)
        return train_op


def _check_thresholds(thresholds):
    thresholds = tuple(thresholds) if thresholds else ()
    for t in thresholds:
        if t <= 0.0 or t >= 1.0:
            raise ValueError(f"thresholds not in (0, 1): {(thresholds,)}.")
    return thresholds


def threshold_metrics(head_name, labels, probabilities, weights, thresholds):
    """accuracy / precision / recall at each threshold (prediction = probability > t)."""
    metrics = {}
    for t in thresholds:
        with name_scope(None, f"threshold_{t:g}"):
            predicted = cast(greater(probabilities, t), dtypes.float32)
            for key, fn in (("accuracy", accuracy), ("precision", precision),
                            ("recall", recall)):
                metric_key = _summary_key(head_name, f"{key}/positive_threshold_{t:g}")
                metrics[metric_key] = fn(labels, predicted, weights=weights,
                                         name=f"{key}_at_threshold")
    return metrics


class BinaryClassHead(_V2Head, v1.BinaryClassHead):
    """Sigmoid cross entropy on one logit (`tf.estimator.BinaryClassHead`)."""

    def __init__(self, weight_column=None, thresholds=None, label_vocabulary=None,
                 loss_reduction=SUM_OVER_BATCH_SIZE, loss_fn=None, name=None):
        v1.BinaryClassHead.__init__(self, weight_column, label_vocabulary,
                                    _v1_reduction(loss_reduction), name)
        self._init_v2(1, loss_reduction, loss_fn)
        self._thresholds = _check_thresholds(thresholds)

    def _extra_metrics(self, processed, logits, weights):
        return threshold_metrics(self._name, processed, sigmoid(logits), weights,
                                 self._thresholds)


class MultiClassHead(_V2Head, v1.MultiClassHead):
    """Sparse softmax cross entropy on n_classes logits (`tf.estimator.MultiClassHead`)."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None,
                 loss_reduction=SUM_OVER_BATCH_SIZE, loss_fn=None, name=None):
        if n_classes is None or n_classes <= 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        v1.MultiClassHead.__init__(self, n_classes, weight_column, label_vocabulary,
                                   _v1_reduction(loss_reduction), name)
        self._init_v2(n_classes, loss_reduction, loss_fn)


class RegressionHead(_V2Head, v1.RegressionHead):
    """Mean squared error, or `loss_fn`, on label_dimension logits; `inverse_link_fn`
    maps logits to predictions (`tf.estimator.RegressionHead`)."""

    def __init__(self, label_dimension=1, weight_column=None,
                 loss_reduction=SUM_OVER_BATCH_SIZE, loss_fn=None, inverse_link_fn=None,
                 name=None):
        v1.RegressionHead.__init__(self, label_dimension, weight_column,
                                   _v1_reduction(loss_reduction), name)
        self._init_v2(label_dimension, loss_reduction, loss_fn,
                      expected_loss_dim=label_dimension)
        self._inverse_link_fn = inverse_link_fn

    def _predictions(self, logits):
        with name_scope(None, "predictions"):
            if self._inverse_link_fn is None:
                return {PredictionKeys.PREDICTIONS: logits}
            return {PredictionKeys.PREDICTIONS: self._inverse_link_fn(logits),
                    PredictionKeys.LOGITS: logits}


class PoissonRegressionHead(RegressionHead):
    """Poisson loss on log-rate logits, predictions exp(logits)
    (`tf.estimator.PoissonRegressionHead`)."""

    def __init__(self, label_dimension=1, weight_column=None,
                 loss_reduction=SUM_OVER_BATCH_SIZE, compute_full_loss=True, name=None):
        self._compute_full_loss = compute_full_loss
        super().__init__(label_dimension, weight_column, loss_reduction,
                         loss_fn=self._poisson_loss, inverse_link_fn=exp, name=name)

    def _poisson_loss(self, labels, logits):
        return log_poisson_loss(targets=labels, log_input=logits,
                                compute_full_loss=self._compute_full_loss)


class LogisticRegressionHead(RegressionHead):
    """Sigmoid cross entropy against labels in [0, 1], predictions sigmoid(logits)
    (`tf.estimator.LogisticRegressionHead`)."""

    def __init__(self, weight_column=None, loss_reduction=SUM_OVER_BATCH_SIZE, name=None):
        super().__init__(1, weight_column, loss_reduction, loss_fn=self._logistic_loss,
                         inverse_link_fn=sigmoid, name=name)

    def _logistic_loss(self, labels, logits):
        message = "Labels must be in range [0, 1]"
        with control_dependencies([assert_non_negative(labels, message=message),
                                   assert_less_equal(labels, 1.0, message=message)]):
            labels = identity(labels)
        return sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
