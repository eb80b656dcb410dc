"""Row splits <-> segment ids (`tf.ragged.row_splits_to_segment_ids`,
`tf.ragged.segment_ids_to_row_splits`) and the int conversions the ragged code shares."""
__all__ = ["row_splits_to_segment_ids", "segment_ids_to_row_splits"]

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import range as range_
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.repeat import repeat
from trainflow._src.ops.array.shape import shape
from trainflow._src.ops.math.argmax_scan import cumsum
from trainflow._src.ops.math.histogram_ops import bincount


def convert_to_int_tensor(value, name, dtype=dtypes.int32):
    """`value` as an int32/int64 tensor (cast to `dtype` when it is a Python value).

    Raises:
      TypeError: for a tensor of another dtype.
    """
    value = convert_to_tensor(value, name=name, preferred_dtype=dtype) \
        if not isinstance(value, Tensor) else value
    if value.dtype.is_integer:
        return cast(value, dtype) if value.dtype != dtype else value
    raise TypeError(f"{name} must be an integer tensor; dtype={value.dtype.name}")


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """Row splits of the rows that sorted `segment_ids` describe: `splits[i]` is where
    segment `i` starts, `splits[-1]` the number of ids."""
    if out_type is None:
        out_type = segment_ids.dtype if isinstance(segment_ids, Tensor) else dtypes.int64
    with name_scope(name, "SegmentIdsToRaggedSplits", [segment_ids]):
        segment_ids = convert_to_int_tensor(segment_ids, "segment_ids")
        segment_ids.shape.assert_has_rank(1)
        if num_segments is not None:
            num_segments = convert_to_int_tensor(num_segments, "num_segments")
            num_segments.shape.assert_has_rank(0)
        lengths = bincount(segment_ids, minlength=num_segments, maxlength=num_segments,
                           dtype=out_type)
        splits = concat([np.zeros([1], dtypes.as_dtype(out_type).as_numpy_dtype),
                         cumsum(lengths)], axis=0)
        if num_segments is not None:
            known = constant_value(num_segments)
            if known is not None:
                splits.set_shape(TensorShape([int(known) + 1]))
        return splits


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of each value that `splits` partitions: `range(nrows)` repeated by the
    row lengths."""
    with name_scope(name, "RaggedSplitsToSegmentIds", [splits]):
        if not isinstance(splits, Tensor):
            splits = convert_to_tensor(splits, name="splits", preferred_dtype=dtypes.int64)
        if splits.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"splits must be an int32 or int64 tensor; dtype={splits.dtype.name}")
        if out_type is None:
            out_type = splits.dtype
        else:
            splits = cast(splits, out_type)
        splits.shape.assert_has_rank(1)
        lengths = splits[1:] - splits[:-1]
        nrows = shape(splits, out_type=out_type)[-1] - 1
        indices = range_(nrows)
        return repeat(indices, repeats=lengths, axis=0)
