"""DNNClassifier and DNNRegressor (tensorflow_estimator 1.15's v1 `dnn.py`): feed-forward
layers under TF's variable names (`dnn/hiddenlayer_<i>/kernel|bias`, `dnn/logits/kernel|bias`,
`dnn/input_from_feature_columns/input_layer/...`) so model_dirs move to and from TensorFlow."""
from trainflow._src.estimator.canned import head as head_lib
from trainflow._src.estimator.canned.optimizers import (get_optimizer_instance,
                                                         tf_checkpoint_scaffold)
from trainflow._src.estimator.estimator import Estimator
from trainflow._src.estimator.mode_keys import ModeKeys
from trainflow._src.feature_column.layers import input_layer
from trainflow._src.layers.core import dense, dropout as dropout_layer
from trainflow._src.losses.losses_impl import Reduction
from trainflow._src.ops.nn.activation import relu
from trainflow._src.ops.nn.nn_ops import zero_fraction
from trainflow._src.ops.state import variable_scope as vs
from trainflow._src.ops.state.init_ops import glorot_uniform_initializer
from trainflow._src.ops.summary.summary_ops import histogram, scalar

# TF's default learning rate of the DNN estimators.
_LEARNING_RATE = 0.05


def add_hidden_layer_summary(value, tag):
    scalar(f"{tag}/fraction_of_zero_values", zero_fraction(value))
    histogram(f"{tag}/activation", value)


def dnn_logits(features, mode, units, hidden_units, feature_columns, activation_fn, dropout,
               batch_norm=False):
    """The logits of TF's `_DNNModel` inside the caller's variable scope."""
    if batch_norm:
        raise ValueError("batch_norm is not supported by the v1 DNN estimators here.")
    with vs.variable_scope("input_from_feature_columns"):
        net = input_layer(features, feature_columns)
    for layer_id, num_units in enumerate(hidden_units):
        scope = f"hiddenlayer_{layer_id}"
        net = dense(net, units=num_units, activation=activation_fn,
                    kernel_initializer=glorot_uniform_initializer(), name=scope)
        if dropout is not None and mode == ModeKeys.TRAIN:
            net = dropout_layer(net, rate=dropout, training=True)
        add_hidden_layer_summary(net, f"{vs.get_variable_scope().name}/{scope}")
    logits = dense(net, units=units, activation=None,
                   kernel_initializer=glorot_uniform_initializer(), name="logits")
    add_hidden_layer_summary(logits, f"{vs.get_variable_scope().name}/logits")
    return logits


def dnn_logit_fn_builder(units, hidden_units, feature_columns, activation_fn, dropout,
                         input_layer_partitioner, batch_norm):
    """A `logit_fn(features, mode)` building the DNN's logits in the caller's variable scope
    (`tf.estimator.experimental.dnn_logit_fn_builder`)."""
    del input_layer_partitioner  # one device: the input layer is never partitioned
    if isinstance(units, bool) or not isinstance(units, int):
        raise ValueError(f"units must be an int.  Given type: {type(units)}")

    def dnn_logit_fn(features, mode):
        return dnn_logits(features, mode, units, hidden_units, feature_columns, activation_fn,
                          dropout, batch_norm)

    return dnn_logit_fn


def _check_features(features):
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "
                         f"{type(features)}")


def _dnn_model_fn(features, labels, mode, config, head, hidden_units, feature_columns,
                  optimizer, activation_fn, dropout, batch_norm=False):
    _check_features(features)
    optimizer = get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE)
    with vs.variable_scope("dnn", values=tuple(features.values())):
        logits = dnn_logits(features, mode, head.logits_dimension, hidden_units,
                            feature_columns, activation_fn, dropout, batch_norm)
        spec = head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                          optimizer=optimizer, logits=logits)
    return tf_checkpoint_scaffold(spec, config, optimizer, slot_infix="t_0")


class _DNNEstimator(Estimator):
    def __init__(self, head, hidden_units, feature_columns, model_dir, optimizer,
                 activation_fn, dropout, config, warm_start_from, batch_norm):
        if not feature_columns:
            raise ValueError("feature_columns must be provided.")
        hidden_units = tuple(hidden_units)
        feature_columns = tuple(feature_columns)

        def _model_fn(features, labels, mode, config):
            return _dnn_model_fn(features, labels, mode, config, head, hidden_units,
                                 feature_columns, optimizer, activation_fn, dropout,
                                 batch_norm)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNClassifier(_DNNEstimator):
    """A classifier for TensorFlow DNN models (TF's v1 `DNNClassifier`)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, optimizer="Adagrad",
                 activation_fn=relu, dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False):
        del input_layer_partitioner  # one device: the input layer is never partitioned
        head = head_lib.classifier_head(n_classes, weight_column, label_vocabulary,
                                        loss_reduction)
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer,
                         activation_fn, dropout, config, warm_start_from, batch_norm)


class DNNRegressor(_DNNEstimator):
    """A regressor for TensorFlow DNN models (TF's v1 `DNNRegressor`)."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1,
                 weight_column=None, optimizer="Adagrad", activation_fn=relu, dropout=None,
                 input_layer_partitioner=None, config=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, batch_norm=False):
        del input_layer_partitioner  # one device: the input layer is never partitioned
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer,
                         activation_fn, dropout, config, warm_start_from, batch_norm)


class DNNEstimator(_DNNEstimator):
    """A DNN under a given head (TF's v1 `DNNEstimator`)."""

    def __init__(self, head, hidden_units, feature_columns, model_dir=None, optimizer="Adagrad",
                 activation_fn=relu, dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, batch_norm=False):
        del input_layer_partitioner  # one device: the input layer is never partitioned
        super().__init__(head, hidden_units, feature_columns, model_dir, optimizer,
                         activation_fn, dropout, config, warm_start_from, batch_norm)
