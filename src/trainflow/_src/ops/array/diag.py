"""Diagonals: Diag, DiagPart, MatrixDiag, MatrixDiagPart, MatrixSetDiag."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, fmt_dims, invalid_argument, merge_dim, shape_of, with_rank,
    with_rank_at_least)
from trainflow._src.ops.array.create import zeros, zeros_like
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import rank, shape
from trainflow._src.ops.array.slicing import slice as slice_
from trainflow._src.ops.math.reductions import reduce_min

__all__ = ["diag", "diag_part", "matrix_diag", "matrix_diag_part", "matrix_set_diag"]


# -- diagonals ------------------------------------------------------------------------------
_DIAG_TYPES = "{bfloat16, half, float, double, int32, int64, complex64, complex128}"


def _diag_shape(op):
    src = with_rank_at_least(dims_of(op.inputs[0]), 1)
    return [shape_of(None if src is None else src + src)]


def _diag_kernel(diagonal):
    if diagonal.ndim < 1:
        raise invalid_argument(f"Input must be at least rank 1, got {diagonal.ndim}")
    n = diagonal.size
    out = np.zeros((n, n), dtype=diagonal.dtype)
    out[np.arange(n), np.arange(n)] = diagonal.reshape(-1)
    return out.reshape(diagonal.shape + diagonal.shape)


def _diag_part_shape(op):
    src = dims_of(op.inputs[0])
    if src is None:
        return [UNKNOWN]
    if len(src) % 2 or not src:
        raise ValueError(f"Input must have even and non-zero rank, input rank is {len(src)}")
    k = len(src) // 2
    return [shape_of(tuple(merge_dim(src[i], src[i + k]) for i in range(k)))]


def _diag_part_kernel(x):
    r = x.ndim
    if r % 2 or r == 0:
        raise invalid_argument(f"The rank of the tensor should be even and positive, got shape "
                               f"{fmt_dims(x.shape)}")
    k = r // 2
    for i in range(k):
        if x.shape[i] != x.shape[i + k]:
            raise invalid_argument(f"Invalid shape {fmt_dims(x.shape)}: dimensions {i} and "
                                   f"{i + k} do not match.")
    n = int(np.prod(x.shape[:k], dtype=np.int64))
    return x.reshape(n, n).diagonal().reshape(x.shape[:k]).copy()


register_op("Diag", inputs=["diagonal: T"], outputs=["output: T"], attrs=[f"T: {_DIAG_TYPES}"],
            shape_fn=_diag_shape, kernel=_diag_kernel)
register_op("DiagPart", inputs=["input: T"], outputs=["diagonal: T"],
            attrs=[f"T: {_DIAG_TYPES}"], shape_fn=_diag_part_shape, kernel=_diag_part_kernel)


@RegisterGradient("Diag")
def _diag_grad(op, grad):
    return diag_part(grad)


@RegisterGradient("DiagPart")
def _diag_part_grad(op, grad):
    return diag(grad)


def _matrix_diag_shape(op):
    src = with_rank_at_least(dims_of(op.inputs[0]), 1)
    return [shape_of(None if src is None else src + src[-1:])]


def _matrix_diag_kernel(diagonal):
    if diagonal.ndim < 1:
        raise invalid_argument(f"diagonal must be at least 1-dim, but is "
                               f"{fmt_dims(diagonal.shape)}")
    n = diagonal.shape[-1]
    out = np.zeros(diagonal.shape + (n,), dtype=diagonal.dtype)
    idx = np.arange(n)
    out[..., idx, idx] = diagonal
    return out


def _matrix_diag_part_shape(op):
    src = with_rank_at_least(dims_of(op.inputs[0]), 2)
    if src is None:
        return [UNKNOWN]
    m, n = src[-2:]
    small = None if m is None or n is None else min(m, n)
    return [shape_of(src[:-2] + (small,))]


def _matrix_diag_part_kernel(x):
    if x.ndim < 2:
        raise invalid_argument(f"input must be at least 2-dim, received shape: "
                               f"{fmt_dims(x.shape)}")
    return np.diagonal(x, axis1=-2, axis2=-1).copy()


def _matrix_set_diag_shape(op):
    src = with_rank_at_least(dims_of(op.inputs[0]), 2)
    diag_dims = with_rank_at_least(dims_of(op.inputs[1]), 1)
    if src is not None and diag_dims is not None:
        m, n = src[-2:]
        small = None if m is None or n is None else min(m, n)
        with_rank(diag_dims, len(src) - 1)
        merge_dim(diag_dims[-1], small)
    return [op.inputs[0].shape]


def _matrix_set_diag_kernel(x, diagonal):
    want = x.shape[:-2] + (min(x.shape[-2:]),) if x.ndim >= 2 else None
    if want is None or diagonal.shape != want:
        raise invalid_argument(f"diagonal must have shape {fmt_dims(want or ())}, but received "
                               f"{fmt_dims(diagonal.shape)}")
    out = x.copy()
    idx = np.arange(want[-1])
    out[..., idx, idx] = diagonal
    return out


register_op("MatrixDiag", inputs=["diagonal: T"], outputs=["output: T"], attrs=["T: type"],
            shape_fn=_matrix_diag_shape, kernel=_matrix_diag_kernel)
register_op("MatrixDiagPart", inputs=["input: T"], outputs=["diagonal: T"], attrs=["T: type"],
            shape_fn=_matrix_diag_part_shape, kernel=_matrix_diag_part_kernel)
register_op("MatrixSetDiag", inputs=["input: T", "diagonal: T"], outputs=["output: T"],
            attrs=["T: type"], shape_fn=_matrix_set_diag_shape, kernel=_matrix_set_diag_kernel)


@RegisterGradient("MatrixDiag")
def _matrix_diag_grad(op, grad):
    return matrix_diag_part(grad)


@RegisterGradient("MatrixDiagPart")
def _matrix_diag_part_grad(op, grad):
    """Square matrices: a diagonal matrix of `grad`; else `grad` set into zeros."""
    matrix = op.inputs[0].shape[-2:]
    if matrix.is_fully_defined() and matrix[0] == matrix[1]:
        return matrix_diag(grad)
    return matrix_set_diag(zeros_like(op.inputs[0]), grad)


@RegisterGradient("MatrixSetDiag")
def _matrix_set_diag_grad(op, grad):
    """The input gets `grad` with its diagonal zeroed; the diagonal gets grad's diagonal."""
    input_shape = op.inputs[0].shape.merge_with(grad.shape)
    diag_shape = op.inputs[1].shape
    batch_shape = input_shape[:-2].merge_with(diag_shape[:-1])
    matrix_shape = input_shape[-2:]
    if batch_shape.is_fully_defined() and matrix_shape.is_fully_defined():
        diag_shape = batch_shape.as_list() + [min(matrix_shape.as_list())]
    else:
        diag_shape = _dynamic_diag_shape(grad)
    grad_input = matrix_set_diag(grad, zeros(diag_shape, dtype=grad.dtype))
    return grad_input, matrix_diag_part(grad)


def _dynamic_diag_shape(grad):
    """shape(grad)[:-2] + [min of its last two sizes], built next to `grad`."""
    with grad.graph.colocate_with(grad.op):
        grad_shape = shape(grad)
        grad_rank = rank(grad)
        batch_shape = slice_(grad_shape, [0], [grad_rank - 2])
        matrix_shape = slice_(grad_shape, [grad_rank - 2], [2])
        min_dim = reduce_min(matrix_shape)
        return concat([batch_shape, [min_dim]], 0)


def diag(diagonal, name=None):
    """A tensor with `diagonal` on its diagonal, of rank 2*rank(diagonal) (`tf.diag`)."""
    return apply_op("Diag", diagonal=diagonal, name=name).outputs[0]


def diag_part(input, name=None):  # noqa: A002
    """The diagonal of a rank-2k tensor (`tf.diag_part`)."""
    return apply_op("DiagPart", input=input, name=name).outputs[0]


def matrix_diag(diagonal, name="diag"):
    """Batched diagonal matrices from the last dimension of `diagonal` (`tf.matrix_diag`)."""
    return apply_op("MatrixDiag", diagonal=diagonal, name=name).outputs[0]


def matrix_diag_part(input, name="diag_part"):  # noqa: A002
    """The main diagonals of a batch of matrices (`tf.matrix_diag_part`)."""
    return apply_op("MatrixDiagPart", input=input, name=name).outputs[0]


def matrix_set_diag(input, diagonal, name="set_diag"):  # noqa: A002
    """A batch of matrices with their main diagonals replaced (`tf.matrix_set_diag`)."""
    return apply_op("MatrixSetDiag", input=input, diagonal=diagonal, name=name).outputs[0]
