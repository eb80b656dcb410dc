"""Linear least squares: the MatrixSolveLs op (`tf.matrix_solve_ls`, `tf.linalg.lstsq`),
min ||A X - B||^2 + l2 ||X||^2, with its gradient.

With `fast` (the default) the solution comes from the regularized normal equations:
X = (A^H A + l2 I)^-1 A^H B when A has at least as many rows as columns, else
X = A^H (A A^H + l2 I)^-1 B. Otherwise NumPy's SVD-based least squares is used
(on A stacked over sqrt(l2) I when regularized). The gradient differentiates the
normal-equation form (TensorFlow defines none for fast=False).
"""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, invalid_argument, merge_dim, shape_of, with_rank_at_least)
from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import cast
from trainflow._src.ops.linalg import linalg_impl as la
from trainflow._src.ops.math import arith

__all__ = ["matrix_solve_ls"]


def _adjoint(m):
    m = np.swapaxes(m, -1, -2)
    return np.conjugate(m) if m.dtype.kind == "c" else m


def _solve_ls(matrix, rhs, l2_regularizer, *, fast):
    a = np.asarray(matrix)
    b = np.asarray(rhs)
    dt = a.dtype
    if a.ndim < 2 or b.ndim < 2:
        raise invalid_argument("matrix and rhs must have rank >= 2")
    if a.shape[-2] != b.shape[-2]:
        raise invalid_argument(f"Input matrix and right-hand side must have the same number "
                               f"of rows: {a.shape[-2]} vs. {b.shape[-2]}")
    wide_dt = np.float32 if dt.itemsize <= 2 and dt.kind == "f" else dt
    a, b = a.astype(wide_dt), b.astype(wide_dt)
    lam = float(l2_regularizer)
    m, n = a.shape[-2:]
    if a.size == 0 or b.size == 0:
        return np.zeros(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (n, b.shape[-1]), dt)
    if fast:
        try:
            if m >= n:
                gram = _adjoint(a) @ a + lam * np.eye(n, dtype=wide_dt)
                return np.linalg.solve(gram, _adjoint(a) @ b).astype(dt)
            gram = a @ _adjoint(a) + lam * np.eye(m, dtype=wide_dt)
            return (_adjoint(a) @ np.linalg.solve(gram, b)).astype(dt)
        except np.linalg.LinAlgError:
            raise invalid_argument("Input matrix is not invertible (its Gramian is singular); "
                                   "try a positive l2_regularizer.") from None
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:]).reshape((-1, m, n))
    b = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1, m, b.shape[-1]))
    out = []
    for ai, bi in zip(a, b):
        if lam:
            ai = np.concatenate([ai, np.sqrt(lam) * np.eye(n, dtype=ai.dtype)])
            bi = np.concatenate([bi, np.zeros((n, bi.shape[1]), bi.dtype)])
        out.append(np.linalg.lstsq(ai, bi, rcond=None)[0])
    return np.stack(out).reshape(batch + (n, b.shape[-1])).astype(dt)


def _solve_ls_shape(op):
    a = with_rank_at_least(dims_of(op.inputs[0]), 2)
    b = with_rank_at_least(dims_of(op.inputs[1]), 2)
    lam = dims_of(op.inputs[2])
    if lam is not None and len(lam):
        raise ValueError(f"Shape must be rank 0 but is rank {len(lam)}")
    if a is None or b is None:
        return [UNKNOWN]
    merge_dim(a[-2], b[-2])
    batch = a[:-2] if len(a) >= len(b) else b[:-2]
    return [shape_of(batch + (a[-1], b[-1]))]


register_op("MatrixSolveLs", inputs=["matrix: T", "rhs: T", "l2_regularizer: double"],
            outputs=["output: T"],
            attrs=["T: {float64, float32, float16, complex64, complex128}",
                   "fast: bool = true"],
            shape_fn=_solve_ls_shape, kernel=_solve_ls)


def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The X minimizing ||matrix @ X - rhs||^2 + l2_regularizer ||X||^2 (`MatrixSolveLs`).

    Args:
      matrix: [..., M, N] matrices.
      rhs: [..., M, K] right-hand sides.
      l2_regularizer: a scalar >= 0.
      fast: solve the normal equations (fast, differentiable); False uses an SVD.
      name: the op name.
    """
    return apply_op("MatrixSolveLs", matrix=matrix, rhs=rhs,
                    l2_regularizer=convert_to_tensor(l2_regularizer, dtype=dtypes.float64),
                    fast=fast, name=name).outputs[0]


@RegisterGradient("MatrixSolveLs")
def _matrix_solve_ls_grad(op, grad):
    if not op.get_attr("fast"):
        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: "
                          "MatrixSolveLs) with fast=False")
    a, b = op.inputs[:2]
    dims = a.shape.as_list() if a.shape.rank is not None else None
    if dims is None or dims[-2] is None or dims[-1] is None:
        raise ValueError(f"The gradient of MatrixSolveLs ({op.name}) needs the matrix "
                         f"dimensions statically; got {a.shape}")
    m, n = dims[-2:]
    lam = cast.cast(op.inputs[2], a.dtype.base_dtype)
    if m >= n:
        # X = G^-1 A^H B, G = A^H A + lam I: with z = G^-1 dX,
        # dA = -A (X z^H + z X^H) + B z^H, dB = A z.
        x = op.outputs[0]
        gram = arith.matmul(a, a, adjoint_a=True) + lam * la.eye(n, dtype=a.dtype)
        z = la.matrix_solve(gram, grad)
        xz = arith.matmul(x, z, adjoint_b=True)
        grad_a = -arith.matmul(a, xz + la.adjoint(xz)) + arith.matmul(b, z,
                                                                              adjoint_b=True)
        return grad_a, arith.matmul(a, z), None
    # X = A^H T, T = H^-1 B, H = A A^H + lam I: with dB = H^-1 A dX,
    # dA = -dB T^H A + T (dX - A^H dB)^H.
    gram = arith.matmul(a, a, adjoint_b=True) + lam * la.eye(m, dtype=a.dtype)
    grad_b = la.matrix_solve(gram, arith.matmul(a, grad))
    t = la.matrix_solve(gram, b)
    grad_a = -arith.matmul(grad_b, arith.matmul(t, a, adjoint_a=True))
    grad_a += arith.matmul(t, grad - arith.matmul(a, grad_b, adjoint_a=True),
                              adjoint_b=True)
    return grad_a, grad_b, None
