"""The graph functions of `tf.linalg` (and their TF1 top-level names): inverses,
determinants, Cholesky, solves, SVD, band parts, trace, eye, transposes, cross.

Norms live in `norm`, einsum in `ops.math.einsum`; the diagonal ops are
`ops.array.diag`'s.
"""
import collections
import numbers

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import create
from trainflow._src.ops.array import join
from trainflow._src.ops.array import layout
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.linalg import matrix_diag as _diag_v3
from trainflow._src.ops.linalg import linalg_ops  # noqa: F401 - registers the ops
from trainflow._src.ops.array import cast
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions
from trainflow._src.framework.tensor import Tensor

__all__ = ["adjoint", "cholesky", "cholesky_solve", "cross", "eye", "log_matrix_determinant",
           "logdet", "matrix_band_part", "matrix_determinant", "matrix_inverse",
           "matrix_solve", "matrix_transpose", "matrix_triangular_solve", "matvec", "svd",
           "trace"]

# tf.linalg's diagonal functions take a band k (TensorFlow 2's V3 ops).
diag = _diag_v3.matrix_diag
diag_part = _diag_v3.matrix_diag_part
set_diag = _diag_v3.matrix_set_diag


def _out(op_type, name, **kwargs):
    return apply_op(op_type, name=name, **kwargs).outputs[0]


def matrix_inverse(input, adjoint=False, name=None):  # noqa: A002 - TF's names
    """The inverse (or, with adjoint, the inverse of the adjoint) of square matrices
    (`MatrixInverse`). A singular matrix is an InvalidArgumentError at run time."""
    return _out("MatrixInverse", name, input=input, adjoint=adjoint)


def matrix_determinant(input, name=None):  # noqa: A002
    """The determinants of square matrices (`MatrixDeterminant`)."""
    return _out("MatrixDeterminant", name, input=input)


_SlogDet = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


def log_matrix_determinant(input, name=None):  # noqa: A002
    """(sign, log |det|) of square matrices (`LogMatrixDeterminant`)."""
    op = apply_op("LogMatrixDeterminant", input=input, name=name)
    return _SlogDet(*op.outputs)


def logdet(matrix, name=None):
    """log det of Hermitian positive-definite matrices, via their Cholesky factor."""
    with get_default_graph().name_scope(name or "logdet"):
        chol = cholesky(matrix)
        return 2.0 * reductions.reduce_sum(
            arith.log(arith.real(diag_part(chol))), axis=[-1])


def cholesky(input, name=None):  # noqa: A002
    """The lower Cholesky factor of Hermitian positive-definite matrices (`Cholesky`);
    only the lower triangle of `input` is read."""
    return _out("Cholesky", name, input=input)


def cholesky_solve(chol, rhs, name=None):
    """Solves A X = rhs given A's Cholesky factor `chol` (two triangular solves)."""
    with get_default_graph().name_scope(name or "cholesky_solve"):
        y = matrix_triangular_solve(chol, rhs, adjoint=False, lower=True)
        return matrix_triangular_solve(chol, y, adjoint=True, lower=True)


def matrix_solve(matrix, rhs, adjoint=False, name=None):
    """Solves matrix @ X = rhs (or adjoint(matrix) @ X = rhs) (`MatrixSolve`)."""
    return _out("MatrixSolve", name, matrix=matrix, rhs=rhs, adjoint=adjoint)


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solves a triangular system, reading only the `lower` (or upper) triangle of
    `matrix` (`MatrixTriangularSolve`)."""
    return _out("MatrixTriangularSolve", name, matrix=matrix, rhs=rhs, lower=lower,
                adjoint=adjoint)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular value decomposition tensor = u diag(s) v^H (`Svd`).

    Returns:
      (s, u, v) if compute_uv, else s. s is sorted in decreasing order.
    """
    op = apply_op("Svd", input=tensor, full_matrices=full_matrices, compute_uv=compute_uv,
                  name=name)
    s, u, v = op.outputs
    return (s, u, v) if compute_uv else s


def matrix_band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Keeps a band of each matrix: num_lower sub- and num_upper super-diagonals
    (negative keeps the whole triangle) and zeros the rest (`MatrixBandPart`)."""
    input = convert_to_tensor(input)
    index_dtype = None
    for v in (num_lower, num_upper):
        if hasattr(v, "dtype"):
            index_dtype = dtypes.as_dtype(v.dtype)
    index_dtype = index_dtype or dtypes.int64
    return _out("MatrixBandPart", name, input=input,
                num_lower=convert_to_tensor(num_lower, dtype=index_dtype),
                num_upper=convert_to_tensor(num_upper, dtype=index_dtype))


band_part = matrix_band_part


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """Matrix-vector product `a @ b` of (batches of) matrices and vectors, as TF builds it:
    `matmul(a, expand_dims(b, -1))` squeezed; its gradient is matmul's.

    Args:
      a: a Tensor of rank >= 2, [..., M, N].
      b: a Tensor of rank >= 1 and a's dtype, [..., N].
      transpose_a, adjoint_a: transpose (conjugate-transpose) `a` first.
      a_is_sparse, b_is_sparse: hints passed to matmul.
      name: the name scope ("MatVec").
    """
    with get_default_graph().name_scope(name or "MatVec"):
        b = convert_to_tensor(b, name="b")
        output = arith.matmul(a, shape_lib.expand_dims(b, axis=-1), transpose_a=transpose_a,
                              adjoint_a=adjoint_a, a_is_sparse=a_is_sparse,
                              b_is_sparse=b_is_sparse)
        return shape_lib.squeeze(output, axis=-1)


def cross(a, b, name=None):
    """Pairwise cross products of 3-vectors (`Cross`)."""
    return _out("Cross", name, a=a, b=b)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swaps the last two dimensions (conjugating with `conjugate`).

    Raises:
      ValueError: for a tensor of known rank below 2.
    """
    with get_default_graph().name_scope(name):
        a = convert_to_tensor(a, name="a")
        rank = a.shape.rank
        if rank is not None:
            if rank < 2:
                raise ValueError(f"Argument 'a' should be a (batch) matrix, with rank >= 2.  "
                                 f"Found: {a.shape}")
            perm = list(range(rank - 2)) + [rank - 1, rank - 2]
        else:
            r = shape_lib.rank(a)
            perm = join.concat([create.range(r - 2), [r - 1, r - 2]], 0)
        return layout.transpose(a, perm=perm, conjugate=conjugate)


def adjoint(matrix, name=None):
    """The conjugate transpose of the last two dimensions."""
    with get_default_graph().name_scope(name or "adjoint"):
        return matrix_transpose(convert_to_tensor(matrix, name="matrix"), conjugate=True)


def trace(x, name=None):
    """The sum of each matrix's main diagonal (reduce_sum of matrix_diag_part)."""
    with get_default_graph().name_scope(name or "Trace") as scope:
        x = convert_to_tensor(x, name="x")
        return reductions.reduce_sum(diag_part(x), [-1], name=scope)


def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """Identity matrices: shape batch_shape + [num_rows, num_columns].

    Raises:
      TypeError: for Python row/column counts that are not integers.
    """
    with get_default_graph().name_scope(name or "eye"):
        square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        if isinstance(num_rows, Tensor) or isinstance(num_columns, Tensor):
            diag_size = arith.minimum(num_rows, num_columns)
        else:
            if not _is_int(num_rows) or not _is_int(num_columns):
                raise TypeError("num_rows and num_columns must be positive integer values.")
            square = num_rows == num_columns
            diag_size = int(min(num_rows, num_columns))
        if not isinstance(batch_shape, Tensor) and not isinstance(diag_size, Tensor):
            # All static: the shapes are Python lists (constants in the graph).
            batch = [int(d) for d in np.asarray(batch_shape).reshape(-1)]
            ones = create.ones(batch + [diag_size], dtype=dtype)
            if square:
                return diag(ones)
            return set_diag(create.zeros(batch + [num_rows, num_columns], dtype=dtype),
                            ones)
        if not isinstance(batch_shape, Tensor):
            batch_shape = convert_to_tensor(np.asarray(batch_shape, np.int32).reshape(-1))
        diag_size = cast.cast(diag_size, batch_shape.dtype)
        diag_shape = join.concat([batch_shape, shape_lib.reshape(diag_size, [1])], 0)
        ones = create.ones(diag_shape, dtype=dtype)
        if square:
            return diag(ones)
        shape = join.concat([batch_shape, cast.cast(join.stack(
            [num_rows, num_columns]), batch_shape.dtype)], 0)
        return set_diag(create.zeros(shape, dtype=dtype), ones)

