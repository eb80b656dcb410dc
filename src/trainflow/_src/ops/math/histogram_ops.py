"""Counting values into bins: `tf.histogram_fixed_width` (HistogramFixedWidth),
`tf.histogram_fixed_width_bins` (built from element-wise ops, as TF builds it) and
`tf.bincount` / `tf.math.bincount` (DenseBincount); Bucketize (the bucket of each value by
sorted boundaries: bucket i holds boundaries[i-1] <= x < boundaries[i]). TensorFlow
defines no gradient for HistogramFixedWidth or DenseBincount: tf.gradients through them
raises LookupError."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.shape import reshape, shape_internal, size
from trainflow._src.ops.array.shape_util import (
    dims_of, invalid_argument, shape_of, static_int, with_rank)
from trainflow._src.ops.control_flow.assert_op import Assert
from trainflow._src.ops.control_flow.grouping import with_dependencies
from trainflow._src.ops.math import arith, reductions
from trainflow._src.ops.math import overloads  # noqa: F401 - the Tensor operators used here

__all__ = ["bincount", "bucketize", "histogram_fixed_width", "histogram_fixed_width_bins"]


# -- HistogramFixedWidth ---------------------------------------------------------------------
def _histogram_kernel(values, value_range, nbins, *, dtype):
    values, value_range = np.asarray(values), np.asarray(value_range)
    nbins = int(nbins)
    if value_range.shape != (2,):
        raise invalid_argument(f"value_range should be a vector of 2 elements, got "
                               f"{list(value_range.shape)}")
    lo, hi = value_range.tolist()
    if not lo < hi:
        raise invalid_argument(f"value_range should satisfy value_range[0] < value_range[1], "
                               f"but got '[{lo}, {hi}]'")
    if nbins <= 0:
        raise invalid_argument(f"nbins should be a positive number, but got '{nbins}'")
    # TF's CPU kernel: (max(v, lo) - lo) in T, then in double / step, capped at nbins - 1.
    step = float(np.float64(hi) - np.float64(lo)) / nbins
    shifted = (np.maximum(values, value_range[0]) - value_range[0]).astype(np.float64)
    bins = np.minimum(shifted / step, nbins - 1).astype(np.int32).reshape(-1)
    return np.bincount(bins, minlength=nbins).astype(dtype.as_numpy_dtype)


def _histogram_shape(op):
    if dims_of(op.inputs[1]) is not None:
        with_rank(dims_of(op.inputs[1]), 1)
    nbins = static_int(op.inputs[2])
    if nbins is not None and nbins < 0:
        raise ValueError(f"Dimension size, given by scalar input 2, must be non-negative but "
                         f"is {nbins} for '{op.name}'")
    if nbins == 0:
        raise ValueError(f"Requires nbins > 0: 0 for '{op.name}'")
    return [shape_of([nbins])]


register_op("HistogramFixedWidth", inputs=["values: T", "value_range: T", "nbins: int32"],
            outputs=["out: dtype"],
            attrs=["T: {int32, int64, float32, float64}", "dtype: {int32, int64} = DT_INT32"],
            shape_fn=_histogram_shape, kernel=_histogram_kernel)


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """How many of `values` fall into each of `nbins` equal bins over `value_range`
    [lo, hi) (values below lo count in the first bin, at or above hi in the last)."""
    with name_scope(name, "histogram_fixed_width", [values, value_range, nbins]) as scope:
        return apply_op("HistogramFixedWidth", values=values, value_range=value_range,
                        nbins=nbins, dtype=dtype, name=scope).outputs[0]


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32,
                               name=None):
    """The bin (0 .. nbins - 1) of each of `values`, shaped like `values`, for `nbins`
    equal bins over `value_range` (clipped at both ends). `dtype` is unused, as in TF."""
    del dtype  # TensorFlow ignores it too: the bins are int32
    with name_scope(name, "histogram_fixed_width_bins", [values, value_range, nbins]):
        values = convert_to_tensor(values, name="values")
        shape = shape_internal(values)
        values = reshape(values, [-1])
        value_range = convert_to_tensor(value_range, name="value_range")
        nbins_t = convert_to_tensor(nbins, dtype=dtypes.int32, name="nbins")
        check = Assert(arith.greater(nbins_t, 0), [f"nbins {nbins_t} must > 0"])
        nbins_t = with_dependencies([check], nbins_t)
        nbins_float = cast(nbins_t, values.dtype)
        scaled_values = arith.truediv(values - value_range[0],
                                      value_range[1] - value_range[0], name="scaled_values")
        indices = arith.floor(nbins_float * scaled_values, name="indices")
        with name_scope(None, "clip_by_value") as clip_scope:
            clipped = arith.maximum(arith.minimum(indices, nbins_float - 1), 0, name=clip_scope)
        indices = cast(clipped, dtypes.int32)
        return reshape(indices, shape)


# -- DenseBincount ---------------------------------------------------------------------------
def _dense_bincount(input, size, weights, *, binary_output):  # noqa: A002 - TF's names
    arr, weights = np.asarray(input), np.asarray(weights)
    size = int(size)
    if size < 0:
        raise invalid_argument(f"size ({size}) must be non-negative")
    if arr.ndim not in (1, 2):
        raise invalid_argument(f"input must be 1 or 2-dimensional, got {arr.ndim}")
    if arr.size and arr.min() < 0:
        raise invalid_argument("Input arr must be non-negative!")
    if weights.size and weights.shape != arr.shape:
        raise invalid_argument(f"input and weights should have the same shape, got "
                               f"{list(arr.shape)} and {list(weights.shape)}")
    rows = arr.reshape(-1, arr.shape[-1]) if arr.ndim == 2 else arr.reshape(1, -1)
    wrows = weights.reshape(rows.shape) if weights.size else None
    out = np.zeros((rows.shape[0], size), weights.dtype)
    for r in range(rows.shape[0]):
        keep = rows[r] < size
        idx = rows[r][keep]
        if binary_output:
            out[r, idx] = 1
        elif wrows is None:
            np.add.at(out[r], idx, 1)
        else:
            np.add.at(out[r], idx, wrows[r][keep])
    return out[0] if arr.ndim == 1 else out


def _dense_bincount_shape(op):
    size = static_int(op.inputs[1])
    dims = dims_of(op.inputs[0])
    if dims is None:
        return [shape_of(None)]
    if len(dims) == 2:
        return [shape_of([dims[0], size])]
    return [shape_of([size])]


register_op("DenseBincount", inputs=["input: Tidx", "size: Tidx", "weights: T"],
            outputs=["output: T"],
            attrs=["Tidx: {int32, int64}", "T: {int32, int64, float32, float64}",
                   "binary_output: bool = false"],
            shape_fn=_dense_bincount_shape, kernel=_dense_bincount)


def _validate_dense_weights(weights, dtype):
    if weights is None:
        return constant([], dtype=dtype)
    return weights


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32):
    """How often each value 0 .. max(arr) occurs in the int tensor `arr` (or the sum of
    the `weights` at its positions), as a vector of at least `minlength` and at most
    `maxlength` entries (`tf.bincount`, TF1's signature; DenseBincount)."""
    with name_scope("bincount"):
        arr = convert_to_tensor(arr, name="arr")
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
        if not arr.dtype.is_integer:
            arr = cast(arr, dtypes.int32)
        array_is_nonempty = arith.greater(size(arr), 0)
        output_size = cast(array_is_nonempty, arr.dtype) * (reductions.reduce_max(arr) + 1)
        if minlength is not None:
            minlength = convert_to_tensor(minlength, name="minlength", dtype=arr.dtype)
            output_size = arith.maximum(minlength, output_size)
        if maxlength is not None:
            maxlength = convert_to_tensor(maxlength, name="maxlength", dtype=arr.dtype)
            output_size = arith.minimum(maxlength, output_size)
        if weights is not None:
            weights = reshape(weights, [-1])
        arr = reshape(arr, [-1])
        weights = _validate_dense_weights(weights, dtype)
        return apply_op("DenseBincount", input=arr, size=output_size, weights=weights,
                        binary_output=False).outputs[0]


# -- Bucketize --------------------------------------------------------------------------
def _bucketize_kernel(input, *, boundaries):  # noqa: A002 - TF's name
    return np.searchsorted(np.asarray(boundaries, np.float64), np.asarray(input, np.float64),
                           side="right").astype(np.int32)


register_op("Bucketize", inputs=["input: T"], outputs=["output: int32"],
            attrs=["T: {int32, int64, float, double}", "boundaries: list(float)"],
            shape_fn=lambda op: [op.inputs[0].get_shape()], kernel=_bucketize_kernel)
NotDifferentiable("Bucketize")


def bucketize(input, boundaries, name=None):  # noqa: A002 - TF's name
    """The bucket ids (int32) of `input` by `boundaries` (a sorted list of floats)."""
    return apply_op("Bucketize", input=input, boundaries=[float(b) for b in boundaries],
                    name=name).outputs[0]
