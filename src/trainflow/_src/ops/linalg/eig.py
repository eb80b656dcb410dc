"""Eigen-decomposition of self-adjoint matrices: the SelfAdjointEigV2 op (only the
lower triangle is read), `tf.self_adjoint_eig` / `tf.linalg.eigh` and the values-only
forms, with the gradient (for A = V diag(e) V^H: dA = V (diag(de) + F o (V^H dV)) V^H
with F_ij = 1 / (e_j - e_i), folded onto the lower triangle that the op reads).
"""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, invalid_argument, merge_dim, shape_of, with_rank_at_least)
from trainflow._src.ops.array import cast
from trainflow._src.ops.array.create import zeros_like
from trainflow._src.ops.array.shape import expand_dims
from trainflow._src.ops.linalg import linalg_impl as la
from trainflow._src.ops.math import arith

__all__ = ["self_adjoint_eig", "self_adjoint_eigvals"]


def _eig(input, *, compute_v):  # noqa: A002 - TF's name
    x = np.asarray(input)
    dt = x.dtype
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise invalid_argument(f"Input must be a batch of square matrices, got shape "
                               f"{list(x.shape)}")
    wide = x.astype(np.float32) if dt.itemsize <= 2 and dt.kind == "f" else x
    if x.size == 0:
        e = np.zeros(x.shape[:-1], dt)
        v = np.zeros(x.shape if compute_v else (0,), dt)
        return e, v
    if compute_v:
        e, v = np.linalg.eigh(wide, UPLO="L")
        return e.astype(dt), v.astype(dt)
    e = np.linalg.eigvalsh(wide, UPLO="L")
    return e.astype(dt), np.zeros((0,), dt)


def _eig_shape(op):
    dims = with_rank_at_least(dims_of(op.inputs[0]), 2)
    if dims is None:
        return [UNKNOWN, UNKNOWN]
    n = merge_dim(dims[-2], dims[-1])
    e = shape_of(dims[:-2] + (n,))
    if op._attrs.get("compute_v", True):
        return [e, shape_of(dims[:-2] + (n, n))]
    return [e, shape_of((0,))]


register_op("SelfAdjointEigV2", inputs=["input: T"], outputs=["e: T", "v: T"],
            attrs=["compute_v: bool = true",
                   "T: {float64, float32, float16, complex64, complex128}"],
            shape_fn=_eig_shape, kernel=_eig)


def self_adjoint_eig(tensor, name=None):
    """(e, v): eigenvalues (ascending) and eigenvectors (columns) of self-adjoint
    matrices, reading only their lower triangles (`SelfAdjointEigV2`)."""
    op = apply_op("SelfAdjointEigV2", input=tensor, compute_v=True, name=name)
    return op.outputs[0], op.outputs[1]


def self_adjoint_eigvals(tensor, name=None):
    """The eigenvalues (ascending) of self-adjoint matrices (`SelfAdjointEigV2`)."""
    return apply_op("SelfAdjointEigV2", input=tensor, compute_v=False,
                    name=name).outputs[0]


@RegisterGradient("SelfAdjointEigV2")
def _self_adjoint_eig_grad(op, grad_e, grad_v):
    e = op.outputs[0]
    if op.get_attr("compute_v"):
        v = op.outputs[1]
        gaps = expand_dims(e, -2) - expand_dims(e, -1)  # e_j - e_i
        safe = arith.div_no_nan(cast.cast(1.0, e.dtype), gaps)
        f = la.set_diag(safe, zeros_like(e))
        inner = la.diag(grad_e) + f * arith.matmul(v, grad_v, adjoint_a=True)
    else:
        _, v = self_adjoint_eig(op.inputs[0])
        inner = la.diag(grad_e)
    grad = arith.matmul(v, arith.matmul(inner, v, adjoint_b=True))
    # The op reads only the lower triangle: fold the symmetric gradient onto it.
    grad = la.band_part(grad + la.adjoint(grad), -1, 0)
    return la.set_diag(grad, 0.5 * la.diag_part(grad))
