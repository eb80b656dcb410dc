"""DNNLinearCombinedClassifier / Regressor (tensorflow_estimator 1.15's v1
`dnn_linear_combined.py`): a wide linear part under `linear/` (Ftrl) and a deep part under
`dnn/` (Adagrad) whose logits add; each optimizer trains its own scope's variables."""
import math

from trainflow._src.estimator.canned import head as head_lib
from trainflow._src.estimator.canned.dnn import add_hidden_layer_summary, dnn_logits
from trainflow._src.estimator.canned.linear import linear_logits
from trainflow._src.estimator.canned.optimizers import get_optimizer_instance
from trainflow._src.estimator.estimator import Estimator
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import control_dependencies, get_collection
from trainflow._src.losses.losses_impl import Reduction
from trainflow._src.ops.control_flow.control_flow_ops import group
from trainflow._src.ops.nn.activation import relu
from trainflow._src.ops.state import variable_scope as vs
from trainflow._src.ops.state.state_ops import assign_add
from trainflow._src.train import training_util

# TF's default learning rates of the combined estimators.
_DNN_LEARNING_RATE = 0.001
_LINEAR_LEARNING_RATE = 0.005


def _linear_learning_rate(num_linear_feature_columns):
    return min(_LINEAR_LEARNING_RATE, 1.0 / math.sqrt(num_linear_feature_columns))


def _combined_logits(features, mode, units, linear_columns, dnn_columns, hidden_units,
                     activation_fn, dropout, batch_norm, sparse_combiner):
    logits = []
    if dnn_columns:
        with vs.variable_scope("dnn", values=tuple(features.values())):
            logits.append(dnn_logits(features, mode, units, hidden_units, dnn_columns,
                                     activation_fn, dropout, batch_norm))
    if linear_columns:
        with vs.variable_scope("linear", values=tuple(features.values())) as scope:
            linear = linear_logits(features, units, linear_columns, sparse_combiner)
            add_hidden_layer_summary(linear, scope.name)
            logits.append(linear)
    return logits[0] if len(logits) == 1 else logits[0] + logits[1]


def _model_fn(features, labels, mode, head, settings):
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "
                         f"{type(features)}")
    linear_columns, dnn_columns = settings["linear_columns"], settings["dnn_columns"]
    logits = _combined_logits(features, mode, head.logits_dimension, linear_columns,
                              dnn_columns, settings["hidden_units"], settings["activation_fn"],
                              settings["dropout"], settings["batch_norm"],
                              settings["sparse_combiner"])

    def _train_op_fn(loss):
        global_step = training_util.get_global_step()
        train_ops = []
        if dnn_columns:
            optimizer = get_optimizer_instance(settings["dnn_optimizer"],
                                               learning_rate=_DNN_LEARNING_RATE)
            train_ops.append(optimizer.minimize(loss, var_list=get_collection(
                GraphKeys.TRAINABLE_VARIABLES, scope="dnn")))
        if linear_columns:
            optimizer = get_optimizer_instance(
                settings["linear_optimizer"],
                learning_rate=_linear_learning_rate(len(linear_columns)))
            train_ops.append(optimizer.minimize(loss, var_list=get_collection(
                GraphKeys.TRAINABLE_VARIABLES, scope="linear")))
        train_op = group(*train_ops)
        with control_dependencies([train_op]):
            return assign_add(global_step, 1).op

    return head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                      train_op_fn=_train_op_fn, logits=logits)


class _CombinedEstimator(Estimator):
    def __init__(self, head, model_dir, config, warm_start_from, **settings):
        linear_columns = tuple(settings["linear_columns"] or ())
        dnn_columns = tuple(settings["dnn_columns"] or ())
        if not linear_columns and not dnn_columns:
            raise ValueError("Either linear_feature_columns or dnn_feature_columns must be "
                             "defined.")
        if dnn_columns and not settings["hidden_units"]:
            raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is "
                             "specified.")
        settings.update(linear_columns=linear_columns, dnn_columns=dnn_columns)

        def _fn(features, labels, mode, config):
            del config
            return _model_fn(features, labels, mode, head, settings)

        super().__init__(model_fn=_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class DNNLinearCombinedClassifier(_CombinedEstimator):
    """A wide & deep classifier (TF's v1 `DNNLinearCombinedClassifier`)."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=relu, dnn_dropout=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False,
                 linear_sparse_combiner="sum"):
        del input_layer_partitioner  # one device: the input layer is never partitioned
        head = head_lib.classifier_head(n_classes, weight_column, label_vocabulary,
                                        loss_reduction)
        super().__init__(head, model_dir, config, warm_start_from,
                         linear_columns=linear_feature_columns,
                         linear_optimizer=linear_optimizer, dnn_columns=dnn_feature_columns,
                         dnn_optimizer=dnn_optimizer, hidden_units=dnn_hidden_units,
                         activation_fn=dnn_activation_fn, dropout=dnn_dropout,
                         batch_norm=batch_norm, sparse_combiner=linear_sparse_combiner)


class DNNLinearCombinedRegressor(_CombinedEstimator):
    """A wide & deep regressor (TF's v1 `DNNLinearCombinedRegressor`)."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=relu, dnn_dropout=None, label_dimension=1,
                 weight_column=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False,
                 linear_sparse_combiner="sum"):
        del input_layer_partitioner  # one device: the input layer is never partitioned
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, model_dir, config, warm_start_from,
                         linear_columns=linear_feature_columns,
                         linear_optimizer=linear_optimizer, dnn_columns=dnn_feature_columns,
                         dnn_optimizer=dnn_optimizer, hidden_units=dnn_hidden_units,
                         activation_fn=dnn_activation_fn, dropout=dnn_dropout,
                         batch_norm=batch_norm, sparse_combiner=linear_sparse_combiner)


class DNNLinearCombinedEstimator(_CombinedEstimator):
    """A wide & deep model under a given head (TF's v1 `DNNLinearCombinedEstimator`)."""

    def __init__(self, head, model_dir=None, linear_feature_columns=None,
                 linear_optimizer="Ftrl", dnn_feature_columns=None, dnn_optimizer="Adagrad",
                 dnn_hidden_units=None, dnn_activation_fn=relu, dnn_dropout=None,
                 input_layer_partitioner=None, config=None, linear_sparse_combiner="sum"):
        del input_layer_partitioner  # one device: the input layer is never partitioned
        super().__init__(head, model_dir, config, None,
                         linear_columns=linear_feature_columns,
                         linear_optimizer=linear_optimizer, dnn_columns=dnn_feature_columns,
                         dnn_optimizer=dnn_optimizer, hidden_units=dnn_hidden_units,
                         activation_fn=dnn_activation_fn, dropout=dnn_dropout,
                         batch_norm=False, sparse_combiner=linear_sparse_combiner)
