"""Indexing by index tensors and masks: GatherV2, Gather, GatherNd, ScatterNd, Where,
Select, SelectV2, Unique, UniqueWithCounts, InvertPermutation, and gather, gather_nd,
scatter_nd, where, boolean_mask, unique, invert_permutation. Their gradients are in
`gather_grad`."""
import collections

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework import tensor_util
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import TensorShape, as_shape
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, as_index_list, dims_of, fmt_dims, invalid_argument, merge_dims,
    shape_from_shape_tensor, shape_of, static_int, with_rank, with_rank_at_least)
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import reshape, shape, squeeze

_UniqueOutput = collections.namedtuple("Unique", ["y", "idx"])
_UniqueWithCountsOutput = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])

__all__ = ["gather", "gather_nd", "scatter_nd", "where", "where_v2", "boolean_mask", "unique",
           "unique_with_counts", "invert_permutation"]


def _static(value):
    """The static value of a tensor, or a Python/NumPy value itself (TF's constant_value)."""
    if isinstance(value, Tensor):
        return tensor_util.constant_value(value)
    return value


def _position(shape, flat):
    """"[i,j]" for flat index `flat` of an array of `shape` (TF's SliceDebugString)."""
    if not shape:
        return ""
    return "[" + ",".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]"


def _check_range(indices, limit, what="indices"):
    """Raises TF's "indices[i] = v is not in [0, limit)" for the first bad index."""
    if indices.size and (indices.min() < 0 or indices.max() >= limit):
        flat = indices.reshape(-1)
        bad = int(np.flatnonzero((flat < 0) | (flat >= limit))[0])
        raise invalid_argument(f"{what}{_position(indices.shape, bad)} = {flat[bad]} is not in "
                               f"[0, {limit})")


# -- GatherV2 / Gather ------------------------------------------------------------------
def _gather_dims(params, indices, axis, batch_dims):
    with_rank_at_least(params, 1)
    if axis is None:
        if params is not None and indices is not None:
            return (None,) * (len(params) + len(indices) - 1 - batch_dims)
        return None
    with_rank_at_least(params, -axis if axis < 0 else axis + 1)
    with_rank_at_least(indices, abs(batch_dims))
    if batch_dims < 0 and indices is not None:
        batch_dims += len(indices)
    with_rank_at_least(params, batch_dims + 1)
    if params is None or indices is None:
        return None
    axis = axis + len(params) if axis < 0 else axis
    return params[:axis] + indices[batch_dims:] + params[axis + 1:]


def _gather_v2_shape(op):
    with_rank(dims_of(op.inputs[2]), 0)
    dims = _gather_dims(dims_of(op.inputs[0]), dims_of(op.inputs[1]), static_int(op.inputs[2]),
                        op._attrs["batch_dims"])
    return [shape_of(dims)]


_UNSIGNED = {np.dtype(np.int32): np.uint32, np.dtype(np.int16): np.uint16}


def gather_array(params, indices, axis=0, batch_dims=0):
    """`params` gathered at `indices` along `axis` with TF's bounds checks."""
    rank = params.ndim
    if not -rank <= axis < rank:
        raise invalid_argument(f"Expected axis in the range [{-rank}, {rank}), but got {axis}")
    axis %= rank
    if batch_dims < 0:
        batch_dims += indices.ndim
    if batch_dims == 0:
        unsigned = _UNSIGNED.get(indices.dtype)
        try:
            if unsigned is not None:
                # Negative indices become huge unsigned ones, so take() rejects them too.
                return np.take(params, indices.view(unsigned), axis=axis, mode="raise")
            if indices.size == 0 or indices.min() >= 0:
                return np.take(params, indices, axis=axis, mode="raise")
        except IndexError:
            pass
        _check_range(indices, params.shape[axis])  # raises TF's message for the bad index
        return np.take(params, indices, axis=axis)
    _check_range(indices, params.shape[axis])
    if batch_dims > axis:
        raise invalid_argument(f"batch_dims ({batch_dims}) must be less than or equal to axis "
                               f"({axis}).")
    batch = params.shape[:batch_dims]
    if indices.shape[:batch_dims] != batch:
        raise invalid_argument(f"params.shape[:{batch_dims}] {fmt_dims(batch)} should equal "
                               f"indices.shape[:{batch_dims}] "
                               f"{fmt_dims(indices.shape[:batch_dims])}")
    n = int(np.prod(batch, dtype=np.int64))
    p = params.reshape((n,) + params.shape[batch_dims:])
    ind = indices.reshape((n,) + indices.shape[batch_dims:])
    parts = [np.take(p[i], ind[i], axis=axis - batch_dims) for i in range(n)]
    tail = params.shape[batch_dims:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]
    if not parts:
        return np.zeros(batch + tail, dtype=params.dtype)
    return np.stack(parts).reshape(batch + tail)


def _gather_v2_kernel(params, indices, axis, *, batch_dims):
    return gather_array(params, indices, int(axis), batch_dims)


register_op("GatherV2", inputs=["params: Tparams", "indices: Tindices", "axis: Taxis"],
            outputs=["output: Tparams"],
            attrs=["batch_dims: int = 0", "Tparams: type", "Tindices: {int16, int32, int64}",
                   "Taxis: {int32, int64}"],
            shape_fn=_gather_v2_shape, kernel=_gather_v2_kernel)


@tensor_util.register_constant_value("GatherV2")
def _gather_v2_value(op, index, partial):
    """The static value of a gather whose params, indices and axis are all static."""
    values = [tensor_util.constant_value(t) for t in op.inputs]
    if any(v is None for v in values):
        return None
    try:
        return gather_array(values[0], values[1], int(values[2]), op._attrs["batch_dims"])
    except (IndexError, ValueError):
        return None


def _gather_v1_kernel(params, indices):
    return gather_array(params, indices, 0, 0)


register_op("Gather", inputs=["params: Tparams", "indices: Tindices"],
            outputs=["output: Tparams"],
            attrs=["validate_indices: bool = true", "Tparams: type",
                   "Tindices: {int32, int64}"],
            shape_fn=lambda op: [shape_of(_gather_dims(dims_of(op.inputs[0]),
                                                       dims_of(op.inputs[1]), 0, 0))],
            kernel=_gather_v1_kernel)


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Gathers slices of `params` along `axis` at `indices` (`tf.gather`, a GatherV2 op).

    `validate_indices` is ignored (indices are always checked). A params object
    with a `sparse_read` method (a resource variable) gathers itself when axis is 0.
    """
    del validate_indices
    if axis is None:
        axis = batch_dims
    if _static(axis) != 0:
        return apply_op("GatherV2", params=params, indices=indices, axis=axis,
                        batch_dims=batch_dims, name=name).outputs[0]
    sparse_read = getattr(params, "sparse_read", None)
    if callable(sparse_read):
        try:
            return sparse_read(indices, name=name)
        except NotImplementedError:
            pass
    return apply_op("GatherV2", params=params, indices=indices, axis=axis,
                    batch_dims=batch_dims, name=name).outputs[0]


# -- GatherNd / ScatterNd ---------------------------------------------------------------
def _gather_nd_shape(op):
    params = dims_of(op.inputs[0])
    indices = with_rank_at_least(dims_of(op.inputs[1]), 1)
    if params is None or indices is None or indices[-1] is None:
        return [UNKNOWN]
    r = indices[-1]
    if r > len(params):
        raise ValueError(f"indices.shape[-1] must be <= params.rank, but saw indices shape: "
                         f"{fmt_dims(indices)} and params shape: {fmt_dims(params)}")
    return [shape_of(indices[:-1] + params[r:])]


def _nd_index(indices, shape, message, flat_shape):
    """The index tuple for `indices[..., r]` into `shape`, checking each entry's range."""
    r = indices.shape[-1]
    flat = indices.reshape(-1, r)
    limits = np.asarray(shape[:r], dtype=np.int64)
    bad = ((flat < 0) | (flat >= limits)).any(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise invalid_argument(message(_position(flat_shape, i),
                                       ", ".join(str(int(v)) for v in flat[i])))
    return tuple(indices[..., k] for k in range(r))


def _gather_nd_kernel(params, indices, *, ctx):
    if np.ndim(params) < 1:
        raise invalid_argument("params must be at least a vector")
    if indices.ndim < 1:
        raise invalid_argument(f"indices must be at least a vector, got shape "
                               f"{fmt_dims(indices.shape)}")
    r = indices.shape[-1]
    if r > params.ndim:
        raise invalid_argument(f"index innermost dimension length must be <= params rank; saw: "
                               f"{r} vs. {params.ndim}")
    batch = indices.shape[:-1]
    if r == 0:
        return np.array(np.broadcast_to(params, batch + params.shape))
    index = _nd_index(indices, params.shape,
                      lambda pos, vals: f"indices{pos} = [{vals}] does not index into param "
                                        f"shape {fmt_dims(params.shape)}, node name: "
                                        f"{ctx.op.name}", batch)
    return params[index]


register_op("GatherNd", inputs=["params: Tparams", "indices: Tindices"],
            outputs=["output: Tparams"],
            attrs=["Tparams: type", "Tindices: {int16, int32, int64}",
                   "bad_indices_policy: string = ''"],
            shape_fn=_gather_nd_shape, kernel=_gather_nd_kernel)


def gather_nd(params, indices, name=None, batch_dims=0):
    """Gathers slices of `params` addressed by the last dimension of `indices`
    (`tf.gather_nd`).

    Raises:
      ValueError: for batch_dims other than 0, which trainflow does not build.
    """
    if batch_dims != 0:
        raise ValueError("trainflow's gather_nd supports batch_dims=0 only; use tf.gather "
                         "with batch_dims or reshape the batch into the indices")
    return apply_op("GatherNd", params=params, indices=indices, name=name).outputs[0]


def _scatter_check(indices, updates, shape):
    """Static check that updates.shape == indices.shape[:-1] + shape[indices.shape[-1]:]."""
    if indices is None or updates is None or not indices or indices[-1] is None:
        return
    outer = len(indices) - 1
    if len(updates) < outer:
        raise ValueError(f"Dimensions [0,{outer}) of indices[shape={fmt_dims(indices)}] must "
                         f"match dimensions [0,{outer}) of updates[shape={fmt_dims(updates)}]")
    try:
        merge_dims(indices[:-1], updates[:outer])
    except ValueError as e:
        raise ValueError(f"Dimensions [0,{outer}) of indices[shape={fmt_dims(indices)}] = "
                         f"{fmt_dims(indices[:-1])} must match dimensions [0,{outer}) of "
                         f"updates[shape={fmt_dims(updates)}] = {fmt_dims(updates[:outer])}: "
                         f"{e}") from None
    if shape is not None:
        tail = shape[indices[-1]:]
        try:
            merge_dims(tail, updates[outer:])
        except ValueError as e:
            raise ValueError(f"Dimensions [{indices[-1]},{len(shape)}) of input[shape="
                             f"{fmt_dims(shape)}] = {fmt_dims(tail)} must match dimensions "
                             f"[{outer},{len(updates)}) of updates[shape={fmt_dims(updates)}] = "
                             f"{fmt_dims(updates[outer:])}: {e}") from None


def _scatter_nd_shape(op):
    indices = with_rank_at_least(dims_of(op.inputs[0]), 1)
    with_rank(dims_of(op.inputs[2]), 1)
    out = shape_from_shape_tensor(op.inputs[2])
    _scatter_check(indices, dims_of(op.inputs[1]), out)
    return [shape_of(out)]


def _scatter_nd_kernel(indices, updates, shape):
    dims = as_index_list(shape)
    r = indices.shape[-1] if indices.ndim else 0
    outer = indices.shape[:-1]
    want = tuple(outer) + tuple(dims[r:])
    if updates.shape != want:
        raise invalid_argument(f"updates.shape {fmt_dims(updates.shape)} must equal "
                               f"indices.shape[:-1] + shape[indices.shape[-1]:] = "
                               f"{fmt_dims(want)}")
    out = np.zeros(dims, dtype=updates.dtype)
    index = _nd_index(indices, dims,
                      lambda pos, vals: f"indices{pos} = [{vals}] does not index into shape "
                                        f"{fmt_dims(dims)}", outer)
    np.add.at(out, index, updates)
    return out


register_op("ScatterNd", inputs=["indices: Tindices", "updates: T", "shape: Tindices"],
            outputs=["output: T"],
            attrs=["T: type", "Tindices: {int16, int32, int64}",
                   "bad_indices_policy: string = ''"],
            shape_fn=_scatter_nd_shape, kernel=_scatter_nd_kernel)


def scatter_nd(indices, updates, shape, name=None):
    """A zero tensor of `shape` with `updates` added at `indices` (`tf.scatter_nd`;
    duplicate indices accumulate)."""
    return apply_op("ScatterNd", indices=indices, updates=updates, shape=shape,
                    name=name).outputs[0]


# -- Where / Select / SelectV2 ---------------------------------------------------------------
def _where_kernel(input):  # noqa: A002
    if input.ndim == 0:
        raise invalid_argument("WhereOp : Unhandled input dimensions: 0")
    return np.argwhere(input).astype(np.int64, copy=False)


register_op("Where", inputs=["input: T"], outputs=["index: int64"],
            attrs=["T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
                   "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, "
                   "uint32, uint64, bool} = DT_BOOL"],
            shape_fn=lambda op: [TensorShape([None, op.inputs[0].shape.rank])],
            kernel=_where_kernel)


def _select_shape(op):
    data = merge_dims(dims_of(op.inputs[1]), dims_of(op.inputs[2]))
    cond = dims_of(op.inputs[0])
    if cond is None or data is None or len(cond) == 0:
        return [shape_of(data)]
    if len(cond) != 1 or len(data) == 0:
        return [shape_of(merge_dims(data, cond))]
    merge_dims(cond, (data[0],))
    return [shape_of(data)]


def _select_kernel(condition, t, e):
    if t.shape != e.shape:
        raise invalid_argument(f"'then' and 'else' must have the same size.  but received: "
                               f"{fmt_dims(t.shape)} vs. {fmt_dims(e.shape)}")
    if condition.ndim == 0:
        return t if condition else e
    if condition.shape == t.shape:
        return np.where(condition, t, e)
    if condition.ndim == 1 and t.ndim >= 1:
        if condition.shape[0] != t.shape[0]:
            raise invalid_argument(f"Number of batches of 'then' must match size of 'cond', but "
                                   f"saw: {t.shape[0]} vs. {condition.shape[0]}")
        return np.where(condition.reshape((-1,) + (1,) * (t.ndim - 1)), t, e)
    raise invalid_argument(f"Inputs to operation Select of type Select must have the same size "
                           f"and shape.  Input 0: {fmt_dims(condition.shape)} != input 1: "
                           f"{fmt_dims(t.shape)}")


register_op("Select", inputs=["condition: bool", "t: T", "e: T"], outputs=["output: T"],
            attrs=["T: type"], shape_fn=_select_shape, kernel=_select_kernel,
            output_aliases_input=True)


def broadcast_dims(a, b):
    """Static broadcast of two dims tuples (TF's broadcasting shape function).

    Raises:
      ValueError: "Dimensions must be equal, but are 3 and 4".
    """
    if a is None or b is None:
        return None
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x is not None and x > 1:
            if y is not None and y > 1 and x != y:
                raise ValueError(f"Dimensions must be equal, but are {x} and {y}")
            out.append(x)
        elif y is not None and y > 1:
            out.append(y)
        elif x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None and y is None:
            out.append(None)
        else:
            out.append(0 if x == 0 and y in (0, None) or y == 0 and x is None else None)
    return tuple(out[::-1])


def _select_v2_shape(op):
    c, t, e = (dims_of(x) for x in op.inputs)
    return [shape_of(broadcast_dims(broadcast_dims(t, e), c))]


def _select_v2_kernel(condition, t, e):
    try:
        return np.where(condition, t, e)
    except ValueError:
        raise invalid_argument(f"condition {fmt_dims(np.shape(condition))}, then "
                               f"{fmt_dims(np.shape(t))}, and else {fmt_dims(np.shape(e))} must "
                               "be broadcastable") from None


register_op("SelectV2", inputs=["condition: bool", "t: T", "e: T"], outputs=["output: T"],
            attrs=["T: type"], shape_fn=_select_v2_shape, kernel=_select_v2_kernel)


def where(condition, x=None, y=None, name=None):
    """TF1 `tf.where`: the int64 coordinates of true elements (one argument), or elementwise
    selection (Select: `condition` has the shape of x and y, or is a vector over their
    first dimension, or a scalar).

    Raises:
      ValueError: if only one of x and y is given.
    """
    if x is None and y is None:
        with name_scope(name, "Where", [condition]) as scope:
            condition = convert_to_tensor(condition, preferred_dtype=dtypes.bool,
                                          name="condition")
            return apply_op("Where", input=condition, name=scope).outputs[0]
    if x is not None and y is not None:
        return apply_op("Select", condition=condition, t=x, e=y, name=name).outputs[0]
    raise ValueError("x and y must both be non-None or both be None.")


def where_v2(condition, x=None, y=None, name=None):
    """TF2 `tf.where`: like `where`, but x, y and condition broadcast (SelectV2)."""
    if x is None and y is None:
        return where(condition, name=name)
    if x is not None and y is not None:
        return apply_op("SelectV2", condition=condition, t=x, e=y, name=name).outputs[0]
    raise ValueError("x and y must both be non-None or both be None.")


def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The elements (or slices along `axis`) of `tensor` where `mask` is true
    (`tf.boolean_mask`; the result's first masked dimension is dynamic).

    Raises:
      ValueError: for a scalar mask or a mask of unknown rank, or incompatible shapes.
    """
    with name_scope(name, values=[tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        shape_mask = mask.shape
        ndims_mask = shape_mask.rank
        shape_tensor = tensor.shape
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some "
                             "dimensions are None.  E.g. shape=[None] is ok, but shape=None is "
                             "not.")
        axis = 0 if axis is None else axis
        axis_value = _static(axis)
        if axis_value is not None:
            axis = int(axis_value)
            shape_tensor[axis:axis + ndims_mask].assert_is_compatible_with(shape_mask)
        leading = apply_op("Prod", input=shape(tensor)[axis:axis + ndims_mask],
                           reduction_indices=[0]).outputs[0]
        tensor = reshape(tensor, concat([shape(tensor)[:axis], [leading],
                                         shape(tensor)[axis + ndims_mask:]], 0))
        if axis_value is not None and shape_tensor.rank is not None:
            first = shape_tensor[axis:axis + ndims_mask].num_elements()
            tensor.set_shape(as_shape(shape_tensor[:axis]).concatenate([first]).concatenate(
                shape_tensor[axis + ndims_mask:]))
        mask = reshape(mask, [-1])
        indices = squeeze(where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)


# -- Unique / InvertPermutation ---------------------------------------------------------------
def _unique_shape(op):
    with_rank(dims_of(op.inputs[0]), 1)
    out = [TensorShape([None]), op.inputs[0].shape]
    if len(op.outputs) == 3:
        out.append(TensorShape([None]))
    return out


def _unique_parts(x, out_idx):
    if x.ndim != 1:
        raise invalid_argument("unique expects a 1D vector.")
    if x.size == 0:
        idx_type = out_idx.as_numpy_dtype
        return x.copy(), np.zeros(0, idx_type), np.zeros(0, idx_type)
    # equal_nan=False: each NaN is its own value, as in TF's hash-map unique.
    extra = {"equal_nan": False} if x.dtype.kind in "fc" else {}
    _, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True, **extra)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    idx_type = out_idx.as_numpy_dtype
    return (x[first[order]], rank[inverse.reshape(-1)].astype(idx_type),
            counts[order].astype(idx_type))


def _unique_kernel(x, *, out_idx):
    y, idx, _ = _unique_parts(x, out_idx)
    return y, idx


def _unique_with_counts_kernel(x, *, out_idx):
    return _unique_parts(x, out_idx)


register_op("Unique", inputs=["x: T"], outputs=["y: T", "idx: out_idx"],
            attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"], shape_fn=_unique_shape,
            kernel=_unique_kernel)
register_op("UniqueWithCounts", inputs=["x: T"],
            outputs=["y: T", "idx: out_idx", "count: out_idx"],
            attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"], shape_fn=_unique_shape,
            kernel=_unique_with_counts_kernel)


def unique(x, out_idx=dtypes.int32, name=None):
    """The unique values of a vector in first-seen order and each element's index into them
    (`tf.unique`; returns a (y, idx) pair)."""
    op = apply_op("Unique", x=x, out_idx=out_idx, name=name)
    return _UniqueOutput(*op.outputs)


def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """Like `unique`, plus how often each unique value occurs (`tf.unique_with_counts`)."""
    op = apply_op("UniqueWithCounts", x=x, out_idx=out_idx, name=name)
    return _UniqueWithCountsOutput(*op.outputs)


def _invert_permutation_kernel(x):
    if x.ndim != 1:
        raise invalid_argument("invert_permutation expects a 1D vector.")
    n = x.size
    out = np.full(n, -1, dtype=x.dtype)
    for i, d in enumerate(x.tolist()):
        if not 0 <= d < n:
            raise invalid_argument(f"{d} is not between 0 and {n}")
        if out[d] != -1:
            raise invalid_argument(f"{d} is duplicated in the input.")
        out[d] = i
    return out


register_op("InvertPermutation", inputs=["x: T"], outputs=["y: T"],
            attrs=["T: {int32, int64} = DT_INT32"],
            shape_fn=lambda op: [shape_of(with_rank(dims_of(op.inputs[0]), 1))],
            kernel=_invert_permutation_kernel)
NotDifferentiable("InvertPermutation")


@tensor_util.register_constant_value("InvertPermutation")
def _invert_permutation_value(op, index, partial):
    # Static, so a transpose by the inverse of a constant perm has a static shape.
    value = tensor_util.constant_value(op.inputs[0])
    if value is None:
        return None
    try:
        return _invert_permutation_kernel(value)
    except Exception:  # noqa: BLE001 - a bad permutation has no static inverse
        return None


def invert_permutation(x, name=None):
    """The inverse of a permutation vector (`tf.invert_permutation`)."""
    return apply_op("InvertPermutation", x=x, name=name).outputs[0]
