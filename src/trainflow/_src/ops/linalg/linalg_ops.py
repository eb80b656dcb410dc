"""Dense linear algebra ops: MatrixInverse, MatrixDeterminant, LogMatrixDeterminant,
Cholesky, MatrixSolve, MatrixTriangularSolve, Svd, MatrixBandPart and Cross
(registrations, shape functions and NumPy kernels).

Every op works on batches of matrices (the last two dimensions). Half precision is
computed in float32 and rounded back. A singular or non-positive-definite input is
an InvalidArgumentError with TensorFlow's wording. Gradients: `linalg_grad`.
"""
import numpy as np

from trainflow._src.framework.registry import register_op
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, broadcast_batch_dims, dims_of, invalid_argument, merge_dim, shape_of,
    with_rank_at_least)

_FLOATS = "{float64, float32, float16, complex64, complex128}"
_REAL = ("{float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, float16, "
         "uint32, uint64}")


def _wide(x):
    """(x in a LAPACK-friendly dtype, the dtype to return)."""
    x = np.asarray(x)
    if x.dtype.itemsize <= 2 and x.dtype.kind == "f":
        return x.astype(np.float32), x.dtype
    return x, x.dtype


def _square_dims(op, index=0):
    dims = with_rank_at_least(dims_of(op.inputs[index]), 2)
    if dims is None:
        return None
    n = merge_dim(dims[-2], dims[-1])
    return dims[:-2] + (n, n)


def _check_square(x, what="Input"):
    if x.ndim < 2:
        raise invalid_argument(f"{what} must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise invalid_argument(f"{what} matrices must be square, got "
                               f"{x.shape[-2]} != {x.shape[-1]}")


def _adjoint(m):
    m = np.swapaxes(m, -1, -2)
    return np.conjugate(m) if m.dtype.kind == "c" else m


# -- inverse, determinants ----------------------------------------------------------------
def _matrix_inverse(input, *, adjoint):  # noqa: A002 - TF's arg name
    x, dt = _wide(input)
    _check_square(x)
    if adjoint:
        x = _adjoint(x)
    if x.size == 0:
        return np.array(x, dtype=dt)
    try:
        inv = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise invalid_argument("Input is not invertible.") from None
    return inv.astype(dt, copy=False)


def _square_shape(op):
    return [shape_of(_square_dims(op))]


def _determinant_shape(op):
    dims = _square_dims(op)
    return [shape_of(None if dims is None else dims[:-2])]


def _matrix_determinant(input):  # noqa: A002
    x, dt = _wide(input)
    _check_square(x)
    return np.asarray(np.linalg.det(x)).astype(dt, copy=False)


def _log_matrix_determinant(input):  # noqa: A002
    x, dt = _wide(input)
    _check_square(x)
    sign, logdet = np.linalg.slogdet(x)
    return (np.asarray(sign).astype(dt, copy=False),
            np.asarray(logdet).astype(dt, copy=False))


def _log_determinant_shape(op):
    out = _determinant_shape(op)[0]
    return [out, out]


# -- Cholesky and solves ------------------------------------------------------------------
def _cholesky(input):  # noqa: A002
    x, dt = _wide(input)
    _check_square(x)
    if x.size == 0:
        return np.array(x, dtype=dt)
    # Only the lower triangle is read, as in TensorFlow.
    lower = np.tril(x)
    herm = lower + _adjoint(np.tril(x, -1))
    try:
        out = np.linalg.cholesky(herm)
    except np.linalg.LinAlgError:
        raise invalid_argument("Cholesky decomposition was not successful. The input might "
                               "not be valid.") from None
    return out.astype(dt, copy=False)


def _solve_shape(op):
    a = with_rank_at_least(dims_of(op.inputs[0]), 2)
    b = with_rank_at_least(dims_of(op.inputs[1]), 2)
    if a is None or b is None:
        return [UNKNOWN]
    merge_dim(a[-2], a[-1])
    merge_dim(a[-1], b[-2])
    batch = broadcast_batch_dims(a[:-2], b[:-2], "Incompatible batch dimensions {} and {}")
    return [shape_of(batch + (a[-1], b[-1]))]


def _check_solve(a, b):
    _check_square(a)
    if b.ndim < 2:
        raise invalid_argument(f"Input rhs must have rank >= 2, got {b.ndim}")
    if a.shape[-1] != b.shape[-2]:
        raise invalid_argument(f"Input matrix and right-hand side must have the same number "
                               f"of rows: {a.shape[-1]} vs. {b.shape[-2]}")


def _matrix_solve(matrix, rhs, *, adjoint):
    a, dt = _wide(matrix)
    b = np.asarray(rhs).astype(a.dtype, copy=False)
    _check_solve(a, b)
    if adjoint:
        a = _adjoint(a)
    if a.size == 0 or b.size == 0:
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:]
        return np.zeros(shape, dtype=dt)
    try:
        out = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise invalid_argument("Input matrix is not invertible.") from None
    return out.astype(dt, copy=False)


def _matrix_triangular_solve(matrix, rhs, *, lower, adjoint):
    a, dt = _wide(matrix)
    b = np.asarray(rhs).astype(a.dtype, copy=False)
    _check_solve(a, b)
    # Only the named triangle is read; the other holds anything.
    a = np.tril(a) if lower else np.triu(a)
    if adjoint:
        a = _adjoint(a)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, shape + a.shape[-2:])
    b = np.broadcast_to(b, shape + b.shape[-2:])
    if a.size == 0 or b.size == 0:
        return np.zeros(b.shape, dtype=dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = _substitute(a, b, lower != adjoint)
    return out.astype(dt, copy=False)


def _substitute(a, b, forward):
    """Solves a @ x = b for triangular a by substitution (a singular a gives inf/nan)."""
    n = a.shape[-1]
    x = np.zeros(np.broadcast_shapes(a.shape[:-1], b.shape[:-1]) + b.shape[-1:],
                 dtype=np.result_type(a, b))
    order = range(n) if forward else range(n - 1, -1, -1)
    for i in order:
        partial = np.einsum("...j,...jk->...k", a[..., i, :], x)
        x[..., i, :] = (b[..., i, :] - partial) / a[..., i, i][..., None]
    return x


# -- SVD ------------------------------------------------------------------------------------
def _svd(input, *, compute_uv, full_matrices):  # noqa: A002
    x, dt = _wide(input)
    if x.ndim < 2:
        raise invalid_argument(f"Input must have rank >= 2, got {x.ndim}")
    if not compute_uv:
        s = np.linalg.svd(x, compute_uv=False) if x.size else np.zeros(
            x.shape[:-2] + (min(x.shape[-2:]),), x.dtype)
        empty = np.zeros((0,), dtype=dt)
        return np.asarray(s).real.astype(dt, copy=False), empty, empty
    if x.size == 0:
        m, n = x.shape[-2:]
        k = min(m, n)
        batch = x.shape[:-2]
        return (np.zeros(batch + (k,), dt),
                np.zeros(batch + ((m, m) if full_matrices else (m, k)), dt),
                np.zeros(batch + ((n, n) if full_matrices else (n, k)), dt))
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return (s.real.astype(dt, copy=False), u.astype(dt, copy=False),
            _adjoint(vh).astype(dt, copy=False))


def _svd_shape(op):
    dims = with_rank_at_least(dims_of(op.inputs[0]), 2)
    if dims is None:
        return [UNKNOWN, UNKNOWN, UNKNOWN]
    batch, (m, n) = dims[:-2], dims[-2:]
    k = None if m is None or n is None else min(m, n)
    s = shape_of(batch + (k,))
    if not op._attrs.get("compute_uv", True):
        return [s, shape_of((0,)), shape_of((0,))]
    if op._attrs.get("full_matrices", False):
        return [s, shape_of(batch + (m, m)), shape_of(batch + (n, n))]
    return [s, shape_of(batch + (m, k)), shape_of(batch + (n, k))]


# -- band part, cross -----------------------------------------------------------------------
def _matrix_band_part(input, num_lower, num_upper):  # noqa: A002
    x = np.asarray(input)
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: "
                               f"{list(x.shape)}")
    m, n = x.shape[-2:]
    lo, up = int(num_lower), int(num_upper)
    if lo > m:
        raise invalid_argument(f"num_lower must be negative or less or equal to number of "
                               f"rows ({m}) got: {lo}")
    if up > n:
        raise invalid_argument(f"num_upper must be negative or less or equal to number of "
                               f"columns ({n}) got: {up}")
    diff = np.arange(m)[:, None] - np.arange(n)[None, :]  # row - column
    keep = np.ones((m, n), bool)
    if lo >= 0:
        keep &= diff <= lo
    if up >= 0:
        keep &= -diff <= up
    return np.where(keep, x, np.zeros((), x.dtype))


def _band_part_shape(op):
    for t in op.inputs[1:]:
        d = dims_of(t)
        if d is not None and len(d) != 0:
            raise ValueError(f"Shape must be rank 0 but is rank {len(d)}")
    return [shape_of(with_rank_at_least(dims_of(op.inputs[0]), 2))]


def _cross(a, b):
    if a.shape != b.shape:
        raise invalid_argument(f"Both inputs must be of same shape: {list(a.shape)} vs. "
                               f"{list(b.shape)}")
    if a.ndim < 1 or a.shape[-1] != 3:
        raise invalid_argument(f"Inner dimension of input must be 3, got shape "
                               f"{list(a.shape)}")
    return np.cross(a, b).astype(a.dtype, copy=False)


def _cross_shape(op):
    a = with_rank_at_least(dims_of(op.inputs[0]), 1)
    b = with_rank_at_least(dims_of(op.inputs[1]), 1)
    if a is None:
        a = b
    elif b is not None:
        if len(a) != len(b):
            raise ValueError(f"Shapes must be equal rank, but are {len(a)} and {len(b)}")
        a = tuple(merge_dim(x, y) for x, y in zip(a, b))
    if a is not None:
        merge_dim(a[-1], 3)
        a = a[:-1] + (3,)
    return [shape_of(a)]


register_op("MatrixInverse", inputs=["input: T"], outputs=["output: T"],
            attrs=["adjoint: bool = false", f"T: {_FLOATS}"],
            shape_fn=_square_shape, kernel=_matrix_inverse)
register_op("MatrixDeterminant", inputs=["input: T"], outputs=["output: T"],
            attrs=["T: {float16, float32, float64, complex64, complex128}"],
            shape_fn=_determinant_shape, kernel=_matrix_determinant)
register_op("LogMatrixDeterminant", inputs=["input: T"],
            outputs=["sign: T", "log_abs_determinant: T"],
            attrs=["T: {float16, float32, float64, complex64, complex128}"],
            shape_fn=_log_determinant_shape, kernel=_log_matrix_determinant)
register_op("Cholesky", inputs=["input: T"], outputs=["output: T"], attrs=[f"T: {_FLOATS}"],
            shape_fn=_square_shape, kernel=_cholesky)
register_op("MatrixSolve", inputs=["matrix: T", "rhs: T"], outputs=["output: T"],
            attrs=["adjoint: bool = false", f"T: {_FLOATS}"],
            shape_fn=_solve_shape, kernel=_matrix_solve)
register_op("MatrixTriangularSolve", inputs=["matrix: T", "rhs: T"], outputs=["output: T"],
            attrs=["lower: bool = true", "adjoint: bool = false",
                   "T: {bfloat16, float64, float32, float16, complex64, complex128}"],
            shape_fn=_solve_shape, kernel=_matrix_triangular_solve)
register_op("Svd", inputs=["input: T"], outputs=["s: T", "u: T", "v: T"],
            attrs=["compute_uv: bool = true", "full_matrices: bool = false",
                   f"T: {_FLOATS}"],
            shape_fn=_svd_shape, kernel=_svd)
register_op("MatrixBandPart", inputs=["input: T", "num_lower: Tindex", "num_upper: Tindex"],
            outputs=["band: T"], attrs=["T: type", "Tindex: {int32, int64} = DT_INT64"],
            shape_fn=_band_part_shape, kernel=_matrix_band_part)
register_op("Cross", inputs=["a: T", "b: T"], outputs=["product: T"], attrs=[f"T: {_REAL}"],
            shape_fn=_cross_shape, kernel=_cross)
