"""TF2's loss helpers for replicated training, `compute_average_loss` and
`scale_regularization_loss`; without a distribution strategy there is one replica."""
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import cast, shape
from trainflow._src.ops.math import arith, reductions

__all__ = ["compute_average_loss", "scale_regularization_loss"]

_NUM_REPLICAS = 1  # graph-mode TF1 programs run without a distribution strategy


def _scaled_by(losses, weights):
    """losses * weights, weights cast to the losses' dtype and squeezed or expanded by
    one trailing axis when their ranks differ by one (TF's rule)."""
    weights = cast.cast(weights, losses.dtype)
    lr, wr = losses.shape.ndims, weights.shape.ndims
    if lr is not None and wr is not None:
        if wr - lr == 1 and weights.shape.dims[-1].is_compatible_with(1):
            weights = shape.squeeze(weights, [-1])
        elif lr - wr == 1:
            weights = shape.expand_dims(weights, -1)
    return arith.multiply(losses, weights)


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size (0 when that is 0); the
    batch size defaults to the first dimension of per_example_loss (one replica).

    Raises:
      ValueError: for a scalar per_example_loss or a non-scalar global_batch_size.
      TypeError: for a non-integer global_batch_size.
    """
    per_example_loss = convert_to_tensor(per_example_loss)
    input_dtype = per_example_loss.dtype
    if per_example_loss.shape.ndims == 0:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor "
                         f"with at least rank 1. Received per_example_loss={per_example_loss} "
                         "with rank 0.")
    if sample_weight is not None:
        per_example_loss = _scaled_by(per_example_loss, convert_to_tensor(sample_weight))
    per_example_loss = cast.cast(per_example_loss, input_dtype)
    if global_batch_size is None:
        global_batch_size = arith.multiply(shape.shape(per_example_loss)[0], _NUM_REPLICAS)
    global_batch_size = convert_to_tensor(global_batch_size)
    if global_batch_size.shape.ndims not in (None, 0):
        raise ValueError("global_batch_size must be scalar.")
    if not global_batch_size.dtype.is_integer:
        raise TypeError("global_batch_size must be an integer.")
    loss = reductions.reduce_sum(per_example_loss)
    return arith.div_no_nan(loss, cast.cast(global_batch_size, input_dtype))


def scale_regularization_loss(regularization_loss):
    """sum(regularization_loss) / the number of replicas (1 without a strategy)."""
    return arith.truediv(reductions.reduce_sum(regularization_loss), _NUM_REPLICAS)
