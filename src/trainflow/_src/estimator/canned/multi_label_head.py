"""`tf.estimator.MultiLabelHead` (tensorflow_estimator 2.x): independent sigmoid cross
entropy per class, averaged over the classes; labels a dense 0/1 indicator or a SparseTensor
of class ids (or vocabulary strings)."""
from trainflow._src.estimator import export_output
from trainflow._src.estimator.canned import head as v1
from trainflow._src.estimator.canned.head import MetricKeys, PredictionKeys, _summary_key
from trainflow._src.estimator.canned.head_v2 import (SUM_OVER_BATCH_SIZE, _V2Head,
                                                      _v1_reduction, _validate_loss_fn_args,
                                                      threshold_metrics)
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.lookup.vocabulary import index_table_from_tensor
from trainflow._src.metrics.classification_metrics import auc
from trainflow._src.metrics.mean_metrics import mean
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.control_flow.check_ops import assert_less, assert_non_negative
from trainflow._src.ops.math.arith import sigmoid
from trainflow._src.ops.math.reductions import reduce_mean
from trainflow._src.ops.nn.xent import sigmoid_cross_entropy_with_logits
from trainflow._src.ops.sparse.sparse_build import sparse_to_indicator


def _in_range(values, n, message):
    with control_dependencies([assert_non_negative(values, message=message),
                               assert_less(values, cast(n, values.dtype), message=message)]):
        return identity(values)


class MultiLabelHead(_V2Head, v1._ClassifierHead):
    """Multi-label classification: one sigmoid per class (`tf.estimator.MultiLabelHead`)."""

    def __init__(self, n_classes, weight_column=None, thresholds=None, label_vocabulary=None,
                 loss_reduction=SUM_OVER_BATCH_SIZE, loss_fn=None,
                 classes_for_class_based_metrics=None, name=None):
        if n_classes is None or n_classes < 2:
            raise ValueError(f"n_classes must be > 1 for multi-label classification. "
                             f"Given: {n_classes}")
        thresholds = tuple(thresholds) if thresholds else ()
        for t in thresholds:
            if t <= 0.0 or t >= 1.0:
                raise ValueError(f"thresholds must be in (0, 1) range. Given: {t}")
        if label_vocabulary is not None:
            if not isinstance(label_vocabulary, (list, tuple)):
                raise ValueError(f"label_vocabulary must be a list or tuple. Given type: "
                                 f"{type(label_vocabulary)}")
            if len(label_vocabulary) != n_classes:
                raise ValueError(f"Length of label_vocabulary must be n_classes ({n_classes})."
                                 f" Given: {len(label_vocabulary)}")
        if loss_fn is not None:
            _validate_loss_fn_args(loss_fn)
        v1._ClassifierHead.__init__(self, n_classes, weight_column, label_vocabulary,
                                    _v1_reduction(loss_reduction), name)
        self._init_v2(n_classes, loss_reduction, loss_fn)
        self._thresholds = thresholds
        self._class_metric_ids = self._class_ids_for_metrics(classes_for_class_based_metrics)

    def _class_ids_for_metrics(self, classes):
        if not classes:
            return ()
        classes = tuple(classes)
        if isinstance(classes[0], str):
            if not self._label_vocabulary:
                raise ValueError("label_vocabulary must be provided when "
                                 "classes_for_class_based_metrics are strings.")
            return tuple(list(self._label_vocabulary).index(c) for c in classes)
        for class_id in classes:
            if class_id < 0 or class_id >= self._n_classes:
                raise ValueError(f"All classes_for_class_based_metrics must be in range "
                                 f"[0, {self._n_classes - 1}]. Given: {class_id}")
        return classes

    def _processed_labels(self, labels):
        """A [batch, n_classes] int64 indicator."""
        if labels is None:
            v1._dense_labels(labels, self._n_classes)
        if isinstance(labels, SparseTensor):
            if labels.dtype == dtypes.string:
                table = index_table_from_tensor(list(self._label_vocabulary or ()),
                                                name="class_id_lookup")
                labels = SparseTensor(labels.indices, table.lookup(labels.values),
                                      labels.dense_shape)
            elif not labels.dtype.is_integer:
                raise ValueError(f"Labels dtype should be integer. Instead got "
                                 f"{labels.dtype}.")
            else:
                values = _in_range(labels.values, self._n_classes,
                                   f"labels must be an integer SparseTensor with values in "
                                   f"[0, {self._n_classes})")
                labels = SparseTensor(labels.indices, values, labels.dense_shape)
            return cast(sparse_to_indicator(labels, self._n_classes), dtypes.int64)
        dense = v1._dense_labels(labels, self._n_classes)
        return _in_range(dense, 2, "labels must be an integer indicator Tensor with values "
                                   "in [0, 1]")

    def _unweighted_loss(self, processed, logits):
        loss = sigmoid_cross_entropy_with_logits(labels=cast(processed, logits.dtype),
                                                 logits=logits)
        return reduce_mean(loss, axis=-1, keepdims=True)

    def _predictions(self, logits):
        with name_scope(None, "predictions"):
            return {PredictionKeys.LOGITS: logits,
                    PredictionKeys.PROBABILITIES: sigmoid(
                        logits, name=PredictionKeys.PROBABILITIES),
                    PredictionKeys.CLASSES: v1._all_classes(logits, self._n_classes,
                                                            self._label_vocabulary)}

    def _export_outputs(self, predictions):
        classifier = self._classification_output(predictions)
        return {v1._DEFAULT_SERVING_KEY: classifier, v1._CLASSIFY_SERVING_KEY: classifier,
                v1._PREDICT_SERVING_KEY: export_output.PredictOutput(predictions)}

    def _eval_metrics(self, labels, predictions, weights, unreduced):
        metrics = self._loss_metrics(unreduced, weights)
        probabilities = predictions[PredictionKeys.PROBABILITIES]
        key = lambda k: _summary_key(self._name, k)  # noqa: E731
        with name_scope(None, "metrics"):
            metrics[key(MetricKeys.AUC)] = auc(labels, probabilities, weights=weights,
                                               name=MetricKeys.AUC)
            metrics[key(MetricKeys.AUC_PR)] = auc(labels, probabilities, weights=weights,
                                                  curve="PR", name=MetricKeys.AUC_PR)
            metrics.update(threshold_metrics(self._name, labels, probabilities, weights,
                                             self._thresholds))
            for class_id in self._class_metric_ids:
                suffix = (self._label_vocabulary[class_id] if self._label_vocabulary
                          else f"class{class_id}")
                probs = probabilities[..., class_id:class_id + 1]
                class_labels = labels[..., class_id:class_id + 1]
                metrics[key(f"probability_mean/{suffix}")] = mean(
                    probs, weights=weights,
                    name="probability_mean")
                metrics[key(f"auc/{suffix}")] = auc(class_labels, probs, weights=weights,
                                                    name="auc")
                metrics[key(f"auc_precision_recall/{suffix}")] = auc(
                    class_labels, probs, weights=weights, curve="PR",
                    name="auc_precision_recall")
        return metrics
