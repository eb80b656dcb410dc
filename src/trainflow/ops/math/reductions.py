"""Reduction and scan op types: Sum, Mean, Prod, Max, Min, All, Any,
EuclideanNorm, ArgMax, ArgMin, Cumsum, Cumprod (registrations and kernels).

Kernels keep TensorFlow's dtype rules: integer sums wrap in their own type,
integer means are computed wide and truncated toward zero, half-precision
floats accumulate in float32, empty max/min give -inf/+inf (the type's lowest/
highest for integers), and axis errors read as TF's. Integer reductions of static
values fold at graph construction. Gradients: `math_reductions_grad`.
"""
import ml_dtypes
import numpy as np

from trainflow.framework import dtypes, errors, tensor_util
from trainflow.framework.registry import register_op
from trainflow.ops.math.shapes import arg_reduce_shape_fn, reduction_shape_fn, scan_shape_fn

_NUMBER = ("{float32, float64, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
           "qint32, bfloat16, qint16, quint16, uint16, complex128, float16, uint32, uint64}")
_REAL = ("{float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, float16, "
         "uint32, uint64, qint8, quint8, qint32, qint16, quint16}")
_TIDX = "Tidx: {int32, int64} = DT_INT32"

_HALF_TYPES = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def accumulation_dtype(dt):
    """The accumulation dtype: float32 for half types, else the dtype itself."""
    return np.float32 if dt in _HALF_TYPES else dt


def is_float_dtype(dt):
    """True for floating dtypes, bfloat16 included (its NumPy kind is 'V')."""
    return dt.kind == "f" or dt == _HALF_TYPES[1]


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


_AXES_CACHE = {}


def reduction_axes(axis, ndim):
    """Normalizes a reduction-indices array to a tuple of distinct axes in [0, ndim).

    Raises:
      InvalidArgumentError: for an out-of-range or repeated axis.
    """
    key = (axis.tobytes(), axis.itemsize, ndim)
    axes = _AXES_CACHE.get(key)
    if axes is not None:
        return axes
    values = axis.reshape(-1).tolist() if axis.ndim else [int(axis)]
    out = []
    for a in values:
        if a < -ndim or a >= ndim:
            raise _invalid(f"Invalid reduction dimension ({a} for input with {ndim} "
                           "dimension(s)")
        if a < 0:
            a += ndim
        if a in out:
            raise _invalid(f"Invalid reduction arguments: Axes contains duplicate dimension: "
                           f"{a}")
        out.append(a)
    axes = tuple(out)
    if len(_AXES_CACHE) > 4096:
        _AXES_CACHE.clear()
    _AXES_CACHE[key] = axes
    return axes


def _sum(input, reduction_indices, *, keep_dims):  # noqa: A002 - TF's arg name
    axes = reduction_axes(reduction_indices, input.ndim)
    dt = input.dtype
    acc = accumulation_dtype(dt)
    out = np.add.reduce(input, axis=axes, dtype=acc, keepdims=keep_dims)
    return out if acc is dt else out.astype(dt)


def _prod(input, reduction_indices, *, keep_dims):  # noqa: A002
    axes = reduction_axes(reduction_indices, input.ndim)
    dt = input.dtype
    acc = accumulation_dtype(dt)
    out = np.multiply.reduce(input, axis=axes, dtype=acc, keepdims=keep_dims)
    return out if acc is dt else out.astype(dt)


def _count(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def _mean(input, reduction_indices, *, keep_dims):  # noqa: A002
    axes = reduction_axes(reduction_indices, input.ndim)
    dt = input.dtype
    n = _count(input.shape, axes)
    if dt.kind in "iu":
        total = np.sum(input, axis=axes, dtype=np.int64 if dt.kind == "i" else np.uint64,
                       keepdims=keep_dims)
        if n == 0:
            return np.zeros(np.shape(total), dt)
        count = np.asarray(n, dtype=total.dtype)
        q = total // count
        if dt.kind == "i":
            # Truncate toward zero like C++ integer division.
            q = q + ((total < 0) & (total % count != 0))
        return np.asarray(q).astype(dt)
    acc = accumulation_dtype(dt)
    total = np.add.reduce(input, axis=axes, dtype=acc, keepdims=keep_dims)
    if n == 0:
        return np.full(np.shape(total), np.nan, dt)
    return np.true_divide(total, np.asarray(n, dtype=total.dtype)).astype(dt, copy=False)


def _extreme_kernel(np_fn, empty_float):
    def kernel(input, reduction_indices, *, keep_dims):  # noqa: A002
        axes = reduction_axes(reduction_indices, input.ndim)
        if input.size:
            return np_fn(input, axis=axes, keepdims=keep_dims)
        dt = input.dtype
        if is_float_dtype(dt):
            initial = dt.type(empty_float)
        else:
            info = np.iinfo(dt)
            initial = info.min if empty_float < 0 else info.max
        return np_fn(input, axis=axes, keepdims=keep_dims, initial=initial)
    return kernel


def _all(input, reduction_indices, *, keep_dims):  # noqa: A002
    return np.logical_and.reduce(input, axis=reduction_axes(reduction_indices, input.ndim),
                                 keepdims=keep_dims)


def _any(input, reduction_indices, *, keep_dims):  # noqa: A002
    return np.logical_or.reduce(input, axis=reduction_axes(reduction_indices, input.ndim),
                                keepdims=keep_dims)


def _euclidean_norm(input, reduction_indices, *, keep_dims):  # noqa: A002
    axes = reduction_axes(reduction_indices, input.ndim)
    dt = input.dtype
    if dt.kind == "c":
        sq = np.real(input * np.conjugate(input))
        return np.sqrt(np.sum(sq, axis=axes, keepdims=keep_dims)).astype(dt)
    wide = np.float64 if dt.kind in "iu" else accumulation_dtype(dt)
    x = np.asarray(input, dtype=wide)
    return np.sqrt(np.sum(x * x, axis=axes, keepdims=keep_dims)).astype(dt)


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


def _reduction(op_type, types, kernel, input_type="T"):
    attrs = ["keep_dims: bool = false"]
    if input_type == "T":
        attrs.append(f"T: {types}")
    attrs.append(_TIDX)
    return register_op(op_type, inputs=[f"input: {input_type}", "reduction_indices: Tidx"],
                       outputs=[f"output: {input_type}"], attrs=attrs,
                       shape_fn=reduction_shape_fn, kernel=kernel)


_reduction("Sum", _NUMBER, _sum)
_reduction("Mean", _NUMBER, _mean)
_reduction("Prod", _NUMBER, _prod)
_reduction("Max", _REAL, _extreme_kernel(np.maximum.reduce, -np.inf))
_reduction("Min", _REAL, _extreme_kernel(np.minimum.reduce, np.inf))
_reduction("EuclideanNorm", _NUMBER, _euclidean_norm)
_reduction("All", None, _all, input_type="bool")
_reduction("Any", None, _any, input_type="bool")

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


# Static values of integer Sum/Prod/Max/Min (sizes computed from shapes), folded as
# TensorFlow's shape inference folds small constant subgraphs.
def _fold_reduction(kernel):
    def value(op, index, partial):
        if op.outputs[0].dtype.base_dtype not in (dtypes.int32, dtypes.int64):
            return None
        x = tensor_util.constant_value(op.inputs[0])
        axes = tensor_util.constant_value(op.inputs[1])
        if x is None or axes is None or np.size(x) > 1024:
            return None
        try:
            return np.asarray(kernel(np.asarray(x), np.asarray(axes),
                                     keep_dims=op._attrs["keep_dims"]))
        except (errors.OpError, ValueError):
            return None
    return value


for _name, _kernel in (("Sum", _sum), ("Prod", _prod),
                       ("Max", _extreme_kernel(np.maximum.reduce, -np.inf)),
                       ("Min", _extreme_kernel(np.minimum.reduce, np.inf))):
    tensor_util.register_constant_value(_name)(_fold_reduction(_kernel))
