"""ArgMax and ArgMin, and the scans Cumsum and Cumprod: registrations, shape
functions, NumPy kernels and TF1's functions (`argmax`, `argmin`, `arg_max`,
`arg_min`, `cumsum`, `cumprod`). Gradients: `reductions_grad`.

ArgMax/ArgMin never pick a NaN unless every value is NaN, as TensorFlow's
comparison-based kernels; scans accumulate half-precision floats in float32.
"""
import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.math.reductions import (
    _NUMBER, _REAL, _TIDX, _invalid, _lookup, _out, accumulation_dtype, is_float_dtype)
from trainflow._src.ops.math.shapes import arg_reduce_shape_fn, scan_shape_fn


def _scalar_axis(dimension, ndim, what):
    """The axis of a scalar axis input, checked against [-ndim, ndim)."""
    if np.size(dimension) != 1:
        raise _invalid(f"dim must be a scalar, but received tensor of shape: "
                       f"{list(np.shape(dimension))}")
    a = int(np.reshape(dimension, ()))
    if a < -ndim or a >= ndim:
        raise _invalid(f"Expected {what} in the range [{-ndim}, {ndim}), but got {a}")
    return a + ndim if a < 0 else a


def _arg_kernel(np_fn, nan_fill):
    def kernel(input, dimension, *, output_type):  # noqa: A002
        axis = _scalar_axis(dimension, input.ndim, "dimension")
        if input.shape[axis] == 0:
            raise _invalid(f"Reduction axis {axis} is empty in shape "
                           f"[{','.join(map(str, input.shape))}]")
        x = input
        if is_float_dtype(x.dtype):
            nans = np.isnan(x)
            # TF's comparison-based reduction never picks a NaN (index 0 if all are NaN).
            if nans.any():
                x = np.where(nans, x.dtype.type(nan_fill), x)
        return np.asarray(np_fn(x, axis=axis)).astype(output_type.as_numpy_dtype)
    return kernel


def _scan_kernel(np_fn, identity):
    def kernel(x, axis, *, exclusive, reverse):
        if np.ndim(axis) != 0:
            raise _invalid(f"ScanOp: axis must be a scalar, not {list(np.shape(axis))}")
        try:
            ax = _scalar_axis(axis, x.ndim, "scan axis")
        except errors.InvalidArgumentError as e:
            raise _invalid("ScanOp: " + e.message) from None
        dt = x.dtype
        acc = accumulation_dtype(dt)
        src = np.flip(x, ax) if reverse else x
        out = np_fn(src, axis=ax, dtype=acc)
        if exclusive and out.shape[ax]:
            shifted = np.empty_like(out)
            head = [slice(None)] * out.ndim
            head[ax] = slice(0, 1)
            rest = list(head)
            rest[ax] = slice(1, None)
            body = list(head)
            body[ax] = slice(0, -1)
            shifted[tuple(head)] = identity
            shifted[tuple(rest)] = out[tuple(body)]
            out = shifted
        if reverse:
            out = np.flip(out, ax)
        return out.astype(dt, copy=False)
    return kernel


_ARG_T = "T: " + _REAL[:-1] + ", bool}"
register_op("ArgMax", inputs=["input: T", "dimension: Tidx"], outputs=["output: output_type"],
            attrs=[_ARG_T, "Tidx: {int16, int32, int64} = DT_INT32",
                   "output_type: {int16, uint16, int32, int64} = DT_INT64"],
            shape_fn=arg_reduce_shape_fn, kernel=_arg_kernel(np.argmax, -np.inf))
register_op("ArgMin", inputs=["input: T", "dimension: Tidx"], outputs=["output: output_type"],
            attrs=[_ARG_T, _TIDX, "output_type: {int32, int64} = DT_INT64"],
            shape_fn=arg_reduce_shape_fn, kernel=_arg_kernel(np.argmin, np.inf))

for _name, _fn, _identity in (("Cumsum", np.cumsum, 0), ("Cumprod", np.cumprod, 1)):
    register_op(_name, inputs=["x: T", "axis: Tidx"], outputs=["out: T"],
                attrs=["exclusive: bool = false", "reverse: bool = false", f"T: {_NUMBER}",
                       _TIDX],
                shape_fn=scan_shape_fn, kernel=_scan_kernel(_fn, _identity))


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
