"""Sorting and searching: `tf.sort` and `tf.argsort` (built as TF builds them, on TopKV2
of the negated values), and `tf.searchsorted` (the LowerBound and UpperBound ops, for
which TensorFlow defines no gradient)."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array.create import range as range_
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.layout import transpose
from trainflow._src.ops.array.shape import rank, reshape, shape_internal
from trainflow._src.ops.array.shape_util import (
    dims_of, invalid_argument, merge_dims, shape_of, with_rank)
from trainflow._src.ops.math import overloads  # noqa: F401 - the Tensor operators used here

__all__ = ["argsort", "searchsorted", "sort"]


# -- sort, argsort ---------------------------------------------------------------------------
def _descending_sort(values, axis, return_argsort):
    k = shape_internal(values)[axis]
    static_rank = values.shape.rank
    if axis == -1 or axis + 1 == static_rank:
        top_k_input, transposition = values, None
    else:
        if static_rank is not None:
            if axis < 0:
                axis += static_rank
            transposition = constant(
                np.r_[np.arange(axis), [static_rank - 1], np.arange(axis + 1, static_rank - 1),
                      [axis]].astype(np.int32), name="transposition")
        else:
            r = rank(values)
            if axis < 0:
                axis = r + axis
            transposition = concat([range_(axis), [r - 1], range_(axis + 1, r - 1), [axis]],
                                   0, name="transposition")
        top_k_input = transpose(values, transposition)
    # lazy: tf.nn's ops load on first use, not at import trainflow
    from trainflow._src.ops.nn.nn_ops import top_k
    sorted_values, indices = top_k(top_k_input, k)
    out = indices if return_argsort else sorted_values
    if transposition is not None:
        out = transpose(out, transposition)
    return out


def _ascending_sort(values, axis, return_argsort):
    dtype = values.dtype
    if dtype.is_unsigned:
        offset = dtype.max
        out = _descending_sort(offset - values, axis, return_argsort)
        return out if return_argsort else offset - out
    if dtype.is_integer:
        out = _descending_sort(-values - 1, axis, return_argsort)
        return out if return_argsort else -out - 1
    out = _descending_sort(-values, axis, return_argsort)
    return out if return_argsort else -out


_SORT_IMPL = {"ASCENDING": _ascending_sort, "DESCENDING": _descending_sort}


def _sort_or_argsort(values, axis, direction, return_argsort):
    if direction not in _SORT_IMPL:
        raise ValueError(f"{direction} should be one of {', '.join(sorted(_SORT_IMPL))}")
    axis = convert_to_tensor(axis, name="axis")
    axis_static = constant_value(axis)
    if axis.shape.rank not in (None, 0) or axis_static is None:
        raise ValueError("axis must be a constant scalar")
    values = convert_to_tensor(values, name="values")
    return _SORT_IMPL[direction](values, int(axis_static), return_argsort)


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """`values` sorted along `axis` (an int), ascending or descending.

    Raises:
      ValueError: for a direction other than ASCENDING / DESCENDING, or an axis that is
        not a constant scalar.
    """
    with name_scope(name, "sort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The int32 indices that sort `values` along `axis` (ties keep their order, so the
    sort is stable whatever `stable` says, as in TensorFlow).

    Raises:
      ValueError: as `sort`.
    """
    del stable  # TopKV2 keeps equal values in index order: always stable
    with name_scope(name, "argsort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=True)


# -- LowerBound, UpperBound ------------------------------------------------------------------
def _bound_kernel(side):
    def kernel(sorted_inputs, values, *, out_type):
        seq, vals = np.asarray(sorted_inputs), np.asarray(values)
        if seq.ndim != 2 or vals.ndim != 2:
            raise invalid_argument("Both inputs must be 2-D")
        if seq.shape[0] != vals.shape[0]:
            raise invalid_argument("Leading dim_size of both tensors must match.")
        out = np.empty(vals.shape, out_type.as_numpy_dtype)
        for row in range(seq.shape[0]):
            out[row] = np.searchsorted(seq[row], vals[row], side=side)
        return out
    return kernel


def _bound_shape(op):
    seq = with_rank(dims_of(op.inputs[0]), 2) if dims_of(op.inputs[0]) is not None else None
    vals = dims_of(op.inputs[1])
    if vals is None:
        return [shape_of((None, None))]
    vals = with_rank(vals, 2)
    if seq is not None:
        merge_dims(seq[:1], vals[:1])
    return [shape_of(vals)]


for _op_type, _side in (("LowerBound", "left"), ("UpperBound", "right")):
    register_op(_op_type, inputs=["sorted_inputs: T", "values: T"], outputs=["output: out_type"],
                attrs=["T: type", "out_type: {int32, int64} = DT_INT32"],
                shape_fn=_bound_shape, kernel=_bound_kernel(_side))


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """For each of `values`, the index in the innermost dimension of `sorted_sequence`
    where it would be inserted to keep it sorted (`side` left: before equal values;
    right: after them). The leading dimensions of both must match.

    Raises:
      ValueError: for a side other than "left" or "right".
    """
    sequence_size = shape_internal(sorted_sequence)[-1]
    values_size = shape_internal(values)[-1]
    sorted_sequence_2d = reshape(sorted_sequence, [-1, sequence_size])
    values_2d = reshape(values, [-1, values_size])
    if side == "right":
        op_type = "UpperBound"
    elif side == "left":
        op_type = "LowerBound"
    else:
        raise ValueError("Argument `side` must be either 'right' or 'left'. Received: "
                         f"`side` = '{side}'.")
    output = apply_op(op_type, sorted_inputs=sorted_sequence_2d, values=values_2d,
                      out_type=out_type, name=name).outputs[0]
    return reshape(output, shape_internal(values))

