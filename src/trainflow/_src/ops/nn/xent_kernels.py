"""NumPy kernels of the fused cross-entropy ops and L2Loss.

Both cross-entropy kernels work on [batch, classes] logits with a stable
log-sum-exp (the row maximum subtracted first) and return (loss, backprop), where
backprop = softmax(logits) - labels is the gradient of the loss. half and
bfloat16 are computed in float32.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.nn.activation_kernels import upcast


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _softmax_parts(x):
    """(shifted logits, softmax, log of the row sums of exp(shifted)) for 2-D float x.

    As TensorFlow's kernels: the row maximum subtracted, and the softmax as
    exp(shifted) / its row sum (one exp, divided in place).
    """
    shifted = x - np.max(x, axis=-1, keepdims=True)
    probs = np.exp(shifted)
    sums = np.sum(probs, axis=-1, keepdims=True)
    np.divide(probs, sums, out=probs)
    return shifted, probs, np.log(sums, out=sums)


def softmax_xent(features, labels):
    """SoftmaxCrossEntropyWithLogits: labels is a distribution per row.

    Labels and logits broadcast against each other (e.g. one row of labels for the
    whole batch) and must make a 2-D shape.

    Returns:
      (loss [batch], backprop [batch, classes]) in the logits' dtype.

    Raises:
      InvalidArgumentError: if the shapes do not broadcast to a 2-D shape.
    """
    try:
        shape = np.broadcast_shapes(features.shape, labels.shape)
    except ValueError:
        raise _invalid(f"logits and labels must be broadcastable: logits_size="
                       f"{_shape_str(features.shape)} labels_size="
                       f"{_shape_str(labels.shape)}") from None
    if len(shape) != 2:
        raise _invalid("logits and labels must be either 2-dimensional, or broadcasted to be "
                       "2-dimensional")
    x = np.broadcast_to(upcast(features), shape)
    z = np.broadcast_to(upcast(labels), shape)
    shifted, backprop, log_sum = _softmax_parts(x)
    np.subtract(log_sum, shifted, out=shifted)
    np.multiply(z, shifted, out=shifted)
    loss = np.sum(shifted, axis=-1)
    np.subtract(backprop, z, out=backprop)
    dtype = features.dtype
    return loss.astype(dtype, copy=False), backprop.astype(dtype, copy=False)


def sparse_softmax_xent(features, labels):
    """SparseSoftmaxCrossEntropyWithLogits: labels holds one class index per row.

    Returns:
      (loss [batch], backprop [batch, classes]) in the logits' dtype.

    Raises:
      InvalidArgumentError: for non-2-D logits, non-1-D labels, mismatched batch
        sizes, zero classes, or a label outside [0, classes).
    """
    if features.ndim != 2:
        raise _invalid(f"logits must be 2-D, but got shape {_shape_str(features.shape)}")
    if labels.ndim != 1:
        raise _invalid(f"labels must be 1-D, but got shape {_shape_str(labels.shape)}")
    batch, classes = features.shape
    if labels.shape[0] != batch:
        raise _invalid("logits and labels must have the same first dimension, got logits "
                       f"shape {_shape_str(features.shape)} and labels shape "
                       f"{_shape_str(labels.shape)}")
    if classes == 0:
        raise _invalid(f"Must have at least one class, but got logits shape "
                       f"{_shape_str(features.shape)}")
    # Negative labels read as unsigned are huge: one comparison finds both kinds.
    bad = labels.view(labels.dtype.str.replace("i", "u")) >= classes
    if bad.any():
        first = int(labels[np.argmax(bad)])
        values = " ".join(str(int(v)) for v in labels)
        raise _invalid(f"Received a label value of {first} which is outside the valid range "
                       f"of [0, {classes}).  Label values: {values}")
    x = upcast(features)
    shifted, backprop, log_sum = _softmax_parts(x)
    rows = np.arange(batch)
    loss = log_sum[:, 0] - shifted[rows, labels]
    backprop[rows, labels] -= 1
    dtype = features.dtype
    return loss.astype(dtype, copy=False), backprop.astype(dtype, copy=False)


def l2_loss(t):
    """sum(t ** 2) / 2 as a scalar of t's dtype (half/bfloat16 summed in float32)."""
    x = upcast(t)
    return np.asarray(np.sum(np.square(x)) / 2, dtype=t.dtype)
