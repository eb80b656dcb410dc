"""XLA lowerings of the math ops (element-wise, products, reductions, AddN, Cast,
comparisons, Select, CheckNumerics), registered with the registry's "xla" backend.

Imported only when a session runs with XLA (runtime/backends/xla_switch.py). Each
lowering takes the op's inputs as jax (or NumPy) arrays and its attrs as keywords, like
the NumPy kernel, and returns jax arrays.
"""
import jax
import jax.numpy as jnp
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.registry import register_kernel

XLA = "xla"


def _is_int(x):
    return jnp.issubdtype(jnp.result_type(x), jnp.integer)


def _trunc_div(x, y):
    if _is_int(x):
        q = jnp.abs(x) // jnp.abs(y)
        return jnp.where((x < 0) != (y < 0), -q, q).astype(jnp.result_type(x))
    return x / y


def _truncate_div(x, y):
    return _trunc_div(x, y) if _is_int(x) else jnp.trunc(x / y)


def _reciprocal(x):
    return _trunc_div(jnp.ones_like(x), x) if _is_int(x) else jnp.reciprocal(x)


def _trunc_mod(x, y):
    return jnp.fmod(x, y) if not _is_int(x) else x - _trunc_div(x, y) * y


def _safe(pred, value, x):
    return jnp.where(pred, jnp.zeros_like(value), value)


_UNARY = {
    "Abs": jnp.abs, "Neg": jnp.negative, "Exp": jnp.exp, "Expm1": jnp.expm1,
    "Log": jnp.log, "Log1p": jnp.log1p, "Sqrt": jnp.sqrt, "Rsqrt": jax.lax.rsqrt,
    "Square": jnp.square, "Sin": jnp.sin, "Cos": jnp.cos, "Tan": jnp.tan,
    "Asin": jnp.arcsin, "Acos": jnp.arccos, "Atan": jnp.arctan, "Sinh": jnp.sinh,
    "Cosh": jnp.cosh, "Tanh": jnp.tanh, "Asinh": jnp.arcsinh, "Acosh": jnp.arccosh,
    "Atanh": jnp.arctanh, "Sigmoid": jax.nn.sigmoid, "Floor": jnp.floor, "Ceil": jnp.ceil,
    "Round": jnp.round, "Rint": jnp.rint, "Sign": jnp.sign, "Erf": jax.scipy.special.erf,
    "Erfc": jax.scipy.special.erfc, "Lgamma": jax.scipy.special.gammaln,
    "Digamma": jax.scipy.special.digamma, "LogicalNot": jnp.logical_not,
    "Erfinv": jax.scipy.special.erfinv, "Ndtri": jax.scipy.special.ndtri,
    "Reciprocal": _reciprocal, "Inv": _reciprocal, "IsNan": jnp.isnan,
    "IsInf": jnp.isinf, "IsFinite": jnp.isfinite, "Invert": jnp.invert,
}

_BINARY = {
    "Add": jnp.add, "AddV2": jnp.add, "Sub": jnp.subtract, "Mul": jnp.multiply,
    "RealDiv": jnp.true_divide, "Div": _trunc_div, "TruncateDiv": _truncate_div,
    "FloorDiv": jnp.floor_divide, "FloorMod": jnp.mod, "Mod": _trunc_mod,
    "TruncateMod": _trunc_mod, "Maximum": jnp.maximum, "Minimum": jnp.minimum,
    "Pow": jnp.power, "Atan2": jnp.arctan2, "NextAfter": jnp.nextafter,
    "SquaredDifference": lambda x, y: jnp.square(x - y),
    "Less": jnp.less, "LessEqual": jnp.less_equal, "Greater": jnp.greater,
    "GreaterEqual": jnp.greater_equal, "LogicalAnd": jnp.logical_and,
    "LogicalOr": jnp.logical_or, "BitwiseAnd": jnp.bitwise_and, "BitwiseOr": jnp.bitwise_or,
    "BitwiseXor": jnp.bitwise_xor,
    "DivNoNan": lambda x, y: jnp.where(y == 0, jnp.zeros_like(x / jnp.where(y == 0, 1, y)),
                                       x / jnp.where(y == 0, 1, y)),
    "MulNoNan": lambda x, y: jnp.where(y == 0, jnp.zeros_like(x * y), x * y),
    "Xlogy": lambda x, y: jnp.where(x == 0, jnp.zeros_like(x * y), x * jnp.log(y)),
    "Xdivy": lambda x, y: jnp.where(x == 0, jnp.zeros_like(x / y), x / y),
    "Xlog1py": lambda x, y: jnp.where(x == 0, jnp.zeros_like(x * y), x * jnp.log1p(y)),
}

# Gradients of the unary ops, in TF's (y, dy) argument order.
_UNARY_GRAD = {
    "TanhGrad": lambda y, dy: dy * (1 - y * y),
    "SigmoidGrad": lambda y, dy: dy * y * (1 - y),
    "SqrtGrad": lambda y, dy: dy * 0.5 / y,
    "RsqrtGrad": lambda y, dy: dy * -0.5 * y * y * y,
    "ReciprocalGrad": lambda y, dy: -dy * y * y,
    "InvGrad": lambda y, dy: -dy * y * y,
}


def _unary(fn):
    return lambda x: fn(x)


def _binary(fn):
    return lambda x, y: fn(x, y)


def _compare(fn):
    def lower(x, y, *, incompatible_shape_error=True):
        return fn(x, y)
    return lower


def _matmul(a, b, *, transpose_a, transpose_b):
    if jnp.ndim(a) != 2 or jnp.ndim(b) != 2:
        raise ValueError("MatMul of a non-matrix (NumPy raises TF's error)")
    a = a.T if transpose_a else a
    b = b.T if transpose_b else b
    return jnp.matmul(a, b, preferred_element_type=jnp.result_type(a))


def _sparse_matmul(a, b, *, transpose_a, transpose_b):
    # the sparsity hints only choose a CPU kernel; the product is float32 either way
    return _matmul(a.astype(jnp.float32), b.astype(jnp.float32), transpose_a=transpose_a,
                   transpose_b=transpose_b)


def _batch_matmul(x, y, *, adj_x, adj_y, op):
    if jnp.ndim(x) < 2 or jnp.ndim(y) < 2 or (
            op._type == "BatchMatMul" and jnp.shape(x)[:-2] != jnp.shape(y)[:-2]):
        raise ValueError("BatchMatMul shapes (NumPy raises TF's error)")
    if adj_x:
        x = jnp.conj(jnp.swapaxes(x, -1, -2))
    if adj_y:
        y = jnp.conj(jnp.swapaxes(y, -1, -2))
    return jnp.matmul(x, y)


def _axes(reduction_indices, ndim):
    r = np.asarray(reduction_indices).reshape(-1)
    return tuple(sorted({int(a) % ndim for a in r})) if ndim else ()


def _reduction(fn):
    def lower(input, reduction_indices, *, keep_dims):  # noqa: A002 - TF's arg name
        x = jnp.asarray(input)
        axes = _axes(reduction_indices, x.ndim)
        out = fn(x, axis=axes, keepdims=keep_dims)
        return out.astype(x.dtype) if out.dtype != x.dtype else out
    return lower


def _mean(x, axis, keepdims):
    if _is_int(x):
        n = int(np.prod([x.shape[a] for a in axis])) if axis else 1
        return _trunc_div(jnp.sum(x, axis=axis, keepdims=keepdims), max(n, 1))
    return jnp.mean(x, axis=axis, keepdims=keepdims)


def _arg_reduce(fn):
    def lower(input, dimension, *, output_type):  # noqa: A002 - TF's arg name
        return fn(input, axis=int(np.asarray(dimension)) % jnp.ndim(input)).astype(
            output_type.as_numpy_dtype)
    return lower


def _add_n(inputs):
    out = inputs[0]
    for x in inputs[1:]:
        out = out + x
    return out


def _cast(x, *, DstT):  # noqa: N803 - TF's attr name
    dst = DstT.as_numpy_dtype
    if dst is np.bool_:
        return jnp.asarray(x) != 0
    return jnp.asarray(x).astype(dst)


def _select(condition, t, e):
    c = jnp.asarray(condition)
    if c.ndim == 1 and jnp.ndim(t) > 1:
        c = c.reshape((-1,) + (1,) * (jnp.ndim(t) - 1))
    return jnp.where(c, t, e)


def _check_numerics(tensor, *, message, check):
    check(jnp.any(~jnp.isfinite(tensor)), f"{message} : Tensor had NaN or Inf values")
    return tensor


def _cumulative(fn):
    def lower(x, axis, *, exclusive, reverse):
        ax = int(np.asarray(axis)) % jnp.ndim(x)
        if reverse:
            x = jnp.flip(x, ax)
        out = fn(x, axis=ax)
        if exclusive:
            ident = jnp.zeros_like if fn is jnp.cumsum else jnp.ones_like
            first = ident(jax.lax.slice_in_dim(x, 0, 1, axis=ax))
            out = jnp.concatenate([first, jax.lax.slice_in_dim(out, 0, -1, axis=ax)], ax)
        return jnp.flip(out, ax) if reverse else out
    return lower


def _unsorted_segment_sum(data, segment_ids, num_segments):
    if isinstance(num_segments, jax.core.Tracer):
        raise TypeError("num_segments is computed in the step, not known at trace time")
    n = int(np.asarray(num_segments))
    ids = jnp.reshape(segment_ids, (-1,))
    flat = jnp.reshape(data, (ids.shape[0],) + jnp.shape(data)[jnp.ndim(segment_ids):])
    return jax.ops.segment_sum(flat, ids, num_segments=n)


def register_all():
    """Registers the lowerings of this module (idempotent)."""
    for name, fn in _UNARY.items():
        register_kernel(name, _unary(fn), backend=XLA)
    for name, fn in _BINARY.items():
        register_kernel(name, _binary(fn), backend=XLA)
    for name, fn in _UNARY_GRAD.items():
        register_kernel(name, _binary(fn), backend=XLA)
    register_kernel("Equal", _compare(jnp.equal), backend=XLA)
    register_kernel("NotEqual", _compare(jnp.not_equal), backend=XLA)
    register_kernel("MatMul", _matmul, backend=XLA)
    register_kernel("SparseMatMul", _sparse_matmul, backend=XLA)
    for name in ("BatchMatMul", "BatchMatMulV2"):
        register_kernel(name, _batch_matmul, backend=XLA)
    for name, fn in (("Sum", jnp.sum), ("Prod", jnp.prod), ("Max", jnp.max),
                     ("Min", jnp.min), ("Mean", _mean), ("All", jnp.all), ("Any", jnp.any)):
        register_kernel(name, _reduction(fn), backend=XLA)
    register_kernel("ArgMax", _arg_reduce(jnp.argmax), backend=XLA)
    register_kernel("ArgMin", _arg_reduce(jnp.argmin), backend=XLA)
    register_kernel("AddN", _add_n, backend=XLA)
    register_kernel("Cast", _cast, backend=XLA)
    register_kernel("Select", _select, backend=XLA)
    register_kernel("SelectV2", lambda condition, t, e: jnp.where(condition, t, e), backend=XLA)
    register_kernel("CheckNumerics", _check_numerics, backend=XLA)
    register_kernel("UnsortedSegmentSum", _unsorted_segment_sum, backend=XLA)
    register_kernel("Cumsum", _cumulative(jnp.cumsum), backend=XLA)
    register_kernel("Cumprod", _cumulative(jnp.cumprod), backend=XLA)


register_all()
# `errors` is re-exported for lowerings that name a class in check().
__all__ = ["register_all", "errors"]
