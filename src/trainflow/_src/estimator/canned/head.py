"""The v1 heads of tensorflow_estimator 1.15's canned estimators: binary (sigmoid logistic),
multi-class (sparse softmax) and regression (mean squared error). A head turns logits into
predictions, a loss, eval metrics, a train op and export outputs, under TF's names."""
from trainflow._src.estimator import export_output
from trainflow._src.estimator import model_fn as model_fn_lib
from trainflow._src.estimator.mode_keys import ModeKeys
from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.lookup.vocabulary import (index_table_from_tensor,
                                               index_to_string_table_from_tensor)
from trainflow._src.losses.losses_impl import Reduction, compute_weighted_loss
from trainflow._src.losses.util import get_regularization_losses
from trainflow._src.metrics.classification_metrics import auc, precision, recall
from trainflow._src.metrics.mean_metrics import accuracy, mean
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import ones_like, range as range_, zeros_like
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.layout import tile
from trainflow._src.ops.array.shape import expand_dims, reshape, shape
from trainflow._src.ops.math.argmax_scan import argmax
from trainflow._src.ops.math.arith import add_n, maximum, sigmoid, squared_difference, subtract
from trainflow._src.ops.math.reductions import reduce_sum
from trainflow._src.ops.nn.softmax import softmax
from trainflow._src.ops.nn.xent import (sigmoid_cross_entropy_with_logits,
                                        sparse_softmax_cross_entropy_with_logits)
from trainflow._src.ops.string.string_convert import as_string
from trainflow._src.ops.summary.summary_ops import scalar as scalar_summary
from trainflow._src.saved_model import signature_constants
from trainflow._src.train import training_util

_DEFAULT_SERVING_KEY = signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
_CLASSIFY_SERVING_KEY = "classification"
_REGRESS_SERVING_KEY = "regression"
_PREDICT_SERVING_KEY = "predict"


class PredictionKeys:
    """TF's keys of a canned estimator's predictions."""
    CLASSES = "classes"
    CLASS_IDS = "class_ids"
    ALL_CLASSES = "all_classes"
    ALL_CLASS_IDS = "all_class_ids"
    LOGISTIC = "logistic"
    LOGITS = "logits"
    PREDICTIONS = "predictions"
    PROBABILITIES = "probabilities"


class MetricKeys:
    """TF's keys of a canned estimator's eval metrics."""
    LOSS = "loss"
    LOSS_MEAN = "average_loss"
    LOSS_REGULARIZATION = "regularization_loss"
    ACCURACY = "accuracy"
    PRECISION = "precision"
    RECALL = "recall"
    ACCURACY_BASELINE = "accuracy_baseline"
    AUC = "auc"
    AUC_PR = "auc_precision_recall"
    LABEL_MEAN = "label/mean"
    PREDICTION_MEAN = "prediction/mean"


def _summary_key(head_name, key):
    return f"{key}/{head_name}" if head_name else key


def _weights(features, weight_column, logits):
    """The example weights ([batch, 1] float), 1.0 without a weight column."""
    if weight_column is None:
        return 1.0
    key = weight_column if isinstance(weight_column, str) else weight_column.key
    if key not in features:
        raise ValueError(f"Weight column {key!r} not found in features: {sorted(features)}")
    weights = cast(features[key], dtypes.float32)
    return reshape(weights, [-1, 1]) if logits.shape.ndims == 2 else weights


def _dense_labels(labels, expected_dim):
    """Labels as a [batch, expected_dim] tensor, checked against the logits' last dimension."""
    if labels is None:
        raise ValueError("You must provide a labels Tensor. Given: None. Suggested "
                         "troubleshooting steps: Check that your data contain your label feature. "
                         "Check that your input_fn properly parses and returns labels.")
    if isinstance(labels, dict):
        raise ValueError("labels must be a Tensor for a single head, not a dict.")
    labels = convert_to_tensor(labels)
    if labels.shape.ndims == 1:
        labels = expand_dims(labels, -1)
    last = labels.shape[-1] if labels.shape.ndims else None
    last = getattr(last, "value", last)
    if last is not None and last != expected_dim:
        raise ValueError(f"Mismatched label shape. Expected labels dimension={expected_dim}. "
                         f"Received {last}.")
    return labels


def _check_logits(logits, dim):
    logits = convert_to_tensor(logits)
    if not logits.dtype.is_floating:
        raise ValueError(f"logits must be a floating type; got {logits.dtype}")
    last = logits.shape[-1] if logits.shape.ndims else None
    last = getattr(last, "value", last)
    if last is not None and last != dim:
        raise ValueError(f"logits shape must be [D0, D1, ... DN, logits_dimension], got "
                         f"{logits.shape}.")
    return logits


def _all_class_ids(logits, n_classes):
    batch = shape(logits)[:1]
    return tile(expand_dims(range_(n_classes), 0), concat([batch, [1]], axis=0))


def _all_classes(logits, n_classes, label_vocabulary=None):
    if label_vocabulary:
        class_list = constant(list(label_vocabulary), dtype=dtypes.string)
    else:
        class_list = as_string(range_(n_classes))
    batch = shape(logits)[:1]
    return tile(expand_dims(class_list, 0), concat([batch, [1]], axis=0))


class _Head:
    """What the three heads share: the loss, the train op and the EstimatorSpec."""

    def __init__(self, weight_column=None, loss_reduction=Reduction.SUM, name=None):
        if loss_reduction not in Reduction.all() or loss_reduction == Reduction.NONE:
            raise ValueError(f"Invalid loss_reduction: {loss_reduction}")
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction
        self._name = name

    @property
    def name(self):
        return self._name

    def _unreduced_loss(self, labels, logits):
        processed = self._processed_labels(labels)
        return self._unweighted_loss(processed, logits), processed

    def _losses(self, features, labels, logits):
        """(unreduced loss, weights, processed labels, training loss, regularized loss)."""
        unreduced, processed = self._unreduced_loss(labels, logits)
        weights = _weights(features, self._weight_column, logits)
        training_loss = compute_weighted_loss(unreduced, weights=weights,
                                              reduction=self._loss_reduction)
        reg = get_regularization_losses()
        regularized = add_n([training_loss] + reg) if reg else training_loss
        return unreduced, weights, processed, training_loss, regularized

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None,
                              train_op_fn=None, regularization_losses=None):
        """The EstimatorSpec of `mode` (TF's `_Head.create_estimator_spec`)."""
        with name_scope(self._name, "head"):
            logits = _check_logits(logits, self.logits_dimension)
            predictions = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                return model_fn_lib.EstimatorSpec(
                    mode=mode, predictions=predictions,
                    export_outputs=self._export_outputs(predictions))
            unreduced, weights, processed, training_loss, loss = self._losses(
                features, labels, logits)
            if mode == ModeKeys.EVAL:
                return model_fn_lib.EstimatorSpec(
                    mode=mode, predictions=predictions, loss=loss,
                    eval_metric_ops=self._eval_metrics(processed, predictions, weights,
                                                       unreduced))
            if optimizer is not None:
                if train_op_fn is not None:
                    raise ValueError("train_op_fn and optimizer cannot both be set.")
                train_op = optimizer.minimize(loss,
                                              global_step=training_util.get_global_step())
            elif train_op_fn is not None:
                train_op = train_op_fn(loss)
            else:
                raise ValueError("train_op_fn and optimizer cannot both be None.")
        self._train_summaries(training_loss, loss, weights, unreduced)
        return model_fn_lib.EstimatorSpec(mode=mode, predictions=predictions, loss=loss,
                                          train_op=train_op)

    def _train_summaries(self, training_loss, loss, weights, unreduced):
        with name_scope(""):
            scalar_summary(_summary_key(self._name, MetricKeys.LOSS), loss)
            if self._loss_reduction == Reduction.SUM:
                weight_sum = reduce_sum(weights * ones_like(unreduced))
                scalar_summary(_summary_key(self._name, MetricKeys.LOSS_MEAN),
                               training_loss / weight_sum)

    def _loss_metrics(self, unreduced, weights):
        with name_scope(None, "metrics"):
            return {_summary_key(self._name, MetricKeys.LOSS_MEAN):
                    mean(unreduced, weights=weights, name=MetricKeys.LOSS_MEAN)}


class _ClassifierHead(_Head):
    """Label ids from a vocabulary; string classes."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None,
                 loss_reduction=Reduction.SUM, name=None):
        super().__init__(weight_column, loss_reduction, name)
        if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
            raise ValueError(f"label_vocabulary should be a list or a tuple. Given type: "
                             f"{type(label_vocabulary)}")
        self._n_classes = n_classes
        self._label_vocabulary = label_vocabulary

    def _label_ids(self, labels):
        labels = _dense_labels(labels, 1)
        if self._label_vocabulary is not None:
            if labels.dtype != dtypes.string:
                raise ValueError("Labels dtype should be string if there is a vocabulary. "
                                 f"Given: {labels.dtype}")
            return index_table_from_tensor(vocabulary_list=list(self._label_vocabulary),
                                           name="class_id_lookup").lookup(labels)
        if labels.dtype == dtypes.string:
            raise ValueError("Labels dtype should be integer. Instead got string.")
        return cast(labels, dtypes.int64)

    def _classes(self, class_ids):
        if self._label_vocabulary:
            table = index_to_string_table_from_tensor(
                vocabulary_list=list(self._label_vocabulary), name="class_string_lookup")
            return table.lookup(class_ids)
        return as_string(class_ids, name="str_classes")

    def _classification_output(self, predictions):
        probabilities = predictions[PredictionKeys.PROBABILITIES]
        classes = _all_classes(probabilities, self._n_classes, self._label_vocabulary)
        return export_output.ClassificationOutput(scores=probabilities, classes=classes)


class BinaryClassHead(_ClassifierHead):
    """`_BinaryLogisticHeadWithSigmoidCrossEntropyLoss`: one logit, sigmoid cross entropy."""
    logits_dimension = 1

    def __init__(self, weight_column=None, label_vocabulary=None,
                 loss_reduction=Reduction.SUM, name=None):
        super().__init__(2, weight_column, label_vocabulary, loss_reduction, name)

    def _processed_labels(self, labels):
        return cast(self._label_ids(labels), dtypes.float32)

    def _unweighted_loss(self, processed, logits):
        return sigmoid_cross_entropy_with_logits(labels=processed, logits=logits)

    def _predictions(self, logits):
        with name_scope(None, "predictions"):
            logistic = sigmoid(logits, name=PredictionKeys.LOGISTIC)
            two_class_logits = concat([zeros_like(logits), logits], axis=-1,
                                      name="two_class_logits")
            probabilities = softmax(two_class_logits, name=PredictionKeys.PROBABILITIES)
            class_ids = expand_dims(argmax(two_class_logits, axis=-1,
                                           name=PredictionKeys.CLASS_IDS), axis=-1)
            return {PredictionKeys.LOGITS: logits, PredictionKeys.LOGISTIC: logistic,
                    PredictionKeys.PROBABILITIES: probabilities,
                    PredictionKeys.CLASS_IDS: class_ids,
                    PredictionKeys.CLASSES: self._classes(class_ids),
                    PredictionKeys.ALL_CLASS_IDS: _all_class_ids(logits, 2),
                    PredictionKeys.ALL_CLASSES: _all_classes(logits, 2, self._label_vocabulary)}

    def _export_outputs(self, predictions):
        classifier = self._classification_output(predictions)
        return {_DEFAULT_SERVING_KEY: classifier, _CLASSIFY_SERVING_KEY: classifier,
                _REGRESS_SERVING_KEY: export_output.RegressionOutput(
                    value=predictions[PredictionKeys.LOGISTIC]),
                _PREDICT_SERVING_KEY: export_output.PredictOutput(predictions)}

    def _eval_metrics(self, labels, predictions, weights, unreduced):
        metrics = self._loss_metrics(unreduced, weights)
        class_ids = predictions[PredictionKeys.CLASS_IDS]
        logistic = predictions[PredictionKeys.LOGISTIC]
        key = lambda k: _summary_key(self._name, k)  # noqa: E731
        with name_scope(None, "metrics"):
            metrics[key(MetricKeys.ACCURACY)] = accuracy(labels, class_ids, weights=weights,
                                                         name=MetricKeys.ACCURACY)
            metrics[key(MetricKeys.PRECISION)] = precision(labels, class_ids, weights=weights,
                                                           name=MetricKeys.PRECISION)
            metrics[key(MetricKeys.RECALL)] = recall(labels, class_ids, weights=weights,
                                                     name=MetricKeys.RECALL)
            metrics[key(MetricKeys.PREDICTION_MEAN)] = mean(
                logistic, weights=weights, name=MetricKeys.PREDICTION_MEAN)
            label_mean = mean(labels, weights=weights, name=MetricKeys.LABEL_MEAN)
            metrics[key(MetricKeys.LABEL_MEAN)] = label_mean
            metrics[key(MetricKeys.ACCURACY_BASELINE)] = _accuracy_baseline(label_mean)
            metrics[key(MetricKeys.AUC)] = auc(labels, logistic, weights=weights, curve="ROC",
                                               name=MetricKeys.AUC)
            metrics[key(MetricKeys.AUC_PR)] = auc(labels, logistic, weights=weights,
                                                  curve="PR", name=MetricKeys.AUC_PR)
        return metrics


def _accuracy_baseline(label_mean):
    """max(label_mean, 1 - label_mean): the accuracy of always predicting the majority."""
    value, update = label_mean
    with name_scope(None, "accuracy_baseline", (value, update)):
        return (maximum(value, subtract(1.0, value), name="value"),
                maximum(update, subtract(1.0, update), name="update_op"))


class MultiClassHead(_ClassifierHead):
    """`_MultiClassHeadWithSoftmaxCrossEntropyLoss`: n_classes logits, sparse softmax."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None,
                 loss_reduction=Reduction.SUM, name=None):
        if n_classes is None or n_classes <= 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}")
        super().__init__(n_classes, weight_column, label_vocabulary, loss_reduction, name)

    @property
    def logits_dimension(self):
        return self._n_classes

    def _processed_labels(self, labels):
        return self._label_ids(labels)

    def _unweighted_loss(self, processed, logits):
        loss = sparse_softmax_cross_entropy_with_logits(labels=reshape(processed, [-1]),
                                                        logits=logits)
        return expand_dims(loss, axis=-1)

    def _predictions(self, logits):
        with name_scope(None, "predictions"):
            probabilities = softmax(logits, name=PredictionKeys.PROBABILITIES)
            class_ids = expand_dims(argmax(logits, axis=-1, name=PredictionKeys.CLASS_IDS),
                                    axis=-1)
            n = self._n_classes
            return {PredictionKeys.LOGITS: logits,
                    PredictionKeys.PROBABILITIES: probabilities,
                    PredictionKeys.CLASS_IDS: class_ids,
                    PredictionKeys.CLASSES: self._classes(class_ids),
                    PredictionKeys.ALL_CLASS_IDS: _all_class_ids(logits, n),
                    PredictionKeys.ALL_CLASSES: _all_classes(logits, n, self._label_vocabulary)}

    def _export_outputs(self, predictions):
        classifier = self._classification_output(predictions)
        return {_DEFAULT_SERVING_KEY: classifier, _CLASSIFY_SERVING_KEY: classifier,
                _PREDICT_SERVING_KEY: export_output.PredictOutput(predictions)}

    def _eval_metrics(self, labels, predictions, weights, unreduced):
        metrics = self._loss_metrics(unreduced, weights)
        with name_scope(None, "metrics"):
            metrics[_summary_key(self._name, MetricKeys.ACCURACY)] = accuracy(
                labels, predictions[PredictionKeys.CLASS_IDS], weights=weights,
                name=MetricKeys.ACCURACY)
        return metrics


class RegressionHead(_Head):
    """`_RegressionHeadWithMeanSquaredErrorLoss`: squared error on label_dimension logits."""

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction=Reduction.SUM,
                 name=None):
        if label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}.")
        super().__init__(weight_column, loss_reduction, name)
        self._label_dimension = label_dimension

    @property
    def logits_dimension(self):
        return self._label_dimension

    def _processed_labels(self, labels):
        return cast(_dense_labels(labels, self._label_dimension), dtypes.float32)

    def _unweighted_loss(self, processed, logits):
        return squared_difference(processed, logits)

    def _predictions(self, logits):
        return {PredictionKeys.PREDICTIONS: logits}

    def _export_outputs(self, predictions):
        regression = export_output.RegressionOutput(value=predictions[
            PredictionKeys.PREDICTIONS])
        return {_DEFAULT_SERVING_KEY: regression, _REGRESS_SERVING_KEY: regression,
                _PREDICT_SERVING_KEY: export_output.PredictOutput(predictions)}

    def _eval_metrics(self, labels, predictions, weights, unreduced):
        metrics = self._loss_metrics(unreduced, weights)
        with name_scope(None, "metrics"):
            metrics[_summary_key(self._name, MetricKeys.PREDICTION_MEAN)] = mean(
                predictions[PredictionKeys.PREDICTIONS], weights=weights,
                name=MetricKeys.PREDICTION_MEAN)
            metrics[_summary_key(self._name, MetricKeys.LABEL_MEAN)] = mean(
                labels, weights=weights, name=MetricKeys.LABEL_MEAN)
        return metrics


def classifier_head(n_classes, weight_column=None, label_vocabulary=None,
                    loss_reduction=Reduction.SUM):
    """The binary head for n_classes == 2, the multi-class head above."""
    if n_classes == 2:
        return BinaryClassHead(weight_column, label_vocabulary, loss_reduction)
    return MultiClassHead(n_classes, weight_column, label_vocabulary, loss_reduction)
