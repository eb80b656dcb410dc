"""`tf.estimator.export.*Output`: what a model exports under one signature, and the
signature it becomes (TF 1.15's saved_model/model_utils/export_output.py)."""
import abc

from trainflow._src.framework import dtypes
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
