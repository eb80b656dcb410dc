"""Reductions: the op types Sum, Mean, Prod, Max, Min, All, Any and EuclideanNorm
(registrations, shape functions, NumPy kernels) and TF1's reduce functions
(`reduce_sum` ... `reduce_logsumexp`, `reduce_variance`, `reduce_std`,
`count_nonzero`). Gradients (and `reduced_shape`): `reductions_grad`.

Kernels keep TensorFlow's dtype rules: integer sums wrap in their own type,
integer means are computed wide and truncated toward zero, half-precision
floats accumulate in float32, empty max/min give -inf/+inf (the type's lowest/
highest for integers), and axis errors read as TF's. Integer reductions of static
values fold at graph construction.

The reduce functions take TF1's spellings: `axis` or `reduction_indices`,
`keepdims` or `keep_dims`. Without an axis they reduce over every dimension
through a constant `Const` of all axes (or `Range(0, Rank(x))` when the rank is
unknown), as TensorFlow does, so graphs and names match.
"""
import numpy as np

from trainflow._src.framework import dtypes, errors, tensor_util
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.math.shapes import reduction_shape_fn
from trainflow._src.framework.constant_op import constant
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.math import arith

_NUMBER = ("{float32, float64, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
           "qint32, bfloat16, qint16, quint16, uint16, complex128, float16, uint32, uint64}")
_REAL = ("{float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, float16, "
         "uint32, uint64, qint8, quint8, qint32, qint16, quint16}")
_TIDX = "Tidx: {int32, int64} = DT_INT32"

def accumulation_dtype(dt):
    """The accumulation dtype: float32 for half types, else the dtype itself."""
    return np.float32 if dtypes.is_half_float(dt) else dt


def is_float_dtype(dt):
    """True for floating dtypes, bfloat16 included (its NumPy kind is 'V')."""
    return dt.kind == "f" or (dt.kind == "V" and dt.name == "bfloat16")


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


# -- the reduce functions ------------------------------------------------------------
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
        return constant(np.arange(rank, dtype=np.int32))
    return _out("Range", "range", start=0, limit=shape_lib.rank(x), delta=1)


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
    axis = _lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _lookup("keepdims", keepdims, "keep_dims", keep_dims)
    keepdims = False if keepdims is None else bool(keepdims)
    with name_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        raw_max = reduce_max(input_tensor, axis=axis, keepdims=True)
        safe_max = _out("SelectV2", None, condition=arith.is_finite(raw_max), t=raw_max,
                        e=0)
        my_max = _out("StopGradient", None, input=safe_max)
        result = arith.log(reduce_sum(arith.exp(arith.subtract(input_tensor, my_max)),
                                         axis=axis, keepdims=keepdims))
        if not keepdims:
            my_max = _out("Reshape", None, tensor=my_max, shape=_out("Shape", None, input=result))
        result = arith.add(result, my_max, name=scope)
        return _may_reduce_to_scalar(keepdims, axis, result)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The variance of elements across dimensions (mean of squared deviations).

    Raises:
      TypeError: for integer inputs.
    """
    with name_scope(name or "reduce_variance", None, [input_tensor]):
        x = convert_to_tensor(input_tensor)
        means = reduce_mean(x, axis=axis, keepdims=True)
        if means.dtype.is_integer:
            raise TypeError(f"Input must be either real or complex. Received integer type "
                            f"{means.dtype}.")
        diff = arith.subtract(x, means, name="sub")
        if diff.dtype.is_complex:
            sq = _out("Real", None, input=arith.multiply(arith.conj(diff), diff),
                      Tout=diff.dtype.real_dtype)
        else:
            sq = arith.square(diff)
        return reduce_mean(sq, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation of elements across dimensions.

    Raises:
      TypeError: for integer inputs.
    """
    with name_scope(name or "reduce_std", None, [input_tensor]):
        x = convert_to_tensor(input_tensor)
        return arith.sqrt(reduce_variance(x, axis=axis, keepdims=keepdims))


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
            zero = constant(np.zeros((), x.dtype.base_dtype.as_numpy_dtype)
                            if x.dtype.base_dtype != dtypes.string else b"",
                            dtype=x.dtype.base_dtype, name="zeros")
            predicate = arith.not_equal(x, zero)
        counts = reduce_sum(arith._cast(predicate, dtypes.int64), axis=axis,
                            keepdims=keepdims)
        return arith._cast(counts, dtype)
