"""Segment reductions: (Unsorted)SegmentSum/Max/Min/Prod and SegmentMean.

`unsorted_segment_sum(data, ids, n)[i]` sums the rows of `data` whose id is i
(negative ids are dropped); the sorted `segment_*` forms take increasing ids
and produce max(id) + 1 segments. Empty segments give the reduction's
identity for the unsorted forms (0, 1, the type's lowest/highest finite value) and 0 for
the sorted forms, as in TensorFlow. Gradients: `segment_grad`.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.dtypes import float_info
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.math.reductions import accumulation_dtype, is_float_dtype

__all__ = ["segment_max", "segment_mean", "segment_min", "segment_prod", "segment_sum",
           "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
           "unsorted_segment_sum"]

_NUMBER = ("{float32, float64, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
           "qint32, bfloat16, qint16, quint16, uint16, complex128, float16, uint32, uint64}")
_REAL = ("{float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, float16, "
         "uint32, uint64}")


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _identity(kind, dt):
    if kind == "sum":
        return 0
    if kind == "prod":
        return 1
    if is_float_dtype(dt):
        # The type's lowest/highest finite value, as TensorFlow fills empty segments.
        info = float_info(dt)
        return info.min if kind == "max" else info.max
    info = np.iinfo(dt)
    return info.min if kind == "max" else info.max


_UFUNCS = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


def _scatter(kind, data, ids, num, fill_empty_with_zero=False):
    """Reduces rows of `data` (leading dims = ids' shape) into `num` segments."""
    dt = data.dtype
    rest = data.shape[ids.ndim:]
    flat_ids = ids.reshape(-1).astype(np.int64)
    rows = data.reshape((flat_ids.size,) + rest)
    acc = accumulation_dtype(dt) if kind in ("sum", "prod") else dt
    out = np.full((num,) + rest, _identity(kind, dt), dtype=acc)
    keep = flat_ids >= 0
    if not keep.all():
        flat_ids, rows = flat_ids[keep], rows[keep]
    _UFUNCS[kind].at(out, flat_ids, rows)
    if fill_empty_with_zero and kind in ("max", "min"):
        present = np.zeros(num, bool)
        present[flat_ids] = True
        out[~present] = 0
    return out.astype(dt, copy=False)


def _unsorted_kernel(kind):
    def kernel(data, segment_ids, num_segments):
        num = int(num_segments)
        if np.shape(data)[:np.ndim(segment_ids)] != np.shape(segment_ids):
            raise _invalid(f"data.shape = {list(np.shape(data))} does not start with "
                           f"segment_ids.shape = {list(np.shape(segment_ids))}")
        bad = segment_ids >= num
        if np.any(bad):
            i = int(np.argmax(bad.reshape(-1)))
            v = int(segment_ids.reshape(-1)[i])
            raise _invalid(f"segment_ids[{i}] = {v} is out of range [0, {num})")
        return _scatter(kind, np.asarray(data), np.asarray(segment_ids), num)
    return kernel


def _sorted_ids(segment_ids, data):
    if np.ndim(segment_ids) != 1:
        raise _invalid(f"segment_ids should be a vector, got shape "
                       f"{list(np.shape(segment_ids))}")
    if np.shape(data)[:1] != np.shape(segment_ids):
        raise _invalid(f"segment_ids should be the same size as dimension 0 of input: "
                       f"{np.size(segment_ids)} vs {np.shape(data)[:1]}")
    if segment_ids.size and segment_ids[0] < 0:
        raise _invalid(f"segment ids must be >= 0, got {int(segment_ids[0])}")
    if np.any(np.diff(segment_ids) < 0):
        raise _invalid("segment ids are not increasing")
    return int(segment_ids[-1]) + 1 if segment_ids.size else 0


def _sorted_kernel(kind):
    def kernel(data, segment_ids):
        num = _sorted_ids(segment_ids, data)
        return _scatter(kind, np.asarray(data), np.asarray(segment_ids), num,
                        fill_empty_with_zero=True)
    return kernel


def _segment_mean(data, segment_ids):
    num = _sorted_ids(segment_ids, data)
    data = np.asarray(data)
    dt = data.dtype
    wide = np.int64 if dt.kind in "iu" else accumulation_dtype(dt)
    total = _scatter("sum", data.astype(wide), np.asarray(segment_ids), num)
    counts = np.bincount(segment_ids.astype(np.int64), minlength=num)
    counts = counts.reshape((num,) + (1,) * (data.ndim - 1))
    safe = np.maximum(counts, 1)
    if dt.kind in "iu":
        q = total // safe
        q = q + ((total < 0) & (total % safe != 0))
        return q.astype(dt)
    return (total / safe.astype(total.dtype)).astype(dt, copy=False)


def _unsorted_shape(op):
    data, ids = op._inputs[0]._shape._dims, op._inputs[1]._shape._dims
    num = constant_value(op._inputs[2])
    head = (None if num is None else int(num),)
    if data is None or ids is None:
        return [unknown_shape()]
    for d, i in zip(data, ids):
        if d is not None and i is not None and d != i:
            raise ValueError(f"Dimensions must be equal, but are {d} and {i}")
    return [TensorShape._from_values(head + tuple(data[len(ids):]))]


def _sorted_shape(op):
    data, ids = op._inputs[0]._shape._dims, op._inputs[1]._shape._dims
    if ids is not None and len(ids) != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {len(ids)}")
    if data is None:
        return [unknown_shape()]
    if not data:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    return [TensorShape._from_values((None,) + tuple(data[1:]))]


_UNSORTED_ATTRS = ["Tindices: {int32, int64}", "Tnumsegments: {int32, int64} = DT_INT32"]
for _kind, _types in (("Sum", _NUMBER), ("Max", _REAL), ("Min", _REAL), ("Prod", _NUMBER)):
    _index_types = ["Tindices: {int16, int32, int64}"] if _kind == "Sum" else \
        _UNSORTED_ATTRS[:1]
    register_op(f"UnsortedSegment{_kind}",
                inputs=["data: T", "segment_ids: Tindices", "num_segments: Tnumsegments"],
                outputs=["output: T"],
                attrs=[f"T: {_types}", *_index_types, _UNSORTED_ATTRS[1]],
                shape_fn=_unsorted_shape, kernel=_unsorted_kernel(_kind.lower()))
    register_op(f"Segment{_kind}", inputs=["data: T", "segment_ids: Tindices"],
                outputs=["output: T"], attrs=[f"T: {_types}", "Tindices: {int32, int64}"],
                shape_fn=_sorted_shape, kernel=_sorted_kernel(_kind.lower()))
register_op("SegmentMean", inputs=["data: T", "segment_ids: Tindices"], outputs=["output: T"],
            attrs=[f"T: {_NUMBER}", "Tindices: {int32, int64}"], shape_fn=_sorted_shape,
            kernel=_segment_mean)


def _unsorted(op_type, doc):
    def fn(data, segment_ids, num_segments, name=None):
        return apply_op(op_type, data=data, segment_ids=segment_ids,
                        num_segments=num_segments, name=name).outputs[0]
    fn.__name__ = fn.__qualname__ = "unsorted_segment_" + op_type[15:].lower()
    fn.__doc__ = (f"{doc} of the rows of `data` that share a segment id (`{op_type}`).\n\n"
                  "Args:\n  data: the tensor; its leading dims match `segment_ids`' shape.\n"
                  "  segment_ids: int ids in [0, num_segments); negative ids are dropped.\n"
                  "  num_segments: the number of output rows.\n  name: the op name.\n\n"
                  "Raises:\n  InvalidArgumentError (at run time): for an id >= num_segments.")
    return fn


def _sorted(op_type, doc):
    def fn(data, segment_ids, name=None):
        return apply_op(op_type, data=data, segment_ids=segment_ids, name=name).outputs[0]
    fn.__name__ = fn.__qualname__ = "segment_" + op_type[7:].lower()
    fn.__doc__ = (f"{doc} of the rows of `data` per segment id (`{op_type}`).\n\n"
                  "Args:\n  data: the tensor.\n  segment_ids: a sorted int vector, one id per "
                  "row of data.\n  name: the op name.\n\nRaises:\n  InvalidArgumentError (at "
                  "run time): for unsorted or negative ids.")
    return fn


unsorted_segment_sum = _unsorted("UnsortedSegmentSum", "The sum")
unsorted_segment_max = _unsorted("UnsortedSegmentMax", "The maximum")
unsorted_segment_min = _unsorted("UnsortedSegmentMin", "The minimum")
unsorted_segment_prod = _unsorted("UnsortedSegmentProd", "The product")
segment_sum = _sorted("SegmentSum", "The sum")
segment_mean = _sorted("SegmentMean", "The mean")
segment_max = _sorted("SegmentMax", "The maximum")
segment_min = _sorted("SegmentMin", "The minimum")
segment_prod = _sorted("SegmentProd", "The product")
