"""BaselineClassifier and BaselineRegressor (tensorflow_estimator 1.15's v1 `baseline.py`):
logits are one learned bias per class or label dimension (`baseline/bias`), ignoring the
features; Ftrl at 0.3 by default."""
from trainflow._src.estimator.canned import head as head_lib
from trainflow._src.estimator.canned.optimizers import get_optimizer_instance
from trainflow._src.estimator.estimator import Estimator
from trainflow._src.framework import dtypes
from trainflow._src.losses.losses_impl import Reduction
from trainflow._src.ops.array.layout import tile
from trainflow._src.ops.array.shape import reshape, shape
from trainflow._src.ops.array.join import stack
from trainflow._src.ops.state import variable_scope as vs
from trainflow._src.ops.state.init_ops import zeros_initializer

# TF's default learning rate of the baseline estimators.
_LEARNING_RATE = 0.3


def _batch_size(features, weight_column):
    """The batch size from the weight column, else the first feature (by name)."""
    if not isinstance(features, dict) or not features:
        raise ValueError(f"features should be a non-empty dictionary of `Tensor`s. Given: "
                         f"{features}")
    if weight_column is not None:
        key = weight_column if isinstance(weight_column, str) else weight_column.key
    else:
        key = sorted(features)[0]
    feature = features[key]
    if hasattr(feature, "dense_shape"):
        return feature.dense_shape[0]
    return shape(feature, out_type=dtypes.int32)[0]


def _baseline_model_fn(features, labels, mode, head, optimizer, weight_column):
    size = head.logits_dimension
    batch = _batch_size(features, weight_column)
    with vs.variable_scope("baseline"):
        bias = vs.get_variable("bias", shape=[size], initializer=zeros_initializer())
        logits = tile(reshape(bias, [1, size]), stack([batch, 1]))
    return head.create_estimator_spec(
        features=features, mode=mode, labels=labels, logits=logits,
        optimizer=get_optimizer_instance(optimizer, learning_rate=_LEARNING_RATE))


class _BaselineEstimator(Estimator):
    def __init__(self, head, model_dir, weight_column, optimizer, config):
        def _model_fn(features, labels, mode, config):
            del config
            return _baseline_model_fn(features, labels, mode, head, optimizer, weight_column)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)


class BaselineClassifier(_BaselineEstimator):
    """A classifier predicting the label distribution seen in training (TF's v1)."""

    def __init__(self, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
                 optimizer="Ftrl", config=None, loss_reduction=Reduction.SUM):
        head = head_lib.classifier_head(n_classes, weight_column, label_vocabulary,
                                        loss_reduction)
        super().__init__(head, model_dir, weight_column, optimizer, config)


class BaselineRegressor(_BaselineEstimator):
    """A regressor predicting the mean label seen in training (TF's v1)."""

    def __init__(self, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, loss_reduction=Reduction.SUM):
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, model_dir, weight_column, optimizer, config)


class BaselineEstimator(_BaselineEstimator):
    """Logits from one learned bias per logit under a given head (TF's v1
    `BaselineEstimator`)."""

    def __init__(self, head, model_dir=None, optimizer="Ftrl", config=None):
        super().__init__(head, model_dir, getattr(head, "_weight_column", None), optimizer,
                         config)
