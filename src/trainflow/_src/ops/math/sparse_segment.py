"""Sparse segment reductions: SparseSegmentSum/Mean/SqrtN (and their WithNumSegments
forms) over the rows `data[indices]`, their gradient ops SparseSegment{Sum,Mean,SqrtN}Grad,
and the composite `unsorted_segment_mean` / `unsorted_segment_sqrt_n`.

Rows are grouped by sorted `segment_ids`; empty segments give 0. The mean divides
by the segment's size, sqrt_n by its square root. Gradients: the Sum gradient
scatters the output gradient back with UnsortedSegmentSum (TF 1.x's graph), the
Mean and SqrtN gradients use the Grad ops, which have no gradient themselves.
"""
import numpy as np

from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array.shape_util import UNKNOWN, dims_of, invalid_argument, shape_of
from trainflow._src.ops.math.reductions import accumulation_dtype
from trainflow._src.ops.array import cast, create, gather, join, shape as shape_lib
from trainflow._src.ops.math import arith, segment

__all__ = ["sparse_segment_mean", "sparse_segment_sqrt_n", "sparse_segment_sum",
           "unsorted_segment_mean", "unsorted_segment_sqrt_n"]

_TYPES = "{bfloat16, float16, float32, float64, int32, int64, int8, uint8, int16, uint16}"
_FLOAT = "{bfloat16, float16, float32, float64}"
_INDEX_ATTRS = ["Tidx: {int32, int64} = DT_INT32", "Tsegmentids: {int32, int64} = DT_INT32"]


def _check(data, indices, segment_ids, num=None):
    if np.ndim(indices) != 1:
        raise invalid_argument(f"indices should be a vector, got shape "
                               f"{list(np.shape(indices))}")
    if np.ndim(segment_ids) != 1:
        raise invalid_argument(f"segment_ids should be a vector, got shape "
                               f"{list(np.shape(segment_ids))}")
    if indices.size != segment_ids.size:
        raise invalid_argument(f"segment_ids and indices should have same size. "
                               f"segment_ids: {segment_ids.size} indices: {indices.size}")
    rows = data.shape[0]
    bad = (indices < 0) | (indices >= rows)
    if bad.any():
        i = int(np.argmax(bad))
        raise invalid_argument(f"Bad: indices[{i}] == {int(indices[i])} out of range "
                               f"[0, {rows})")
    if segment_ids.size:
        if segment_ids[0] < 0 or np.any(np.diff(segment_ids) < 0):
            raise invalid_argument("segment ids are not increasing")
    last = int(segment_ids[-1]) + 1 if segment_ids.size else 0
    if num is None:
        return last
    if last > num:
        raise invalid_argument(f"segment ids must be < num_segments: {last - 1} >= {num}")
    return num


def _reduce(kind, data, indices, segment_ids, num_segments=None):
    data = np.asarray(data)
    indices = np.asarray(indices).astype(np.int64)
    segment_ids = np.asarray(segment_ids).astype(np.int64)
    num = _check(data, indices, segment_ids,
                 None if num_segments is None else int(num_segments))
    dt = data.dtype
    wide = accumulation_dtype(dt) if dt.kind == "f" else np.int64
    out = np.zeros((num,) + data.shape[1:], dtype=wide)
    np.add.at(out, segment_ids, data[indices].astype(wide))
    if kind != "sum":
        counts = np.bincount(segment_ids, minlength=num).astype(wide)
        counts = np.maximum(counts, 1).reshape((num,) + (1,) * (data.ndim - 1))
        out = out / (np.sqrt(counts) if kind == "sqrt_n" else counts)
    return out.astype(dt)


def _kernel(kind, with_num):
    if with_num:
        def kernel(data, indices, segment_ids, num_segments):
            return _reduce(kind, data, indices, segment_ids, num_segments)
    else:
        def kernel(data, indices, segment_ids):
            return _reduce(kind, data, indices, segment_ids)
    return kernel


def _shape(op):
    data = dims_of(op.inputs[0])
    for t in op.inputs[1:3]:
        d = dims_of(t)
        if d is not None and len(d) != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {len(d)}")
    if data is None:
        return [UNKNOWN]
    if not data:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    num = None
    if len(op.inputs) == 4:
        value = constant_value(op.inputs[3])
        num = None if value is None else int(value)
    return [shape_of((num,) + tuple(data[1:]))]


for _kind, _op in (("sum", "Sum"), ("mean", "Mean"), ("sqrt_n", "SqrtN")):
    _types = _TYPES if _kind == "sum" else _FLOAT
    register_op(f"SparseSegment{_op}", inputs=["data: T", "indices: Tidx",
                                               "segment_ids: Tsegmentids"],
                outputs=["output: T"], attrs=[f"T: {_types}", *_INDEX_ATTRS],
                shape_fn=_shape, kernel=_kernel(_kind, False))
    register_op(f"SparseSegment{_op}WithNumSegments",
                inputs=["data: T", "indices: Tidx", "segment_ids: Tsegmentids",
                        "num_segments: Tnumsegments"],
                outputs=["output: T"],
                attrs=[f"T: {_types}", *_INDEX_ATTRS,
                       "Tnumsegments: {int32, int64} = DT_INT32"],
                shape_fn=_shape, kernel=_kernel(_kind, True))


# -- the gradient ops: scatter the segments' gradients back to data's rows --------------
def _grad_kernel(kind):
    def kernel(grad, indices, segment_ids, output_dim0):
        grad = np.asarray(grad)
        indices = np.asarray(indices).astype(np.int64)
        segment_ids = np.asarray(segment_ids).astype(np.int64)
        n = int(output_dim0)
        if np.any((indices < 0) | (indices >= n)):
            raise invalid_argument(f"Index out of range [0, {n})")
        if segment_ids.size and (segment_ids.min() < 0 or segment_ids.max() >= grad.shape[0]):
            raise invalid_argument(f"Segment id out of range [0, {grad.shape[0]})")
        rows = grad[segment_ids]
        if kind != "sum":
            counts = np.bincount(segment_ids, minlength=grad.shape[0]).astype(np.float64)
            scale = 1.0 / (np.sqrt(counts) if kind == "sqrt_n" else counts)[segment_ids]
            rows = rows * scale.reshape((-1,) + (1,) * (grad.ndim - 1)).astype(rows.dtype)
        out = np.zeros((n,) + grad.shape[1:], dtype=grad.dtype)
        np.add.at(out, indices, rows)
        return out
    return kernel


def _grad_shape(op):
    g = dims_of(op.inputs[0])
    value = constant_value(op.inputs[3])
    if g is None:
        return [UNKNOWN]
    return [shape_of((None if value is None else int(value),) + tuple(g[1:]))]


for _kind, _op in (("sum", "Sum"), ("mean", "Mean"), ("sqrt_n", "SqrtN")):
    register_op(f"SparseSegment{_op}Grad",
                inputs=["grad: T", "indices: Tidx", "segment_ids: Tsegmentids",
                        "output_dim0: int32"],
                outputs=["output: T"], attrs=[f"T: {_FLOAT}", *_INDEX_ATTRS],
                shape_fn=_grad_shape, kernel=_grad_kernel(_kind))
    NotDifferentiable(f"SparseSegment{_op}Grad")


def _dim0(op):
    return cast.cast(shape_lib.shape(op.inputs[0])[0], "int32")


@RegisterGradient("SparseSegmentSum")
def _sparse_segment_sum_grad(op, grad):
    dim0 = shape_lib.shape(op.inputs[0])[0]
    return (segment.unsorted_segment_sum(gather.gather(grad, op.inputs[2]),
                                          op.inputs[1], dim0), None, None)


@RegisterGradient("SparseSegmentSumWithNumSegments")
def _sparse_segment_sum_num_grad(op, grad):
    return _sparse_segment_sum_grad(op, grad)[:3] + (None,)


def _grad_op_gradient(op_type, with_num):
    def fn(op, grad):
        out = apply_op(op_type, grad=grad, indices=op.inputs[1], segment_ids=op.inputs[2],
                       output_dim0=_dim0(op)).outputs[0]
        return (out, None, None, None) if with_num else (out, None, None)
    return fn


for _op in ("Mean", "SqrtN"):
    RegisterGradient(f"SparseSegment{_op}")(_grad_op_gradient(f"SparseSegment{_op}Grad", False))
    RegisterGradient(f"SparseSegment{_op}WithNumSegments")(
        _grad_op_gradient(f"SparseSegment{_op}Grad", True))


def _sparse(op_type, what):
    def fn(data, indices, segment_ids, name=None, num_segments=None):
        if num_segments is not None:
            return apply_op(f"{op_type}WithNumSegments", data=data, indices=indices,
                            segment_ids=segment_ids, num_segments=num_segments,
                            name=name).outputs[0]
        return apply_op(op_type, data=data, indices=indices, segment_ids=segment_ids,
                        name=name).outputs[0]
    fn.__name__ = fn.__qualname__ = "sparse_segment_" + {"SparseSegmentSum": "sum",
                                                          "SparseSegmentMean": "mean",
                                                          "SparseSegmentSqrtN": "sqrt_n"}[op_type]
    fn.__doc__ = (f"The {what} of the rows `data[indices]` per sorted segment id "
                  f"(`{op_type}`, or `{op_type}WithNumSegments` given num_segments).\n\n"
                  "Empty segments give 0.\n\nRaises:\n  InvalidArgumentError (at run time): "
                  "for unsorted ids or out-of-range indices.")
    return fn


sparse_segment_sum = _sparse("SparseSegmentSum", "sum")
sparse_segment_mean = _sparse("SparseSegmentMean", "mean")
sparse_segment_sqrt_n = _sparse("SparseSegmentSqrtN", "sum divided by sqrt(size)")


def _unsorted_segment_counts(data, segment_ids, num_segments):
    """Per segment the number of rows (at least 1), shaped to broadcast against sums."""
    num_segments = convert_to_tensor(num_segments)
    ones = create.ones(shape_lib.shape(segment_ids), dtype=data.dtype)
    n = segment.unsorted_segment_sum(ones, segment_ids, num_segments)
    shape = join.concat(
        [num_segments[None],
         create.ones([shape_lib.rank(data) - shape_lib.rank(segment_ids)],
                        dtype=num_segments.dtype)], axis=0)
    return arith.maximum(shape_lib.reshape(n, shape), 1)


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of the rows of `data` per segment id (empty segments give 0)."""
    with get_default_graph().name_scope(name or "UnsortedSegmentMean"):
        data = convert_to_tensor(data)
        segment_ids = convert_to_tensor(segment_ids)
        n = _unsorted_segment_counts(data, segment_ids, num_segments)
        return segment.unsorted_segment_sum(data, segment_ids, num_segments) / n


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """The sum of the rows of `data` per segment id divided by sqrt(segment size)."""
    with get_default_graph().name_scope(name or "UnsortedSegmentSqrtN"):
        data = convert_to_tensor(data)
        segment_ids = convert_to_tensor(segment_ids)
        n = _unsorted_segment_counts(data, segment_ids, num_segments)
        return segment.unsorted_segment_sum(data, segment_ids, num_segments) / \
            arith.sqrt(n)
