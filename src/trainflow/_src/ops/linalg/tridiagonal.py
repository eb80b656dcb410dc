"""Tridiagonal systems: the `TridiagonalSolve` and `TridiagonalMatMul` ops (kernels,
shapes, TensorFlow's gradients) and `tf.linalg.tridiagonal_solve` /
`tf.linalg.tridiagonal_matmul`, which take the diagonals in the compact
([..., 3, M]: super, main, sub), sequence or full-matrix format.

The solve follows LAPACK's gtsv (row interchanges when the subdiagonal entry is the
larger), the Thomas algorithm without pivoting, or with `perturb_singular` gtsv with
tiny pivots nudged as LAPACK's xLAGTS does; a singular system gives NaN, as in
TensorFlow.
"""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import create
from trainflow._src.ops.array import join
from trainflow._src.ops.array import layout
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, invalid_argument, merge_dim, shape_of)
from trainflow._src.ops.linalg import linalg_impl
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions

__all__ = ["tridiagonal_matmul", "tridiagonal_solve"]

_TYPES = "T: {double, float, complex64, complex128}"


# -- kernels ----------------------------------------------------------------------------------
def _solve_pivoting(sup, main, sub, rhs):
    """gtsv on a batch: sup/main/sub [B, n], rhs [B, n, K]."""
    n = main.shape[1]
    u0, u1, u2 = main.copy(), np.zeros_like(main), np.zeros_like(main)
    u1[:, 0] = sup[:, 0]
    x = rhs.copy()
    bad = np.zeros(main.shape[0], bool)
    for i in range(n - 1):
        keep = np.abs(u0[:, i]) >= np.abs(sub[:, i + 1])
        bad |= keep & (u0[:, i] == 0)
        f_keep = sub[:, i + 1] / np.where(u0[:, i] == 0, 1, u0[:, i])
        f_swap = u0[:, i] / np.where(sub[:, i + 1] == 0, 1, sub[:, i + 1])
        last = i == n - 2
        next_u0 = np.where(keep, main[:, i + 1] - f_keep * u1[:, i],
                           u1[:, i] - f_swap * main[:, i + 1])
        next_x = np.where(keep[:, None], rhs[:, i + 1] - f_keep[:, None] * x[:, i],
                          x[:, i] - f_swap[:, None] * rhs[:, i + 1])
        x[:, i] = np.where(keep[:, None], x[:, i], rhs[:, i + 1])
        if not last:
            u1[:, i + 1] = np.where(keep, sup[:, i + 1], -f_swap * sup[:, i + 1])
            u2[:, i] = np.where(keep, 0, sup[:, i + 1])
        u1[:, i] = np.where(keep, u1[:, i], main[:, i + 1])
        u0[:, i] = np.where(keep, u0[:, i], sub[:, i + 1])
        u0[:, i + 1] = next_u0
        x[:, i + 1] = next_x
    bad |= u0[:, n - 1] == 0
    u0 = np.where(u0 == 0, 1, u0)
    x[:, n - 1] /= u0[:, n - 1, None]
    if n > 1:
        x[:, n - 2] = (x[:, n - 2] - u1[:, n - 2, None] * x[:, n - 1]) / u0[:, n - 2, None]
    for i in range(n - 3, -1, -1):
        x[:, i] = (x[:, i] - u1[:, i, None] * x[:, i + 1]
                   - u2[:, i, None] * x[:, i + 2]) / u0[:, i, None]
    x[bad] = np.nan
    return x


def _solve_thomas(sup, main, sub, rhs):
    n = main.shape[1]
    x = rhs.copy()
    u = np.zeros_like(main)
    bad = main[:, 0] == 0
    d0 = np.where(bad, 1, main[:, 0])
    u[:, 0] = sup[:, 0] / d0
    x[:, 0] = rhs[:, 0] / d0[:, None]
    for i in range(1, n):
        denom = main[:, i] - sub[:, i] * u[:, i - 1]
        bad |= denom == 0
        denom = np.where(denom == 0, 1, denom)
        u[:, i] = sup[:, i] / denom
        x[:, i] = (rhs[:, i] - sub[:, i, None] * x[:, i - 1]) / denom[:, None]
    for i in range(n - 2, -1, -1):
        x[:, i] -= u[:, i, None] * x[:, i + 1]
    x[bad] = np.nan
    return x


def _nudge(perturb, pivot, row):
    """xLAGTS's guard: grow a tiny pivot (or scale it and its row up) so that neither
    1 / pivot nor row / pivot overflows."""
    real = np.finfo(np.result_type(pivot.real)).dtype
    safemin = np.finfo(real).tiny
    bignum = 1.0 / safemin
    if abs(pivot) >= 1:
        return pivot, row
    perturb = np.copysign(max(abs(perturb), safemin), pivot.real)
    biggest = np.abs(row).max() if row.size else 0.0
    while abs(pivot) < 1:
        if abs(pivot) < safemin:
            if abs(pivot) == 0 or biggest * safemin > abs(pivot):
                pivot, perturb = pivot + perturb, perturb * 2
            else:
                return pivot * bignum, row * bignum
        elif biggest > abs(pivot) * bignum:
            pivot, perturb = pivot + perturb, perturb * 2
        else:
            break
    return pivot, row


def _solve_perturbed_one(sup, main, sub, rhs, eps):
    n = main.shape[0]
    if n == 1:
        pivot, row = _nudge(eps * abs(main[0]), main[0], rhs[0])
        return (row * (1 / pivot))[None]
    u = np.zeros((n, 3), dtype=main.dtype)
    x = np.zeros_like(rhs)
    u[0, 0], u[0, 1] = main[0], sup[0]
    max_u = max(abs(u[0, 0]), abs(u[0, 1]))
    scale1 = abs(u[0, 0]) + abs(u[0, 1])
    x[0] = rhs[0]
    for k in range(n - 1):
        u[k + 1, 0] = main[k + 1]
        scale2 = abs(sub[k + 1]) + abs(u[k + 1, 0]) + (abs(sup[k + 1]) if k < n - 2 else 0)
        if sub[k + 1] == 0:
            scale1 = scale2
            u[k + 1, 1], u[k, 2] = sup[k + 1], 0
            x[k + 1] = rhs[k + 1]
        else:
            piv1 = 0.0 if u[k, 0] == 0 else abs(u[k, 0]) / scale1
            if abs(sub[k + 1]) / scale2 <= piv1:
                scale1 = scale2
                factor = sub[k + 1] / u[k, 0]
                u[k + 1, 0] = main[k + 1] - factor * u[k, 1]
                u[k + 1, 1], u[k, 2] = sup[k + 1], 0
                x[k + 1] = rhs[k + 1] - factor * x[k]
            else:
                factor = u[k, 0] / sub[k + 1]
                u[k, 0] = sub[k + 1]
                u[k + 1, 0] = u[k, 1] - factor * main[k + 1]
                u[k, 1] = main[k + 1]
                if k < n - 2:
                    u[k, 2] = sup[k + 1]
                    u[k + 1, 1] = -factor * sup[k + 1]
                x[k + 1] = x[k] - factor * rhs[k + 1]
                x[k] = rhs[k + 1]
        if k < n - 2:
            max_u = max(max_u, *np.abs(u[k]))
    max_u = max(max_u, abs(u[n - 1, 0]))
    tol = eps * max_u
    pivot, row = _nudge(tol, u[n - 1, 0], x[n - 1].copy())
    x[n - 1] = row * (1 / pivot)
    for k in range(n - 2, -1, -1):
        row = x[k] - u[k, 1] * x[k + 1]
        if k < n - 2:
            row = row - u[k, 2] * x[k + 2]
        pivot, row = _nudge(np.copysign(tol, u[k, 0].real), u[k, 0], row)
        x[k] = row * (1 / pivot)
    return x


def _tridiagonal_solve(diagonals, rhs, *, partial_pivoting, perturb_singular):
    if perturb_singular and not partial_pivoting:
        raise invalid_argument("Setting perturb_singular requires also setting "
                               "partial_pivoting.")
    if diagonals.ndim < 2 or diagonals.shape[-2] != 3:
        rows = diagonals.shape[-2] if diagonals.ndim >= 2 else 0
        raise invalid_argument(f"Expected diagonals to be provided as a matrix with 3 "
                               f"rows, got {rows} rows.")
    if rhs.ndim < 2 or diagonals.shape[-1] != rhs.shape[-2]:
        got = rhs.shape[-2] if rhs.ndim >= 2 else 0
        raise invalid_argument(f"Expected the same number of left-hand sides and "
                               f"right-hand sides, got {diagonals.shape[-1]} and {got}.")
    dt = rhs.dtype
    wide = np.complex128 if dt.kind == "c" else np.float64
    n, k = rhs.shape[-2:]
    batch = rhs.shape[:-2]
    if rhs.size == 0 or diagonals.size == 0:
        return np.zeros(rhs.shape, dt)
    diags = np.broadcast_to(diagonals, batch + (3, n)).astype(wide).reshape(-1, 3, n)
    b = rhs.astype(wide).reshape(-1, n, k)
    sup, main, sub = diags[:, 0], diags[:, 1], diags[:, 2]
    with np.errstate(all="ignore"):
        if perturb_singular:
            eps = float(np.finfo(np.dtype(dt).type(0).real.dtype).eps)
            x = np.stack([_solve_perturbed_one(sup[i], main[i], sub[i], b[i], eps)
                          for i in range(b.shape[0])])
        elif n == 1:
            x = np.where(main[:, :, None] == 0, np.nan, b / main[:, :, None])
        elif partial_pivoting:
            x = _solve_pivoting(sup, main, sub, b)
        else:
            x = _solve_thomas(sup, main, sub, b)
    return x.reshape(rhs.shape).astype(dt)


def _tridiagonal_solve_shape(op):
    d, r = dims_of(op.inputs[0]), dims_of(op.inputs[1])
    if d is not None:
        if len(d) < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {len(d)}")
        merge_dim(d[-2], 3)
    if r is None:
        return [UNKNOWN]
    if d is not None:
        merge_dim(d[-1], r[-2])
    return [shape_of(r)]


def _tridiagonal_matmul(superdiag, maindiag, subdiag, rhs):
    sup = np.swapaxes(superdiag, -1, -2)
    main = np.swapaxes(maindiag, -1, -2)
    sub = np.swapaxes(subdiag, -1, -2)
    out = main * rhs
    out[..., :-1, :] += sup[..., :-1, :] * rhs[..., 1:, :]
    out[..., 1:, :] += sub[..., 1:, :] * rhs[..., :-1, :]
    return out.astype(rhs.dtype, copy=False)


def _tridiagonal_matmul_shape(op):
    r = dims_of(op.inputs[3])
    return [shape_of(r)]


register_op("TridiagonalSolve", inputs=["diagonals: T", "rhs: T"], outputs=["output: T"],
            attrs=["partial_pivoting: bool = true", "perturb_singular: bool = false",
                   _TYPES],
            shape_fn=_tridiagonal_solve_shape, kernel=_tridiagonal_solve)
register_op("TridiagonalMatMul",
            inputs=["superdiag: T", "maindiag: T", "subdiag: T", "rhs: T"],
            outputs=["output: T"], attrs=[_TYPES],
            shape_fn=_tridiagonal_matmul_shape, kernel=_tridiagonal_matmul)


def _solve_op(diagonals, rhs, partial_pivoting, perturb_singular, name):
    return apply_op("TridiagonalSolve", diagonals=diagonals, rhs=rhs,
                    partial_pivoting=partial_pivoting, perturb_singular=perturb_singular,
                    name=name).outputs[0]


# -- graph functions ----------------------------------------------------------------------
def _solve_compact(diagonals, rhs, transpose_rhs, conjugate_rhs, partial_pivoting,
                   perturb_singular, name):
    diags_rank, rhs_rank = diagonals.shape.rank, rhs.shape.rank
    if diags_rank:
        if diags_rank < 2:
            raise ValueError(f"Expected diagonals to have rank at least 2, got {diags_rank}")
        if rhs_rank and rhs_rank != diags_rank and rhs_rank != diags_rank - 1:
            raise ValueError(f"Expected the rank of rhs to be {diags_rank - 1} or "
                             f"{diags_rank}, got {rhs_rank}")
        if rhs_rank and not diagonals.shape[:-2].is_compatible_with(
                rhs.shape[:diags_rank - 2]):
            raise ValueError(f"Batch shapes {diagonals.shape[:-2]} and "
                             f"{rhs.shape[:diags_rank - 2]} are incompatible")
    d_dims = dims_of(diagonals)
    if d_dims is not None and d_dims[-2] and d_dims[-2] != 3:
        raise ValueError(f"Expected 3 diagonals got {d_dims[-2]}")

    def check_counts(rhs):
        r_dims = dims_of(rhs)
        if (d_dims is not None and r_dims is not None and d_dims[-1] and r_dims[-2]
                and d_dims[-1] != r_dims[-2]):
            raise ValueError(f"Expected number of left-hand sided and right-hand sides to "
                             f"be equal, got {d_dims[-1]} and {r_dims[-2]}")

    if rhs_rank and diags_rank and rhs_rank == diags_rank - 1:
        if conjugate_rhs:
            rhs = arith.conj(rhs)
        rhs = shape_lib.expand_dims(rhs, -1)
        check_counts(rhs)
        return shape_lib.squeeze(
            _solve_op(diagonals, rhs, partial_pivoting, perturb_singular, name), -1)
    if transpose_rhs:
        rhs = linalg_impl.matrix_transpose(rhs, conjugate=conjugate_rhs)
    elif conjugate_rhs:
        rhs = arith.conj(rhs)
    check_counts(rhs)
    return _solve_op(diagonals, rhs, partial_pivoting, perturb_singular, name)


def _pad_to(t, m, name, padding):
    n = dims_of(t)[-1] if dims_of(t) else None
    if not n or n == m:
        return t
    if n == m - 1:
        return layout.pad(t, [[0, 0]] * (t.shape.rank - 1) + [padding])
    raise ValueError(f"Expected {name} to be have length {m} or {m - 1}, got {n}.")


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False):
    """Solves tridiagonal systems A x = rhs (`TridiagonalSolve`).

    Raises:
      ValueError: for inconsistent shapes or an unknown `diagonals_format`.
    """
    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    if diagonals_format == "compact":
        diagonals = convert_to_tensor(diagonals, name="diagonals")
        rhs = convert_to_tensor(rhs, name="rhs")
        return _solve_compact(diagonals, rhs, transpose_rhs, conjugate_rhs,
                              partial_pivoting, perturb_singular, name)
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        superdiag, maindiag, subdiag = (convert_to_tensor(d) for d in diagonals)
        if (not subdiag.shape[:-1].is_compatible_with(maindiag.shape[:-1]) or
                not superdiag.shape[:-1].is_compatible_with(maindiag.shape[:-1])):
            raise ValueError(f"Tensors representing the three diagonals must have the same "
                             f"shape,except for the last dimension, got {subdiag.shape}, "
                             f"{maindiag.shape}, {superdiag.shape}")
        m = dims_of(maindiag)[-1] if dims_of(maindiag) else None
        subdiag = _pad_to(subdiag, m, "subdiagonal", [1, 0])
        superdiag = _pad_to(superdiag, m, "superdiagonal", [0, 1])
        diagonals = join.stack((superdiag, maindiag, subdiag), axis=-2)
        return _solve_compact(diagonals, convert_to_tensor(rhs, name="rhs"), transpose_rhs,
                              conjugate_rhs, partial_pivoting, perturb_singular, name)
    if diagonals_format == "matrix":
        diagonals = convert_to_tensor(diagonals, name="diagonals")
        dims = dims_of(diagonals)
        m1, m2 = (dims[-1], dims[-2]) if dims else (None, None)
        if m1 and m2 and m1 != m2:
            raise ValueError(f"Expected last two dimensions of diagonals to be same, got "
                             f"{m1} and {m2}")
        diagonals = linalg_impl.diag_part(diagonals, k=(-1, 1), padding_value=0.,
                                          align="LEFT_RIGHT")
        return _solve_compact(diagonals, convert_to_tensor(rhs, name="rhs"), transpose_rhs,
                              conjugate_rhs, partial_pivoting, perturb_singular, name)
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """The product of tridiagonal matrices with rhs (`TridiagonalMatMul`).

    Raises:
      ValueError: for an unknown `diagonals_format` or non-square matrices.
    """
    if diagonals_format == "compact":
        diagonals = convert_to_tensor(diagonals, name="diagonals")
        superdiag = diagonals[..., 0, :]
        maindiag = diagonals[..., 1, :]
        subdiag = diagonals[..., 2, :]
    elif diagonals_format == "sequence":
        superdiag, maindiag, subdiag = diagonals
    elif diagonals_format == "matrix":
        diagonals = convert_to_tensor(diagonals, name="diagonals")
        dims = dims_of(diagonals)
        m1, m2 = (dims[-1], dims[-2]) if dims else (None, None)
        if m1 and m2 and m1 != m2:
            raise ValueError(f"Expected last two dimensions of diagonals to be same, got "
                             f"{m1} and {m2}")
        diags = linalg_impl.diag_part(diagonals, k=(-1, 1), padding_value=0.,
                                      align="LEFT_RIGHT")
        superdiag = diags[..., 0, :]
        maindiag = diags[..., 1, :]
        subdiag = diags[..., 2, :]
    else:
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
    superdiag = shape_lib.expand_dims(superdiag, -2)
    maindiag = shape_lib.expand_dims(maindiag, -2)
    subdiag = shape_lib.expand_dims(subdiag, -2)
    return apply_op("TridiagonalMatMul", superdiag=superdiag, maindiag=maindiag,
                    subdiag=subdiag, rhs=rhs, name=name).outputs[0]


# -- gradients (TensorFlow's) -------------------------------------------------------------
def _shift_pad(x, pad):
    rank = shape_lib.rank(x)
    zeros = create.zeros(join.stack([rank - 2, 2]), dtype=dtypes.int32)
    return layout.pad(x, join.concat([zeros, convert_to_tensor(pad, dtype=dtypes.int32)], 0))


def _left_shift(x):
    """Moves the next-to-last dimension up one, a zero row last."""
    return _shift_pad(x[..., 1:, :], [[0, 1], [0, 0]])


def _right_shift(x):
    """Moves the next-to-last dimension down one, a zero row first."""
    return _shift_pad(x[..., :-1, :], [[1, 0], [0, 0]])


@RegisterGradient("TridiagonalMatMul")
def _tridiagonal_matmul_grad(op, grad):
    sup_c = linalg_impl.matrix_transpose(op.inputs[0], conjugate=True)
    main_c = linalg_impl.matrix_transpose(op.inputs[1], conjugate=True)
    sub_c = linalg_impl.matrix_transpose(op.inputs[2], conjugate=True)
    rhs_c = arith.conj(op.inputs[3])
    sup_grad = reductions.reduce_sum(_left_shift(rhs_c) * grad, axis=-1)
    main_grad = reductions.reduce_sum(rhs_c * grad, axis=-1)
    sub_grad = reductions.reduce_sum(_right_shift(rhs_c) * grad, axis=-1)
    rhs_grad = (_right_shift(sup_c * grad) + main_c * grad + _left_shift(sub_c * grad))
    return (shape_lib.expand_dims(sup_grad, -2), shape_lib.expand_dims(main_grad, -2),
            shape_lib.expand_dims(sub_grad, -2), rhs_grad)


def _transpose_tridiagonal(diags):
    """The compact diagonals of the transposed matrices."""
    main = diags[..., 1, :]
    if diags.shape.is_fully_defined():
        zeros = create.zeros(diags.shape.as_list()[:-2] + [1], dtype=diags.dtype)
        sup = join.concat((diags[..., 2, 1:], zeros), axis=-1)
        sub = join.concat((zeros, diags[..., 0, :-1]), axis=-1)
    else:
        rank = shape_lib.rank(diags)
        zeros = create.zeros(join.stack([rank - 2, 2]), dtype=dtypes.int32)
        sup = layout.pad(diags[..., 2, 1:], join.concat(
            (zeros, convert_to_tensor([[0, 1]], dtype=dtypes.int32)), axis=0))
        sub = layout.pad(diags[..., 0, :-1], join.concat(
            (zeros, convert_to_tensor([[1, 0]], dtype=dtypes.int32)), axis=0))
    return join.stack([sup, main, sub], axis=-2)


def _matmul_three_diagonals(x, y_tr):
    """The three diagonals of x @ y_tr^T in compact form, without the full product."""
    main = reductions.reduce_sum(x * y_tr, axis=-1)
    if y_tr.shape.is_fully_defined():
        dims = x.shape.as_list()
        zeros = create.zeros(dims[:-2] + [1, dims[-1]], dtype=x.dtype)
        sup = reductions.reduce_sum(x * join.concat((y_tr[..., 1:, :], zeros), axis=-2),
                                    axis=-1)
        sub = reductions.reduce_sum(x * join.concat((zeros, y_tr[..., :-1, :]), axis=-2),
                                    axis=-1)
    else:
        sup = reductions.reduce_sum(x * _left_shift(y_tr), axis=-1)
        sub = reductions.reduce_sum(x * _right_shift(y_tr), axis=-1)
    return join.stack([sup, main, sub], axis=-2)


@RegisterGradient("TridiagonalSolve")
def _tridiagonal_solve_grad(op, grad):
    diags, x = op.inputs[0], op.outputs[0]
    grad_rhs = _solve_op(_transpose_tridiagonal(diags), grad,
                         op.get_attr("partial_pivoting"), op.get_attr("perturb_singular"),
                         None)
    return -_matmul_three_diagonals(grad_rhs, x), grad_rhs
