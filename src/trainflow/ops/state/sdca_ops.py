"""SdcaShrinkL1 (`tf.train.sdca_shrink_l1`): the L1 proximal step of stochastic dual
coordinate ascent, applied to a list of float weight variables in place.

The rest of TF's SDCA family (SdcaOptimizerV2's dual updates, SdcaFprint's 128-bit
farmhash fingerprints) is not provided.
"""
import numpy as np

from trainflow.framework.op_builder import apply_op
from trainflow.framework.registry import NotDifferentiable, register_op


def _shrink_kernel(weights, *, l1, l2):
    # The attrs are float32; TF divides them in double and applies the result in float.
    shrinkage = np.float32(np.float64(np.float32(l1)) / np.float64(np.float32(l2)))
    for ref in weights:
        w = ref.get()
        w[...] = np.sign(w) * np.maximum(np.abs(w) - shrinkage, 0)
    return None


register_op("SdcaShrinkL1", inputs=["weights: num_features * Ref(float)"], outputs=[],
            attrs=["num_features: int >= 0", "l1: float", "l2: float"],
            shape_fn=lambda op: [], kernel=_shrink_kernel, stateful=True)
NotDifferentiable("SdcaShrinkL1")


def sdca_shrink_l1(weights, l1, l2, name=None):
    """Shrinks every float variable in `weights` toward zero by l1 / l2:
    w = sign(w) * max(|w| - l1 / l2, 0). Returns the Operation.

    Args:
      weights: a list of float32 Variables (or their refs).
      l1, l2: the symmetric L1 and L2 regularization strengths (floats).
    """
    refs = [w._ref() if hasattr(w, "_ref") else w for w in weights]
    return apply_op("SdcaShrinkL1", weights=refs, l1=float(l1), l2=float(l2), name=name)
