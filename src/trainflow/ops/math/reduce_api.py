"""Reductions, arg-max/arg-min, scans and counts of the TF1 namespace.

The reduce functions take TF1's spellings: `axis` or `reduction_indices`,
`keepdims` or `keep_dims`. Without an axis they reduce over every dimension
through a constant `Const` of all axes (or `Range(0, Rank(x))` when the rank is
unknown), as TensorFlow does, so graphs and names match.
"""
import numpy as np

from trainflow.framework import dtypes
from trainflow.framework.op_builder import apply_op
from trainflow.framework.scopes import name_scope
from trainflow.framework.tensor import Tensor
from trainflow.framework.tensor_conversion import convert_to_tensor
from trainflow.ops.math import reductions as math_reductions  # noqa: F401 - registers the op types


def _out(op_type, name, **kwargs):
    return apply_op(op_type, name=name, **kwargs).outputs[0]


def _lookup(new_name, new_value, old_name, old_value):
    """TF's deprecated-argument lookup: one of the two spellings, never both."""
    if new_value is not None and old_value is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
    return new_value if new_value is not None else old_value


def _reduction_dims(x, axis):
    """The reduction indices for `axis`; every axis of `x` when None."""
    if axis is not None:
        return axis
    rank = getattr(getattr(x, "shape", None), "rank", None)
    if rank:
        from trainflow.framework.constant_op import constant
        return constant(np.arange(rank, dtype=np.int32))
    from trainflow.ops.array import array_ops
    return _out("Range", "range", start=0, limit=array_ops.rank(x), delta=1)


def _may_reduce_to_scalar(keepdims, axis, output):
    if not output.shape.is_fully_defined() and not keepdims and axis is None:
        output.set_shape(())
    return output


def _reduce(op_type, input_tensor, axis, keepdims, name, reduction_indices, keep_dims):
    axis = _lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _lookup("keepdims", keepdims, "keep_dims", keep_dims)
    keepdims = False if keepdims is None else bool(keepdims)
    dims = _reduction_dims(input_tensor, axis)
    out = _out(op_type, name, input=input_tensor, reduction_indices=dims, keep_dims=keepdims)
    return _may_reduce_to_scalar(keepdims, axis, out)


def _reduce_fn(op_type, fn_name, what):
    def fn(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
           keep_dims=None):
        return _reduce(op_type, input_tensor, axis, keepdims, name, reduction_indices,
                       keep_dims)
    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = (
        f"Computes the {what} of elements across dimensions (op `{op_type}`).\n\n"
        "Args:\n"
        "  input_tensor: the tensor to reduce.\n"
        "  axis: the dimensions to reduce (int, list or int tensor); None reduces all.\n"
        "  keepdims: keep reduced dimensions with length 1.\n"
        "  name: the op name.\n"
        "  reduction_indices, keep_dims: TF1's older spellings of axis and keepdims.\n\n"
        "Raises:\n"
        "  ValueError: if both spellings are given, or an axis is out of range.\n"
        "  TypeError: if the dtype is not allowed.")
    return fn


reduce_sum = _reduce_fn("Sum", "reduce_sum", "sum")
reduce_mean = _reduce_fn("Mean", "reduce_mean", "mean (truncated for integer types)")
reduce_prod = _reduce_fn("Prod", "reduce_prod", "product")
reduce_max = _reduce_fn("Max", "reduce_max", "maximum")
reduce_min = _reduce_fn("Min", "reduce_min", "minimum")
reduce_all = _reduce_fn("All", "reduce_all", "logical AND")
reduce_any = _reduce_fn("Any", "reduce_any", "logical OR")
reduce_euclidean_norm = _reduce_fn("EuclideanNorm", "reduce_euclidean_norm",
                                   "Euclidean norm")


def reduce_logsumexp(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                     keep_dims=None):
    """Computes log(sum(exp(x))) across dimensions, stably (max-shifted, as TF).

    Infinite maxima are not subtracted, so all -inf gives -inf and +inf gives
    +inf. Uses the array ops SelectV2, StopGradient, Reshape and Shape.

    Raises:
      ValueError: if both argument spellings are given.
    """
    from trainflow.ops.math import math_ops
    axis = _lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _lookup("keepdims", keepdims, "keep_dims", keep_dims)
    keepdims = False if keepdims is None else bool(keepdims)
    with name_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        raw_max = reduce_max(input_tensor, axis=axis, keepdims=True)
        safe_max = _out("SelectV2", None, condition=math_ops.is_finite(raw_max), t=raw_max,
                        e=0)
        my_max = _out("StopGradient", None, input=safe_max)
        result = math_ops.log(reduce_sum(math_ops.exp(math_ops.subtract(input_tensor, my_max)),
                                         axis=axis, keepdims=keepdims))
        if not keepdims:
            my_max = _out("Reshape", None, tensor=my_max, shape=_out("Shape", None, input=result))
        result = math_ops.add(result, my_max, name=scope)
        return _may_reduce_to_scalar(keepdims, axis, result)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The variance of elements across dimensions (mean of squared deviations).

    Raises:
      TypeError: for integer inputs.
    """
    from trainflow.ops.math import math_ops
    with name_scope(name or "reduce_variance", None, [input_tensor]):
        x = convert_to_tensor(input_tensor)
        means = reduce_mean(x, axis=axis, keepdims=True)
        if means.dtype.is_integer:
            raise TypeError(f"Input must be either real or complex. Received integer type "
                            f"{means.dtype}.")
        diff = math_ops.subtract(x, means, name="sub")
        if diff.dtype.is_complex:
            sq = _out("Real", None, input=math_ops.multiply(math_ops.conj(diff), diff),
                      Tout=diff.dtype.real_dtype)
        else:
            sq = math_ops.square(diff)
        return reduce_mean(sq, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation of elements across dimensions.

    Raises:
      TypeError: for integer inputs.
    """
    from trainflow.ops.math import math_ops
    with name_scope(name or "reduce_std", None, [input_tensor]):
        x = convert_to_tensor(input_tensor)
        return math_ops.sqrt(reduce_variance(x, axis=axis, keepdims=keepdims))


_ARG_AXIS_TYPES = (dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16, dtypes.int32,
                   dtypes.int64)


def _arg_reduce(op_type, input, axis, output_type, name):  # noqa: A002 - TF's name
    if axis is None:
        axis = 0
    if hasattr(axis, "dtype"):
        axis_dtype = dtypes.as_dtype(axis.dtype).base_dtype
        if axis_dtype not in _ARG_AXIS_TYPES:
            raise TypeError(f"axis tensor dtypes {axis_dtype} is not supported")
        if isinstance(axis, Tensor) and axis_dtype not in (dtypes.int32, dtypes.int64):
            axis = _out("Cast", "Cast", x=axis, DstT=dtypes.int32)
    elif not isinstance(axis, int):
        raise TypeError("axis must be int or Tensor with integer datatype")
    return _out(op_type, name, input=input, dimension=axis, output_type=output_type)


def argmax(input, axis=None, name=None, dimension=None,  # noqa: A002 - TF's name
           output_type=dtypes.int64):
    """The index of the largest value along `axis` (default 0) (`ArgMax`).

    NaNs are never selected unless every value is NaN. `dimension` is TF1's
    older name of `axis`.

    Raises:
      ValueError: if both `axis` and `dimension` are given, or the axis is out of range.
      TypeError: for a non-integer axis.
    """
    axis = _lookup("axis", axis, "dimension", dimension)
    return _arg_reduce("ArgMax", input, axis, output_type, name)


def argmin(input, axis=None, name=None, dimension=None,  # noqa: A002 - TF's name
           output_type=dtypes.int64):
    """The index of the smallest value along `axis` (default 0) (`ArgMin`).

    Raises:
      ValueError: if both `axis` and `dimension` are given, or the axis is out of range.
      TypeError: for a non-integer axis.
    """
    axis = _lookup("axis", axis, "dimension", dimension)
    return _arg_reduce("ArgMin", input, axis, output_type, name)


def arg_max(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    """The raw `ArgMax` op (TF1's `tf.arg_max`)."""
    return _out("ArgMax", name, input=input, dimension=dimension, output_type=output_type)


def arg_min(input, dimension, output_type=dtypes.int64, name=None):  # noqa: A002
    """The raw `ArgMin` op (TF1's `tf.arg_min`)."""
    return _out("ArgMin", name, input=input, dimension=dimension, output_type=output_type)


def reduced_shape(input_shape, axes):
    """The shape of a reduction's output with kept dims: `input_shape` with 1 at `axes`
    (TF's `math_ops.reduced_shape`, used by the reduction gradients).

    Args:
      input_shape: the input's shape as a 1-D int tensor, list or array.
      axes: the reduction axes (int, list or int tensor; negative values count from
        the end).

    Returns:
      an int32 ndarray when both arguments are static, else a 1-D int tensor
      (a `DynamicStitch` of the shape and ones at the axes).
    """
    from trainflow.framework import tensor_util
    from trainflow.ops.array import array_ops
    from trainflow.ops.math import math_ops
    from trainflow.ops.data_flow import partition as nn_partition_ops
    static_shape = (tensor_util.constant_value(input_shape) if isinstance(input_shape, Tensor)
                    else np.asarray(input_shape))
    if static_shape is not None:
        static_axes = (tensor_util.constant_value(axes) if isinstance(axes, Tensor)
                       else np.asarray(axes))
        if static_axes is not None:
            out = np.array(static_shape, dtype=np.int32)
            out[np.asarray(static_axes, dtype=np.int32)] = 1
            return out
    input_shape = convert_to_tensor(input_shape)
    axes = convert_to_tensor(axes)
    if axes.dtype.base_dtype != dtypes.int32:
        # DynamicStitch takes int32 indices only (TF fails here for int64 axes).
        axes = math_ops.cast(axes, dtypes.int32)
    input_rank = array_ops.size(input_shape, out_type=axes.dtype.base_dtype)
    axes = (axes + input_rank) % input_rank
    axes_shape = array_ops.shape(axes)
    return nn_partition_ops.dynamic_stitch(
        [math_ops.range(input_rank), axes],
        [input_shape, array_ops.ones(axes_shape, dtype=input_shape.dtype.base_dtype)])


def _scan(op_type, x, axis, exclusive, reverse, name):
    with name_scope(name, op_type, [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return _out(op_type, scope, x=x, axis=axis, exclusive=exclusive, reverse=reverse)


def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative sum along `axis` (`Cumsum`).

    Args:
      x: the tensor.
      axis: a scalar int (or int tensor) axis in [-rank, rank).
      exclusive: each output excludes its own element (starts at 0).
      reverse: accumulate from the end.
      name: the op name.
    """
    return _scan("Cumsum", x, axis, exclusive, reverse, name)


def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """Cumulative product along `axis` (`Cumprod`); `exclusive` starts at 1."""
    return _scan("Cumprod", x, axis, exclusive, reverse, name)


def count_nonzero(input_tensor=None, axis=None, keepdims=None, dtype=dtypes.int64, name=None,
                  reduction_indices=None, keep_dims=None, input=None):  # noqa: A002
    """Counts the non-zero elements (non-empty strings, True) across dimensions.

    Args:
      input_tensor: the tensor (`input` is the newer spelling).
      axis / reduction_indices: the dimensions to reduce; None reduces all.
      keepdims / keep_dims: keep reduced dimensions with length 1.
      dtype: the result dtype (int64 by default).
      name: the name scope.

    Raises:
      ValueError: if two spellings of one argument are given.
    """
    from trainflow.ops.math import math_ops
    input_tensor = _lookup("input", input, "input_tensor", input_tensor)
    axis = _lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _lookup("keepdims", keepdims, "keep_dims", keep_dims)
    keepdims = False if keepdims is None else keepdims
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "count_nonzero", [input_tensor]):
        x = convert_to_tensor(input_tensor, name="input")
        if x.dtype.base_dtype == dtypes.bool:
            predicate = x
        else:
            from trainflow.framework.constant_op import constant
            zero = constant(np.zeros((), x.dtype.base_dtype.as_numpy_dtype)
                            if x.dtype.base_dtype != dtypes.string else b"",
                            dtype=x.dtype.base_dtype, name="zeros")
            predicate = math_ops.not_equal(x, zero)
        counts = reduce_sum(math_ops._cast(predicate, dtypes.int64), axis=axis,
                            keepdims=keepdims)
        return math_ops._cast(counts, dtype)
