"""SdcaShrinkL1 (`tf.train.sdca_shrink_l1`): the L1 proximal step of stochastic dual
coordinate ascent, applied to a list of float weight variables in place; and SdcaFprint
(`tf.train.sdca_fprint`): the 128-bit FarmHash fingerprints SDCA keys examples by.
The dual updates themselves (SdcaOptimizer / V2) live in sdca_optimizer.py.
"""
import numpy as np

from trainflow._src.framework import errors

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op


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


def _fprint_kernel(input):  # noqa: A002
    import farmhash
    if input.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, "Input must be a vector, got shape "
            "[" + ",".join(str(d) for d in input.shape) + "]")
    out = np.empty((input.size, 2), np.uint64)
    for i, s in enumerate(input):
        low, high = farmhash.fingerprint128(s if isinstance(s, bytes) else str(s).encode())
        # 0 and 1 never come out first, so they stay free as sentinel keys (TF's rule).
        out[i] = (low if low >= 2 else (low - 2) & 0xFFFFFFFFFFFFFFFF, high)
    return out.view(np.int64)


def _fprint_shape(op):
    shape = op.inputs[0].get_shape().with_rank(1)
    return [shape.concatenate([2])]


register_op("SdcaFprint", inputs=["input: string"], outputs=["output: int64"],
            shape_fn=_fprint_shape, kernel=_fprint_kernel)
NotDifferentiable("SdcaFprint")


def sdca_fprint(input, name=None):  # noqa: A002
    """The FarmHash Fingerprint128 of each string of a vector, as int64 [N, 2] (low and
    high 64 bits), never 0 or 1 in the first column."""
    return apply_op("SdcaFprint", input=input, name=name).outputs[0]
