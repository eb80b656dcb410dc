"""`tf.train.experimental.enable_mixed_precision_graph_rewrite` / `disable_...`.

TensorFlow's rewrite has two halves: it wraps the optimizer in a
MixedPrecisionLossScaleOptimizer, and it switches on Grappler's `auto_mixed_precision`
pass, which recasts eligible ops to float16 on GPUs only. trainflow runs on the CPU, where
TF's pass changes nothing, so enabling the rewrite here does what TF does on a CPU: it
wraps the optimizer and records that the rewrite is on (`is_enabled()`).
"""

from trainflow._src import tf_logging
from trainflow._src.train.loss_scale_optimizer import MixedPrecisionLossScaleOptimizer
from trainflow._src.train.optimizer import Optimizer

_enabled = {"on": False}


def is_enabled():
    """Whether enable_mixed_precision_graph_rewrite() is in effect."""
    return _enabled["on"]


def enable_mixed_precision_graph_rewrite(opt, loss_scale="dynamic"):
    """Returns `opt` wrapped in a MixedPrecisionLossScaleOptimizer and turns the mixed
    precision rewrite on.

    Args:
      opt: a tf.train.Optimizer.
      loss_scale: a number, "dynamic" (the default) or a LossScale.

    Raises:
      ValueError: if `opt` is already wrapped or is not an Optimizer.
    """
    if isinstance(opt, MixedPrecisionLossScaleOptimizer):
        raise ValueError('"opt" must not already be an instance of a '
                         'MixedPrecisionLossScaleOptimizer. `enable_mixed_precision_graph_rewrite` '
                         'will automatically wrap the optimizer with a '
                         'MixedPrecisionLossScaleOptimizer.')
    if not isinstance(opt, Optimizer):
        raise ValueError('"opt" must be an instance of a tf.train.Optimizer or a '
                         "tf.keras.optimizers.Optimizer, but got: %s" % opt)
    opt = MixedPrecisionLossScaleOptimizer(opt, loss_scale)
    _enabled["on"] = True
    return opt


def disable_mixed_precision_graph_rewrite():
    """Turns the rewrite off (warns if it was not on). Wrapped optimizers stay wrapped."""
    if not _enabled["on"]:
        tf_logging.warn("disable_mixed_precision_graph_rewrite() called when mixed "
                        "precision is already disabled.")
    _enabled["on"] = False
