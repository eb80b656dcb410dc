"""Gradients of the linear algebra ops: MatrixInverse, MatrixDeterminant,
LogMatrixDeterminant, Cholesky, MatrixSolve, MatrixTriangularSolve, Qr, Svd,
MatrixBandPart and Cross.

The formulas are the standard matrix-calculus results (for Y = A^-1,
dA = -Y^H dY Y^H; for the determinant, dA = g det(A) A^-H; Cholesky and QR via
triangular solves; SVD through the F-matrix of squared singular-value gaps).
Imported by `linalg_api`.
"""
from trainflow._src.framework.registry import RegisterGradient
from trainflow._src.ops.array import create
from trainflow._src.ops.array import join
from trainflow._src.ops.array import shape
from trainflow._src.ops.array import cast
from trainflow._src.ops.math import arith
from trainflow._src.ops.linalg import linalg_impl as la


def _adj(x):
    return la.adjoint(x)


@RegisterGradient("MatrixInverse")
def _matrix_inverse_grad(op, grad):
    y = op.outputs[0]
    if op.get_attr("adjoint"):
        # Y = A^-H: dA = -Y dY^H Y.
        return -arith.matmul(y, arith.matmul(grad, y, adjoint_a=True))
    return -arith.matmul(y, arith.matmul(grad, y, adjoint_b=True), adjoint_a=True)


def _scaled_inverse_adjoint(a, scale):
    inv_h = la.matrix_inverse(a, adjoint=True)
    return shape.expand_dims(shape.expand_dims(scale, -1), -1) * inv_h


@RegisterGradient("MatrixDeterminant")
def _matrix_determinant_grad(op, grad):
    return _scaled_inverse_adjoint(op.inputs[0], grad * op.outputs[0])


@RegisterGradient("LogMatrixDeterminant")
def _log_matrix_determinant_grad(op, _, grad_log_abs):
    # The sign is piecewise constant: only log|det| carries a gradient.
    return _scaled_inverse_adjoint(op.inputs[0], grad_log_abs)


@RegisterGradient("Cholesky")
def _cholesky_grad(op, grad):
    # With P = Phi(L^H dL) (lower triangle, halved diagonal):
    # dA = 0.5 * (L^-H P L^-1 + its adjoint).
    chol = op.outputs[0]
    n = shape.shape(chol)[-1]
    eye = la.eye(n, batch_shape=shape.shape(chol)[:-2], dtype=chol.dtype)
    chol_inv = la.matrix_triangular_solve(chol, eye)
    middle = arith.matmul(chol, grad, adjoint_a=True)
    middle = la.set_diag(middle, 0.5 * la.diag_part(middle))
    middle = la.band_part(middle, -1, 0)
    g = arith.matmul(arith.matmul(chol_inv, middle, adjoint_a=True), chol_inv)
    return 0.5 * (g + _adj(g))


@RegisterGradient("MatrixSolve")
def _matrix_solve_grad(op, grad):
    a = op.inputs[0]
    adjoint = op.get_attr("adjoint")
    x = op.outputs[0]
    grad_b = la.matrix_solve(a, grad, adjoint=not adjoint)
    if adjoint:
        return -arith.matmul(x, grad_b, adjoint_b=True), grad_b
    return -arith.matmul(grad_b, x, adjoint_b=True), grad_b


@RegisterGradient("MatrixTriangularSolve")
def _matrix_triangular_solve_grad(op, grad):
    a = op.inputs[0]
    lower = op.get_attr("lower")
    adjoint = op.get_attr("adjoint")
    x = op.outputs[0]
    grad_b = la.matrix_triangular_solve(a, grad, lower=lower, adjoint=not adjoint)
    if adjoint:
        grad_a = -arith.matmul(x, grad_b, adjoint_b=True)
    else:
        grad_a = -arith.matmul(grad_b, x, adjoint_b=True)
    grad_a = la.band_part(grad_a, -1, 0) if lower else la.band_part(grad_a, 0, -1)
    return grad_a, grad_b


def _times_inverse_adjoint_of_upper(x, r):
    """x @ r^-H for upper-triangular r, by one triangular solve."""
    return _adj(la.matrix_triangular_solve(r, _adj(x), lower=False))


def _qr_grad_tall(q, r, dq, dr):
    """The QR gradient for m >= n with reduced q (n columns) and square r."""
    qdq = arith.matmul(q, dq, adjoint_a=True)
    rdr = arith.matmul(r, dr, adjoint_b=True)
    skew = la.band_part((qdq - _adj(qdq)) + (rdr - _adj(rdr)), -1, 0)
    grad = arith.matmul(q, dr + _times_inverse_adjoint_of_upper(skew, r))
    grad += _times_inverse_adjoint_of_upper(dq - arith.matmul(q, qdq), r)
    if q.dtype.is_complex:
        m = rdr - _adj(qdq)
        diag = la.diag_part(m)
        imag_diag = la.set_diag(create.zeros_like(m),
                                diag - cast.cast(arith.real(diag), q.dtype))
        grad += _times_inverse_adjoint_of_upper(arith.matmul(q, _adj(imag_diag)), r)
    return grad


@RegisterGradient("Qr")
def _qr_grad(op, dq, dr):
    q, r = op.outputs
    qd = q.shape.as_list() if q.shape.rank is not None else None
    rd = r.shape.as_list() if r.shape.rank is not None else None
    if qd is None or rd is None or None in (qd[-2], qd[-1], rd[-2], rd[-1]):
        raise NotImplementedError(
            f"The gradient of Qr ({op.name}) needs static matrix dimensions; got q "
            f"{q.shape} and r {r.shape}")
    m, n = qd[-2], rd[-1]
    if rd[-2] > n and qd[-1] == m:
        raise NotImplementedError(
            f"The gradient of Qr ({op.name}) is not defined for full_matrices=True with "
            f"more rows ({m}) than columns ({n})")
    if m >= n:
        return _qr_grad_tall(q, r, dq, dr)
    # Wide input a = [x, y], r = [u, v]: reduce to the square block x = q u.
    a = op.inputs[0]
    y = a[..., :, m:]
    u = r[..., :, :m]
    dv = dr[..., :, m:]
    du = dr[..., :, :m]
    dy = arith.matmul(q, dv)
    dx = _qr_grad_tall(q, u, dq + arith.matmul(y, dv, adjoint_b=True), du)
    return join.concat([dx, dy], axis=-1)


@RegisterGradient("Svd")
def _svd_grad(op, grad_s, grad_u, grad_v):
    a = op.inputs[0]
    s = op.outputs[0]
    if a.dtype.is_complex:
        raise NotImplementedError(f"The gradient of Svd ({op.name}) is defined for real "
                                  f"inputs; got {a.dtype.name}")
    if not op.get_attr("compute_uv"):
        # Only s was asked for: dA = U diag(ds) V^H, with U, V recomputed.
        _, u, v = la.svd(a, full_matrices=False, compute_uv=True)
        return arith.matmul(u * shape.expand_dims(grad_s, -2), v, adjoint_b=True)
    dims = a.shape.as_list() if a.shape.rank is not None else None
    if dims is None or dims[-2] is None or dims[-1] is None:
        raise NotImplementedError(f"The gradient of Svd ({op.name}) needs static matrix "
                                  f"dimensions; got {a.shape}")
    m, n = dims[-2:]
    u, v = op.outputs[1], op.outputs[2]
    if op.get_attr("full_matrices") and m != n:
        if abs(m - n) > 1:
            raise NotImplementedError(
                f"The gradient of Svd ({op.name}) with full_matrices=True needs "
                f"|rows - columns| <= 1; got {m}x{n}")
        k = min(m, n)
        u, grad_u = u[..., :, :k], grad_u[..., :, :k]
        v, grad_v = v[..., :, :k], grad_v[..., :, :k]
    if m < n:
        # Work on a^T = v s u^T, whose inner dimension is the larger one.
        return la.matrix_transpose(_svd_grad_tall(s, v, u, grad_s, grad_v, grad_u))
    return _svd_grad_tall(s, u, v, grad_s, grad_u, grad_v)


def _svd_grad_tall(s, u, v, ds, du, dv):
    """dA for A = u diag(s) v^T with rows >= columns (u: m x k, v: n x k, k = n)."""
    s_mat = la.diag(s)
    s2 = arith.square(s)
    gap = shape.expand_dims(s2, -2) - shape.expand_dims(s2, -1)  # s_j^2 - s_i^2
    eye = la.eye(shape.shape(s)[-1], dtype=s.dtype)
    safe = gap + eye
    f = (1.0 - eye) / safe
    utdu = arith.matmul(u, du, adjoint_a=True)
    vtdv = arith.matmul(v, dv, adjoint_a=True)
    j = f * (utdu - _adj(utdu))
    k = f * (vtdv - _adj(vtdv))
    inner = arith.matmul(j, s_mat) + la.diag(ds) + arith.matmul(s_mat, k)
    grad = arith.matmul(arith.matmul(u, inner), v, adjoint_b=True)
    s_inv = la.diag(arith.reciprocal(s))
    # The part of du outside u's column space (zero when u is square).
    du_out = du - arith.matmul(u, utdu)
    grad += arith.matmul(arith.matmul(du_out, s_inv), v, adjoint_b=True)
    dv_out = dv - arith.matmul(v, vtdv)
    grad += arith.matmul(arith.matmul(u, s_inv), dv_out, adjoint_b=True)
    return grad


@RegisterGradient("MatrixBandPart")
def _matrix_band_part_grad(op, grad):
    return la.band_part(grad, op.inputs[1], op.inputs[2]), None, None


@RegisterGradient("Cross")
def _cross_grad(op, grad):
    a, b = op.inputs
    return la.cross(b, grad), la.cross(grad, a)
