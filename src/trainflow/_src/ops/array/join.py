"""Joining and splitting: ConcatV2 (and Concat), Pack, Unpack, Split, SplitV.
Their gradients (and the ConcatOffset op) are in `join_grad`."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework import tensor_util
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, as_index_list, dims_of, fmt_dims, invalid_argument, merge_dims,
    shape_of, static_int, static_value, with_rank, with_rank_at_least)
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import Dimension
from trainflow._src.ops.array.identity import identity

__all__ = ["concat", "stack", "pack", "unstack", "unpack", "split"]


def _multi(outputs):
    """Kernel result for an op with a list output (a single output is returned bare)."""
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _scalar_axis_dim(tensor, rank):
    """TF's MakeDimForScalarInputWithNegativeIndexing: the static axis in [0, rank) or None.

    Raises:
      ValueError: if the axis is out of range for a known rank.
    """
    val = static_int(tensor)
    if val is None:
        return None
    if val < 0:
        if rank is None:
            return None
        if val + rank < 0:
            raise ValueError(f"Dimension size, given by scalar input {val} must be in range "
                             f"[-{rank}, {rank})")
        return val + rank
    if rank is not None and rank > 0 and val >= rank:
        raise ValueError(f"Dimension size, given by scalar input {val} must be in range "
                         f"[-{rank}, {rank})")
    return val


# -- ConcatV2 ------------------------------------------------------------------------
def concat_dims(inputs, axis):
    """Static result dims of concatenating `inputs` (dims tuples) along `axis` (int or None).

    Raises:
      ValueError: with TF's messages for mismatched ranks or sizes.
    """
    rank = next((len(d) for d in inputs if d is not None), None)
    if axis is None:
        if rank is None:
            return None
        if rank == 0:
            raise ValueError("Can't concatenate scalars (use tf.stack instead)")
        for d in inputs:
            with_rank(d, rank)
        return (None,) * rank
    for d in inputs:
        if rank is not None:
            with_rank(d, rank)
    min_rank = -axis if axis < 0 else axis + 1
    for d in inputs:
        with_rank_at_least(d, min_rank)
    if rank is None:
        return None
    axis = axis + rank if axis < 0 else axis
    before = middle = after = None
    first = True
    for d in reversed(inputs):
        if d is None:
            parts = (None, None, None)
        else:
            parts = (d[:axis], d[axis], d[axis + 1:])
        if first:
            before, middle, after = parts
            first = False
            continue
        before = merge_dims(parts[0], before)
        middle = None if middle is None or parts[1] is None else middle + parts[1]
        after = merge_dims(parts[2], after)
    if before is None or after is None:
        return None
    return before + (middle,) + after


def _concat_shape(op):
    values = [dims_of(t) for t in op.inputs[:-1]]
    with_rank(dims_of(op.inputs[-1]), 0)
    return [shape_of(concat_dims(values, static_int(op.inputs[-1])))]


def _concat_kernel(values, axis):
    ax = int(axis)
    try:
        return np.concatenate(values, axis=ax)
    except ValueError:
        pass
    first = np.shape(values[0])
    rank = len(first)
    if rank == 0:
        raise invalid_argument("ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    if not -rank <= ax < rank:
        raise invalid_argument(f"ConcatOp : Expected concatenating dimensions in the range "
                               f"[{-rank}, {rank}), but got {ax}")
    ax = ax + rank if ax < 0 else ax
    for i, v in enumerate(values[1:], 1):
        s = np.shape(v)
        if len(s) != rank:
            raise invalid_argument(f"ConcatOp : Ranks of all input tensors should match: "
                                   f"shape[0] = {fmt_dims(first)} vs. shape[{i}] = {fmt_dims(s)}")
        for j in range(rank):
            if j != ax and s[j] != first[j]:
                raise invalid_argument(
                    f"ConcatOp : Dimension {j} in both shapes must be equal: shape[0] = "
                    f"{fmt_dims(first)} vs. shape[{i}] = {fmt_dims(s)}")
    raise invalid_argument("ConcatOp : inputs cannot be concatenated")


register_op("ConcatV2", inputs=["values: N * T", "axis: Tidx"], outputs=["output: T"],
            attrs=["N: int >= 2", "T: type", "Tidx: {int32, int64} = DT_INT32"],
            shape_fn=_concat_shape, kernel=_concat_kernel)


def _concat_v1_shape(op):
    values = [dims_of(t) for t in op.inputs[1:]]
    with_rank(dims_of(op.inputs[0]), 0)
    return [shape_of(concat_dims(values, static_int(op.inputs[0])))]


register_op("Concat", inputs=["concat_dim: int32", "values: N * T"], outputs=["output: T"],
            attrs=["N: int >= 2", "T: type"], shape_fn=_concat_v1_shape,
            kernel=lambda concat_dim, values: _concat_kernel(values, concat_dim))


@tensor_util.register_constant_value("ConcatV2")
def _concat_value(op, index, partial):
    parts = [static_value(t) for t in op.inputs]
    if any(p is None for p in parts):
        return None
    try:
        return np.concatenate(parts[:-1], axis=int(parts[-1]))
    except ValueError:
        return None


def concat(values, axis, name="concat"):
    """Concatenates tensors along `axis` (`tf.concat`, a ConcatV2 op; one tensor gives an
    Identity as in TF)."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with name_scope(name, values=values):
            convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32).shape \
                .assert_has_rank(0)
            return identity(values[0], name=name)
    return apply_op("ConcatV2", values=list(values), axis=axis, name=name).outputs[0]


# -- Pack / Unpack ---------------------------------------------------------------------
def _pack_axis(axis, rank):
    if axis < -rank or axis >= rank:
        raise ValueError(f"Invalid axis: {axis}; must be in [{-rank},{rank})")
    return axis + rank if axis < 0 else axis


def _pack_shape(op):
    cur = dims_of(op.inputs[-1])
    for i in range(len(op.inputs) - 2, -1, -1):
        try:
            cur = merge_dims(dims_of(op.inputs[i]), cur)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    if cur is None:
        return [UNKNOWN]
    axis = _pack_axis(op._attrs["axis"], len(cur) + 1)
    return [shape_of(cur[:axis] + (len(op.inputs),) + cur[axis:])]


def _pack_kernel(values, *, axis):
    try:
        if axis == 0 and values[0].dtype != object:
            # np.array would nest 0-d object arrays instead of stacking them.
            out = np.array(values)  # faster than np.stack; checked below
            first = values[0]
            if out.shape[1:] == np.shape(first) and out.dtype == first.dtype:
                return out
        return np.stack(values, axis=axis)
    except ValueError:
        first = np.shape(values[0])
        for i, v in enumerate(values[1:], 1):
            if np.shape(v) != first:
                raise invalid_argument(
                    f"Shapes of all inputs must match: values[0].shape = {fmt_dims(first)} != "
                    f"values[{i}].shape = {fmt_dims(np.shape(v))}") from None
        raise


register_op("Pack", inputs=["values: N * T"], outputs=["output: T"],
            attrs=["N: int >= 1", "T: type", "axis: int = 0"], shape_fn=_pack_shape,
            kernel=_pack_kernel)


@tensor_util.register_constant_value("Pack")
def _pack_value(op, index, partial):
    parts = [static_value(t) for t in op.inputs]
    if any(p is None for p in parts):
        return None
    return np.stack(parts, axis=op._attrs["axis"])


def _unpack_shape(op):
    src = dims_of(op.inputs[0])
    num = len(op.outputs)
    if src is None:
        return [UNKNOWN] * num
    axis = _pack_axis(op._attrs["axis"], len(src))
    if src[axis] is not None and src[axis] != num:
        raise ValueError(f"Dimension must be {num} but is {src[axis]}")
    out = shape_of(src[:axis] + src[axis + 1:])
    return [out] * num


def _unpack_kernel(value, *, num, axis):
    rank = value.ndim
    if not -rank <= axis < rank:
        raise invalid_argument(f"axis = {axis} not in [{-rank}, {rank})")
    if value.shape[axis] != num:
        raise invalid_argument(f"Input shape axis {axis % rank} must equal {num}, got shape "
                               f"{fmt_dims(value.shape)}")
    moved = np.moveaxis(value, axis, 0)
    if num == 0:
        return ()
    return _multi([moved[i] for i in range(num)])


register_op("Unpack", inputs=["value: T"], outputs=["output: num * T"],
            attrs=["num: int >= 0", "T: type", "axis: int = 0"], shape_fn=_unpack_shape,
            kernel=_unpack_kernel, output_aliases_input=True)


def stack(values, axis=0, name="stack"):
    """Stacks rank-R tensors into one rank-(R+1) tensor along `axis` (`tf.stack`).

    Raises:
      ValueError: if `axis` is out of range.
    """
    if axis == 0:
        try:
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError, NotImplementedError):
            pass
    first = convert_to_tensor(values[0], name=name)
    rank = first.shape.rank
    if rank is not None:
        n = rank + 1
        if axis < -n or axis >= n:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-n}, {n})")
    return apply_op("Pack", values=list(values), axis=axis, name=name).outputs[0]


pack = stack


def unstack(value, num=None, axis=0, name="unstack"):
    """Splits a tensor into a list of `num` tensors along `axis` (`tf.unstack`).

    Raises:
      ValueError: if `num` is None and cannot be inferred, or `axis` is out of range.
    """
    if num is None:
        value = convert_to_tensor(value)
        value_shape = value.shape
        if value_shape.rank is not None:
            r = value_shape.rank
            if axis < -r or axis >= r:
                raise ValueError(f"Argument `axis` = {axis} not in range [{-r}, {r})")
            num = value_shape._dims[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {value_shape}")
    return apply_op("Unpack", value=value, num=num, axis=axis, name=name).outputs


unpack = unstack


# -- Split / SplitV --------------------------------------------------------------------
def _split_shape(op):
    src = dims_of(op.inputs[1])
    num = len(op.outputs)
    axis = _scalar_axis_dim(op.inputs[0], None if src is None else len(src))
    if axis is None:
        return [shape_of(None if src is None else (None,) * len(src))] * num
    with_rank_at_least(src, axis + 1)
    if src is None:
        return [UNKNOWN] * num
    d = src[axis]
    if d is not None:
        if d % num:
            raise ValueError(f"Dimension size must be evenly divisible by {num} but is {d}\n\t"
                             "Number of ways to split should evenly divide the split dimension")
        d //= num
    return [shape_of(src[:axis] + (d,) + src[axis + 1:])] * num


def _split_axis(axis, rank):
    a = int(axis)
    if not -rank <= a < rank:
        raise invalid_argument(f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but "
                               f"got {a}")
    return a + rank if a < 0 else a


def _split_kernel(split_dim, value, *, num_split):
    axis = _split_axis(split_dim, value.ndim)
    size = value.shape[axis]
    if size % num_split:
        raise invalid_argument(f"Number of ways to split should evenly divide the split "
                               f"dimension, but got split_dim {axis} (size = {size}) and "
                               f"num_split {num_split}")
    return _multi(np.split(value, num_split, axis=axis))


register_op("Split", inputs=["split_dim: int32", "value: T"], outputs=["output: num_split * T"],
            attrs=["num_split: int >= 1", "T: type"], shape_fn=_split_shape,
            kernel=_split_kernel, output_aliases_input=True)


def _split_v_shape(op):
    src = dims_of(op.inputs[0])
    num = len(op.outputs)
    rank = None if src is None else len(src)
    axis = _scalar_axis_dim(op.inputs[2], rank)
    sizes = static_value(op.inputs[1])
    if src is None:
        return [UNKNOWN] * num
    if rank == 0:
        raise ValueError("Can't split scalars")
    if sizes is None:
        if axis is None:
            return [shape_of((None,) * rank)] * num
        return [shape_of(src[:axis] + (None,) + src[axis + 1:])] * num
    if axis is None:
        return [shape_of((None,) * rank)] * num
    with_rank_at_least(src, axis + 1)
    data = sizes.reshape(-1).tolist()
    if len(data) != num:
        raise ValueError("Length of size_splits should be equal to num_outputs")
    if data.count(-1) > 1:
        raise ValueError("size_splits can only have one -1")
    total = sum(d for d in data if d != -1)
    dim = src[axis]
    out = []
    for i, size in enumerate(data):
        if size == -1 and dim is not None:
            size = dim - total
        if size < -1 or (size == -1 and dim is not None):
            raise ValueError(f"Split size at index {i} must be >= 0. Got: {size}")
        out.append(shape_of(src[:axis] + (None if size == -1 else size,) + src[axis + 1:]))
    if dim is not None and (total > dim if -1 in data else total != dim):
        raise ValueError(f"can't split axis of size {dim} into pieces of size "
                         f"[{','.join(str(d) for d in data)}]")
    return out


def _split_v_kernel(value, size_splits, split_dim, *, num_split):
    axis = _split_axis(split_dim, value.ndim)
    sizes = as_index_list(size_splits)
    if len(sizes) != num_split:
        raise invalid_argument(f"Number of split values {len(sizes)} must match the number of "
                               f"outputs {num_split}")
    dim = value.shape[axis]
    neg = [i for i, s in enumerate(sizes) if s == -1]
    if len(neg) > 1:
        raise invalid_argument("There can only be one -1 in the input.")
    total = sum(s for s in sizes if s != -1)
    if (neg and total > dim) or (not neg and total != dim) or any(s < -1 for s in sizes):
        raise invalid_argument(
            "Determined shape must either match input shape along split_dim exactly if fully "
            "specified, or be less than the size of the input along split_dim if not fully "
            f"specified.  Got: {total}")
    if neg:
        sizes[neg[0]] = dim - total
    cuts = np.cumsum(sizes)[:-1]
    return _multi(np.split(value, cuts, axis=axis))


register_op("SplitV", inputs=["value: T", "size_splits: Tlen", "split_dim: int32"],
            outputs=["output: num_split * T"],
            attrs=["num_split: int >= 1", "T: type", "Tlen: {int8, int32, int64} = DT_INT64"],
            shape_fn=_split_v_shape, kernel=_split_v_kernel, output_aliases_input=True)


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits `value` along `axis` into `num_or_size_splits` equal parts, or parts of the
    listed sizes (one may be -1) (`tf.split`).

    Raises:
      ValueError: for a scalar size tensor, or when `num` cannot be inferred.
    """
    if isinstance(num_or_size_splits, Dimension):
        num_or_size_splits = num_or_size_splits.value
    if isinstance(num_or_size_splits, (int, np.integer)) and \
            not isinstance(num_or_size_splits, bool):
        return apply_op("Split", split_dim=axis, value=value, num_split=int(num_or_size_splits),
                        name=name).outputs
    size_splits = convert_to_tensor(num_or_size_splits)
    if size_splits.shape.rank == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument "
                         f"to split. Argument provided: {num_or_size_splits}")
    if num is None:
        dims = dims_of(size_splits)
        if dims:
            num = dims[0]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    return apply_op("SplitV", value=value, size_splits=size_splits, split_dim=axis,
                    num_split=num, name=name).outputs
