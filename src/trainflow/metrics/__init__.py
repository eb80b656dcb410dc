"""`tf.metrics`: TF1's streaming metrics. Each returns `(value, update_op)` and keeps
its state in LOCAL_VARIABLES / METRIC_VARIABLES under a `<name>/` variable scope."""
from trainflow._src.metrics.average_precision_metrics import *  # noqa: F401,F403
from trainflow._src.metrics.classification_metrics import *  # noqa: F401,F403
from trainflow._src.metrics.mean_metrics import *  # noqa: F401,F403
from trainflow._src.metrics.top_k_metrics import *  # noqa: F401,F403
from trainflow._src.metrics import (
    average_precision_metrics, classification_metrics, mean_metrics, top_k_metrics)

__all__ = sorted(average_precision_metrics.__all__ + classification_metrics.__all__
                 + mean_metrics.__all__ + top_k_metrics.__all__)
del average_precision_metrics, classification_metrics, mean_metrics, top_k_metrics
