"""The `tf.train.experimental` namespace (TF1): loss scaling for mixed precision."""
from trainflow._src.train.loss_scale import (  # noqa: F401
    DynamicLossScale, FixedLossScale, LossScale)
from trainflow._src.train.loss_scale_optimizer import MixedPrecisionLossScaleOptimizer  # noqa: F401
from trainflow._src.train.mixed_precision import (  # noqa: F401
    disable_mixed_precision_graph_rewrite, enable_mixed_precision_graph_rewrite)
