"""NumPy kernels of TopK/TopKV2 and InTopK/InTopKV2."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework import dtypes


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def top_k_indices(x, k):
    """Indices of the k largest entries along the last axis, largest first; equal
    values keep their original order (the lower index first), as TensorFlow does."""
    n = x.shape[-1]
    # A stable ascending sort of the reversed row, read backwards, orders values
    # descending with ties in increasing original index.
    order = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return (n - 1) - order[..., :k]


def top_k_v2(input, k, *, sorted, index_type):  # noqa: A002 - TF's arg names
    """TopKV2: (values, indices) of the k largest entries of each last-axis row.

    Raises:
      InvalidArgumentError: for k < 0, a scalar input, or rows shorter than k.
    """
    k = int(k)
    if k < 0:
        raise _invalid(f"Need k >= 0, got {k}")
    if input.ndim < 1:
        raise _invalid(f"input must be >= 1-D, got shape {_shape_str(input.shape)}")
    if input.shape[-1] < k:
        raise _invalid(f"input must have at least k columns. Had {input.shape[-1]}, "
                       f"needed {k}")
    idx = top_k_indices(input, k)
    values = np.take_along_axis(input, idx, axis=-1)
    return values, idx.astype(index_type.as_numpy_dtype, copy=False)


def top_k(input, *, k, sorted):  # noqa: A002
    """TopK (k as an attr): like TopKV2 with int32 indices."""
    return top_k_v2(input, k, sorted=sorted, index_type=dtypes.int32)


def in_top_k_v2(predictions, targets, k):
    """InTopKV2: whether each target's prediction is among the k largest of its row.

    A row whose target is out of range, or which holds a non-finite prediction, gives
    False; ties count in the target's favour (only strictly larger values rank above).

    Raises:
      InvalidArgumentError: for a non-2-D predictions, non-1-D targets or a size mismatch.
    """
    if predictions.ndim != 2:
        raise _invalid(f"predictions must be 2-dimensional{_shape_str(predictions.shape)}")
    if targets.ndim != 1:
        raise _invalid(f"targets must be 1-dimensional{_shape_str(targets.shape)}")
    batch, classes = predictions.shape
    if targets.shape[0] != batch:
        raise _invalid(f"First dimension of predictions {batch} must match length of "
                       f"targets {targets.shape[0]}")
    k = int(k)
    valid = (targets >= 0) & (targets < classes)
    safe = np.where(valid, targets, 0).astype(np.int64)
    target_pred = predictions[np.arange(batch), safe]
    finite_rows = np.all(np.isfinite(predictions), axis=1)
    larger = np.sum(predictions > target_pred[:, None], axis=1)
    return valid & finite_rows & (larger < k)


def in_top_k(predictions, targets, *, k):
    """InTopK (k as an attr)."""
    return in_top_k_v2(predictions, targets, k)
