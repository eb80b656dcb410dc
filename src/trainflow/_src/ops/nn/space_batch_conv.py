"""`tf.nn.with_space_to_batch`: runs a windowed op on the SpaceToBatchND form of its
input so that the op sees the input sampled at `dilation_rate` (the "atrous" form),
then BatchToSpaceND back, as TF does."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array import join, shape
from trainflow._src.ops.array.space_batch import batch_to_space_nd, space_to_batch_nd
from trainflow._src.ops.array.space_batch_paddings import required_space_to_batch_paddings
from trainflow._src.ops.nn.conv import convert_padding

__all__ = ["with_space_to_batch"]


def _base_paddings(filter_shape, n, rate):
    extra = (filter_shape[:n] - 1) * rate
    start = extra // 2
    end = extra - start
    return join.stack([[start[i], end[i]] for i in range(n)])


def _adjust(orig, fill, spatial_dims):
    """`orig` [len(spatial_dims), ...] spread to [max(spatial_dims), ...]: row
    spatial_dims[i] - 1 is orig[i], every other row `fill`."""
    value = constant_value(orig)
    rows = max(spatial_dims)
    if value is not None:
        out = np.full((rows,) + value.shape[1:], fill, value.dtype)
        for i, d in enumerate(spatial_dims):
            out[d - 1] = value[i]
        return out
    tail = orig.shape.as_list()[1:]
    pieces = []
    for d in range(1, rows + 1):
        if d in spatial_dims:
            i = spatial_dims.index(d)
            pieces.append(orig[i:i + 1])
        else:
            pieces.append(np.full([1] + tail, fill, orig.dtype.as_numpy_dtype))
    return join.concat(pieces, 0)


def _checked_spatial_dims(input, n, spatial_dims, first):  # noqa: A002
    """The sorted spatial axes (default the n after batch, or after batch and channels).

    Raises:
      ValueError: for axes not increasing and positive, or an input rank too small.
    """
    start = 2 if first else 1
    if spatial_dims is None:
        spatial_dims = range(start, n + start)
    orig = list(spatial_dims)
    spatial_dims = sorted(set(int(x) for x in orig))
    if spatial_dims != orig or any(x < 1 for x in spatial_dims):
        raise ValueError("`spatial_dims` must be a monotonically increasing sequence of "
                         f"positive integers. Received: spatial_dims={orig}")
    want_rank = spatial_dims[-1] if first else spatial_dims[-1] + 1
    try:
        input.shape.with_rank_at_least(want_rank)
    except ValueError:
        raise ValueError(f"`input.shape.rank` must be at least {want_rank}. Received: "
                         f"input.shape={input.shape} with rank {input.shape.ndims}") from None
    return spatial_dims


def _base_paddings_for(padding, filter_shape, n, rate, first):
    """The [n, 2] minimum paddings: SAME's from the filter, VALID's zeros, or the
    spatial rows of explicit pairs.

    Raises:
      ValueError: for SAME without filter_shape, or an unknown padding.
    """
    padding, explicit = convert_padding(padding)
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("`filter_shape` must be specified for `padding='SAME'`. "
                             f"Received: filter_shape={filter_shape} and padding={padding}")
        filter_shape = convert_to_tensor(filter_shape, name="filter_shape")
        const_filter = constant_value(filter_shape)
        return _base_paddings(filter_shape if const_filter is None else const_filter, n,
                              rate)
    if padding == "VALID":
        return np.zeros([n, 2], np.int32)
    if padding == "EXPLICIT":
        pairs = np.array(explicit).reshape([n + 2, 2])
        return pairs[2:] if first else pairs[1:-1]
    raise ValueError("`padding` must be one of 'SAME' or 'VALID'. "
                     f"Received: padding={padding}")


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None,  # noqa: A002
                        spatial_dims=None, data_format=None):
    """`op(input, num_spatial_dims, padding)` when every rate is 1; otherwise
    batch_to_space_nd(op(space_to_batch_nd(input, rate, paddings), n, "VALID"), rate,
    crops), with SAME padding made explicit from `filter_shape`.

    Args:
      input: the tensor; dilation_rate: int32 [N], the rate per spatial dim.
      padding: "SAME", "VALID" or explicit pairs.
      op: fn(converted_input, num_spatial_dims, padding) -> tensor.
      filter_shape: needed for SAME: the filter's shape, spatial dims first.
      spatial_dims: the N increasing spatial axes (default after batch, or after
        batch and channels when data_format starts with "NC").

    Raises:
      ValueError: for a malformed rate, spatial_dims or padding, a too small input
        rank, or SAME without filter_shape.
    """
    input = convert_to_tensor(input, name="input")
    rate = convert_to_tensor(dilation_rate, dtypes.int32, name="dilation_rate")
    if rate.shape.ndims not in (None, 1):
        raise ValueError("`dilation_rate.shape.rank` must be 1. Received: "
                         f"dilation_rate={rate} of rank {rate.shape.ndims}")
    if not rate.shape.is_fully_defined():
        raise ValueError("`dilation_rate.shape` must be fully defined. Received: "
                         f"dilation_rate={rate} with shape {rate.shape}")
    n = rate.shape.dims[0].value
    first = data_format is not None and data_format.startswith("NC")
    spatial_dims = _checked_spatial_dims(input, n, spatial_dims, first)
    const_rate = constant_value(rate)
    rate_value = rate
    if const_rate is not None:
        rate_value = const_rate
        if np.any(const_rate < 1):
            raise ValueError(f"`dilation_rate` must be positive. Received: "
                             f"dilation_rate={const_rate}")
        if np.all(const_rate == 1):
            return op(input, n, padding)
    base = _base_paddings_for(padding, filter_shape, n, rate_value, first)
    dims = input.shape.as_list() if input.shape.ndims is not None else None
    spatial = None if dims is None else [dims[i] for i in spatial_dims]
    if spatial is None or None in spatial:
        dynamic = shape.shape(input)
        spatial = join.stack([dynamic[i] for i in spatial_dims])
    paddings, crops = required_space_to_batch_paddings(input_shape=spatial,
                                                       base_paddings=base, block_shape=rate)
    block = _adjust(rate, 1, spatial_dims)
    paddings = _adjust(paddings, 0, spatial_dims)
    crops = _adjust(crops, 0, spatial_dims)
    converted = space_to_batch_nd(input, block, paddings)
    result = op(converted, n, "VALID")
    return batch_to_space_nd(result, block, crops)
