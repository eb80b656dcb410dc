"""`tf.estimator.EstimatorSpec`: what a model_fn returns, checked as TF 1.15 checks it."""
import collections

from trainflow._src import tf_logging as logging
from trainflow._src.estimator import export_output as export_output_lib
from trainflow._src.estimator.mode_keys import ModeKeys
from trainflow._src.estimator.util import fn_args
from trainflow._src.framework import tensor_shape
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.operation import Operation
from trainflow._src.framework.tensor import Tensor
from trainflow._src.ops.array.array_ops import reshape
from trainflow._src.ops.state.variables import Variable
from trainflow._src.train.scaffold import Scaffold
from trainflow._src.train.session_run_hook import SessionRunHook

LOSS_METRIC_KEY = "loss"
AVERAGE_LOSS_METRIC_KEY = "average_loss"

_GRAPH_ERROR = ('{0} with "{1}" must be from the default graph. '
                "Possible causes of this error include: \n\n"
                "1) {0} was created outside the context of the default graph."
                "\n\n"
                "2) The object passed through to EstimatorSpec was not created "
                'in the most recent call to "model_fn".')

_FIELDS = ["mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
           "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks",
           "prediction_hooks"]


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _FIELDS)):
    """Ops and objects returned from a `model_fn` and passed to an `Estimator`.

    TRAIN needs `loss` and `train_op`, EVAL needs `loss`, PREDICT needs `predictions`;
    PREDICT's `export_outputs` default to a PredictOutput of the predictions under the
    serving-default signature.
    """

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                export_outputs=None, training_chief_hooks=None, training_hooks=None,
                scaffold=None, evaluation_hooks=None, prediction_hooks=None):
        train_op = _validate_train_op(train_op, mode)
        loss = _validate_loss(loss, mode)
        predictions = _validate_predictions(predictions, mode)
        if mode == ModeKeys.PREDICT:
            export_outputs = export_output_lib.get_export_outputs(export_outputs, predictions)
        return super().__new__(
            cls, mode=mode, predictions=predictions, loss=loss, train_op=train_op,
            eval_metric_ops=_validate_eval_metric_ops(eval_metric_ops),
            export_outputs=export_outputs,
            training_chief_hooks=_validate_hooks(training_chief_hooks),
            training_hooks=_validate_hooks(training_hooks),
            scaffold=_validate_scaffold(scaffold),
            evaluation_hooks=_validate_hooks(evaluation_hooks),
            prediction_hooks=_validate_hooks(prediction_hooks))

    def _replace(self, **kwds):
        if "mode" in kwds and self.mode != kwds["mode"]:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        new_fields = map(kwds.pop, self._fields, list(self))
        return EstimatorSpec(*new_fields)


def _check_is_tensor(x, tensor_name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{tensor_name} must be Tensor, given: {x}")
    return x


def _check_graph(value, what, name):
    if value.graph is not get_default_graph():
        raise ValueError(_GRAPH_ERROR.format(what, name))


def _validate_train_op(train_op, mode):
    if train_op is None:
        if mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        return None
    if isinstance(train_op, Variable):
        train_op = train_op.op
    if not isinstance(train_op, (Operation, Tensor)):
        raise TypeError(f"train_op must be Operation or Tensor, given: {train_op}")
    _check_graph(train_op, "train_op", train_op.name)
    return train_op


def _validate_loss(loss, mode):
    if loss is None:
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError("Missing loss.")
        return None
    loss = _check_is_tensor(loss, "loss")
    loss_shape = loss.get_shape()
    if loss_shape.num_elements() not in (None, 1):
        raise ValueError(f"Loss must be scalar, given: {loss}")
    if not loss_shape.is_compatible_with(tensor_shape.TensorShape([])):
        loss = reshape(loss, [])
    _check_graph(loss, "loss", loss.name)
    return loss


def _validate_predictions(predictions, mode):
    if predictions is None:
        if mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions.")
        return {}
    if isinstance(predictions, dict):
        predictions = {k: _check_is_tensor(v, f"predictions[{k}]")
                       for k, v in predictions.items()}
        for key, value in predictions.items():
            _check_graph(value, "prediction values", f"{key}: {value.name}")
    else:
        predictions = _check_is_tensor(predictions, "predictions")
        _check_graph(predictions, "prediction values", predictions.name)
    return predictions


def _validate_hooks(hooks):
    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook}")
    return hooks


def _flatten(value):
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flatten(v)]
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in _flatten(value[k])]
    return [value]


def _validate_eval_metric_ops(eval_metric_ops):
    if eval_metric_ops is None:
        return {}
    if not isinstance(eval_metric_ops, dict):
        raise TypeError(f"eval_metric_ops must be a dict, given: {eval_metric_ops}")
    for key, value in eval_metric_ops.items():
        if not isinstance(value, tuple) or len(value) != 2:
            raise TypeError("Values of eval_metric_ops must be (metric_value, update_op) "
                            f"tuples, given: {value} for key: {key}")
    for key, value in eval_metric_ops.items():
        for val in _flatten(value):
            _check_graph(val, "eval_metric_ops", f"{key}: {val.name}")
    return eval_metric_ops


def _validate_scaffold(scaffold):
    scaffold = scaffold or Scaffold()
    if not isinstance(scaffold, Scaffold):
        raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")
    return scaffold


_VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "self", "config"}


def verify_model_fn_args(model_fn, params):
    """Checks model_fn's arguments as the Estimator constructor does."""
    args = set(fn_args(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(f"model_fn ({model_fn}) does not include params argument, "
                         f"but params ({params}) is passed to Estimator.")
    if params is None and "params" in args:
        logging.warning("Estimator's model_fn (%s) includes params argument, but params are "
                        "not passed to Estimator.", model_fn)
    non_valid_args = sorted(args - _VALID_MODEL_FN_ARGS)
    if non_valid_args:
        raise ValueError(f"model_fn ({model_fn}) has following not expected args: "
                         f"{non_valid_args}")


def call_logit_fn(logit_fn, features, mode, params, config):
    """Calls `logit_fn(features, [mode, params, config])` and checks it returned a Tensor or
    a dict of Tensors."""
    args = fn_args(logit_fn)
    kwargs = {k: v for k, v in (("mode", mode), ("params", params), ("config", config))
              if k in args}
    result = logit_fn(features=features, **kwargs)
    valid_dict = isinstance(result, dict) and all(
        isinstance(k, str) and isinstance(v, Tensor) for k, v in result.items())
    if not (valid_dict or isinstance(result, Tensor)):
        raise ValueError("logit_fn should return a Tensor or a dictionary mapping strings to "
                         f"Tensors.  logit_fn returned: {result}")
    return result
