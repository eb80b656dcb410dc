"""`tf.estimator.export.*Output`: what a model exports under one signature, and the
signature it becomes (TF 1.15's saved_model/model_utils/export_output.py)."""
import abc

from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.operation import Operation
from trainflow._src.framework.scopes import control_dependencies
from trainflow._src.framework.tensor import Tensor
from trainflow._src.saved_model import signature_constants
from trainflow._src.saved_model import signature_def_utils


class ExportOutput(abc.ABC):
    """Represents an output of a model that can be served."""

    _SEPARATOR_CHAR = "/"

    @abc.abstractmethod
    def as_signature_def(self, receiver_tensors):
        """Generates a SignatureDef for this output with the given receiver tensors."""

    def _check_output_key(self, key, error_label):
        if isinstance(key, tuple):
            key = self._SEPARATOR_CHAR.join(key)
        if not isinstance(key, str):
            raise ValueError(f"{error_label} output key must be a string; got {key}.")
        return key

    def _wrap_and_check_outputs(self, outputs, single_output_default_name, error_label=None):
        if not isinstance(outputs, dict):
            outputs = {single_output_default_name: outputs}
        output_dict = {}
        for key, value in outputs.items():
            error_name = error_label or single_output_default_name
            key = self._check_output_key(key, error_name)
            if not isinstance(value, Tensor):
                raise ValueError(f"{error_name} output value must be a Tensor; got {value}.")
            output_dict[key] = value
        return output_dict


def _single_string_input(receiver_tensors, what):
    if len(receiver_tensors) != 1:
        raise ValueError(f"{what} input must be a single string Tensor; got {receiver_tensors}")
    (_, examples), = receiver_tensors.items()
    if dtypes.as_dtype(examples.dtype) != dtypes.string:
        raise ValueError(f"{what} input must be a single string Tensor; got {receiver_tensors}")
    return examples


class ClassificationOutput(ExportOutput):
    """Scores and/or classes for a classification problem (the Classify API)."""

    def __init__(self, scores=None, classes=None):
        if scores is not None and not (isinstance(scores, Tensor)
                                       and scores.dtype.is_floating):
            raise ValueError(f"Classification scores must be a float32 Tensor; got {scores}")
        if classes is not None and not (isinstance(classes, Tensor)
                                        and dtypes.as_dtype(classes.dtype) == dtypes.string):
            raise ValueError(f"Classification classes must be a string Tensor; got {classes}")
        if scores is None and classes is None:
            raise ValueError("At least one of scores and classes must be set.")
        self._scores = scores
        self._classes = classes

    @property
    def scores(self):
        return self._scores

    @property
    def classes(self):
        return self._classes

    def as_signature_def(self, receiver_tensors):
        examples = _single_string_input(receiver_tensors, "Classification")
        return signature_def_utils.classification_signature_def(examples, self.classes,
                                                                self.scores)


class RegressionOutput(ExportOutput):
    """One float value per example (the Regress API)."""

    def __init__(self, value):
        if not (isinstance(value, Tensor) and value.dtype.is_floating):
            raise ValueError(f"Regression output value must be a float32 Tensor; got {value}")
        self._value = value

    @property
    def value(self):
        return self._value

    def as_signature_def(self, receiver_tensors):
        examples = _single_string_input(receiver_tensors, "Regression")
        return signature_def_utils.regression_signature_def(examples, self.value)


class PredictOutput(ExportOutput):
    """Arbitrary named output tensors (the Predict API)."""

    _SINGLE_OUTPUT_DEFAULT_NAME = "output"

    def __init__(self, outputs):
        self._outputs = self._wrap_and_check_outputs(outputs, self._SINGLE_OUTPUT_DEFAULT_NAME,
                                                     error_label="Prediction")

    @property
    def outputs(self):
        return self._outputs

    def as_signature_def(self, receiver_tensors):
        return signature_def_utils.predict_signature_def(receiver_tensors, self.outputs)


def get_export_outputs(export_outputs, predictions):
    """The export outputs of a PREDICT EstimatorSpec: a PredictOutput of the predictions
    when none are given, the only one made the serving default."""
    if export_outputs is None:
        export_outputs = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                          PredictOutput(predictions)}
    if not isinstance(export_outputs, dict):
        raise TypeError(f"export_outputs must be dict, given: {export_outputs}")
    for value in export_outputs.values():
        if not isinstance(value, ExportOutput):
            raise TypeError("Values in export_outputs must be ExportOutput objects. "
                            f"Given: {export_outputs}")
    default_key = signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    if len(export_outputs) == 1:
        (key, value), = export_outputs.items()
        if key != default_key:
            export_outputs[default_key] = value
    if len(export_outputs) > 1 and default_key not in export_outputs:
        raise ValueError("Multiple export_outputs were provided, but none of them is specified "
                         "as the default.  Do this by naming one of them with "
                         "signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY.")
    return export_outputs


class _SupervisedOutput(ExportOutput):
    """Loss, predictions and metrics of a TRAIN or EVAL export (keys prefixed `loss`,
    `predictions`, `metrics/<name>/value` and `metrics/<name>/update_op`)."""

    LOSS_NAME = "loss"
    PREDICTIONS_NAME = "predictions"
    METRICS_NAME = "metrics"
    METRIC_VALUE_SUFFIX = "value"
    METRIC_UPDATE_SUFFIX = "update_op"

    def __init__(self, loss=None, predictions=None, metrics=None):
        self._loss = self._predictions = self._metrics = None
        if loss is not None:
            self._loss = self._prefix_output_keys(
                self._wrap_and_check_outputs(loss, self.LOSS_NAME), self.LOSS_NAME)
        if predictions is not None:
            self._predictions = self._prefix_output_keys(
                self._wrap_and_check_outputs(predictions, self.PREDICTIONS_NAME),
                self.PREDICTIONS_NAME)
        if metrics is not None:
            self._metrics = self._wrap_and_check_metrics(metrics)

    def _prefix_key(self, key, output_name):
        if key.find(output_name) != 0:
            key = output_name + self._SEPARATOR_CHAR + key
        return key

    def _prefix_output_keys(self, output_dict, output_name):
        return {self._prefix_key(k, output_name): v for k, v in output_dict.items()}

    def _wrap_and_check_metrics(self, metrics):
        if not isinstance(metrics, dict):
            raise ValueError(f"{self.METRICS_NAME} output value must be a dict; got {metrics}.")
        outputs = {}
        for key, (metric_val, metric_op) in metrics.items():
            key = self._prefix_key(self._check_output_key(key, self.METRICS_NAME),
                                   self.METRICS_NAME)
            if not isinstance(metric_val, Tensor):
                raise ValueError(f"{key} output value must be a Tensor; got {metric_val}.")
            if not isinstance(metric_op, (Tensor, Operation)):
                raise ValueError(f"{key} update_op must be a Tensor or Operation; got "
                                 f"{metric_op}.")
            metric_op_tensor = metric_op
            if not isinstance(metric_op, Tensor):
                with control_dependencies([metric_op]):
                    metric_op_tensor = constant([], name="metric_op_wrapper")
            outputs[key + self._SEPARATOR_CHAR + self.METRIC_VALUE_SUFFIX] = metric_val
            outputs[key + self._SEPARATOR_CHAR + self.METRIC_UPDATE_SUFFIX] = metric_op_tensor
        return outputs

    @property
    def loss(self):
        return self._loss

    @property
    def predictions(self):
        return self._predictions

    @property
    def metrics(self):
        return self._metrics


class TrainOutput(_SupervisedOutput):
    """The outputs of a TRAIN-mode export (a `tensorflow/supervised/training` signature)."""

    def as_signature_def(self, receiver_tensors):
        return signature_def_utils.supervised_train_signature_def(
            receiver_tensors, self.loss, self.predictions, self.metrics)


class EvalOutput(_SupervisedOutput):
    """The outputs of an EVAL-mode export (a `tensorflow/supervised/eval` signature)."""

    def as_signature_def(self, receiver_tensors):
        return signature_def_utils.supervised_eval_signature_def(
            receiver_tensors, self.loss, self.predictions, self.metrics)


def export_outputs_for_mode(mode, serving_export_outputs=None, predictions=None, loss=None,
                            metrics=None):
    """The export outputs of a mode: the serving ones for PREDICT, a TrainOutput under
    `train` or an EvalOutput under `eval`."""
    if mode == "infer":
        return get_export_outputs(serving_export_outputs, predictions)
    if mode == "train":
        return {"train": TrainOutput(loss=loss, predictions=predictions, metrics=metrics)}
    if mode == "eval":
        return {"eval": EvalOutput(loss=loss, predictions=predictions, metrics=metrics)}
    raise ValueError(f"Export output type not found for mode: {mode}")
