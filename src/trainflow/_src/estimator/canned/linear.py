"""LinearClassifier and LinearRegressor (tensorflow_estimator 1.15's v1 `linear.py`): TF's
`linear_model` under `linear/` (`linear/linear_model/<column>/weights`,
`linear/linear_model/bias_weights`), trained by 'Ftrl' at 0.2 (optimizer=None: Ftrl at
min(0.2, 1/sqrt(#columns)), as TF)."""
import math

from trainflow._src.estimator.canned import head as head_lib
from trainflow._src.estimator.canned.optimizers import (get_optimizer_instance,
                                                         tf_checkpoint_scaffold)
from trainflow._src.estimator.estimator import Estimator
from trainflow._src.feature_column.layers import linear_model
from trainflow._src.framework import dtypes
from trainflow._src.losses.losses_impl import Reduction
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.shape import reshape, size
from trainflow._src.ops.math.arith import add_n, equal
from trainflow._src.ops.math.reductions import reduce_sum
from trainflow._src.ops.state import variable_scope as vs
from trainflow._src.ops.summary.summary_ops import histogram, scalar
from trainflow._src.train.ftrl import FtrlOptimizer

# TF's default (and upper bound of the) learning rate of the linear estimators.
_LEARNING_RATE = 0.2


def default_optimizer(feature_columns):
    return FtrlOptimizer(learning_rate=min(_LEARNING_RATE,
                                           1.0 / math.sqrt(len(feature_columns))))


def _fraction_of_zero(variables):
    """The fraction of zeros over all elements of `variables`."""
    with vs.variable_scope(None, default_name="zero_fraction"):
        zeros = add_n([reduce_sum(cast(equal(v, 0.0), dtypes.float32)) for v in variables])
        total = add_n([cast(size(v), dtypes.float32) for v in variables])
        return zeros / total


def linear_logits(features, units, feature_columns, sparse_combiner="sum"):
    """The logits of TF's v1 `_linear_logit_fn_builder` with its bias and zero summaries."""
    cols_to_vars = {}
    logits = linear_model(features, feature_columns, units=units,
                          sparse_combiner=sparse_combiner, cols_to_vars=cols_to_vars)
    bias = cols_to_vars.pop("bias")[0]
    if units > 1:
        histogram("bias", bias)
    else:
        scalar("bias", reshape(bias, [-1])[0])
    weights = [v for vs_ in cols_to_vars.values() for v in vs_]
    if weights:
        scalar("fraction_of_zero_weights", _fraction_of_zero(weights))
    return logits


def linear_logit_fn_builder(units, feature_columns, sparse_combiner="sum"):
    """A `logit_fn(features)` building the linear model's logits in the caller's variable
    scope (`tf.estimator.experimental.linear_logit_fn_builder`)."""
    def linear_logit_fn(features):
        return linear_logits(features, units, feature_columns, sparse_combiner)

    return linear_logit_fn


def _linear_model_fn(features, labels, mode, config, head, feature_columns, optimizer,
                     sparse_combiner):
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "
                         f"{type(features)}")
    optimizer = get_optimizer_instance(optimizer or default_optimizer(feature_columns),
                                       learning_rate=_LEARNING_RATE)
    with vs.variable_scope("linear", values=tuple(features.values())):
        logits = linear_logits(features, head.logits_dimension, feature_columns,
                               sparse_combiner)
        spec = head.create_estimator_spec(features=features, mode=mode, labels=labels,
                                          optimizer=optimizer, logits=logits)
    return tf_checkpoint_scaffold(spec, config, optimizer, slot_infix="part_0")


class _LinearEstimator(Estimator):
    def __init__(self, head, feature_columns, model_dir, optimizer, config, warm_start_from,
                 sparse_combiner):
        if not feature_columns:
            raise ValueError("feature_columns must be provided.")
        feature_columns = tuple(feature_columns)

        def _model_fn(features, labels, mode, config):
            return _linear_model_fn(features, labels, mode, config, head, feature_columns,
                                    optimizer, sparse_combiner)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class LinearClassifier(_LinearEstimator):
    """A linear classifier (TF's v1 `LinearClassifier`)."""

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, partitioner=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        del partitioner  # one device: variables are never partitioned
        head = head_lib.classifier_head(n_classes, weight_column, label_vocabulary,
                                        loss_reduction)
        super().__init__(head, feature_columns, model_dir, optimizer, config,
                         warm_start_from, sparse_combiner)


class LinearRegressor(_LinearEstimator):
    """A linear regressor (TF's v1 `LinearRegressor`)."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        del partitioner  # one device: variables are never partitioned
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, feature_columns, model_dir, optimizer, config,
                         warm_start_from, sparse_combiner)


class LinearEstimator(_LinearEstimator):
    """A linear model under a given head (TF's v1 `LinearEstimator`)."""

    def __init__(self, head, feature_columns, model_dir=None, optimizer="Ftrl", config=None,
                 partitioner=None, sparse_combiner="sum", warm_start_from=None):
        del partitioner  # one device: variables are never partitioned
        super().__init__(head, feature_columns, model_dir, optimizer, config,
                         warm_start_from, sparse_combiner)
