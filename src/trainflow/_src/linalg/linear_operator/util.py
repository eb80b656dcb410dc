"""Helpers the operators share: argument conversion, batch broadcasting of solves, and
the hint arithmetic of products."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.linalg import linalg_api


def convert_nonref(value, dtype=None, dtype_hint=None, name=None):
    """Converts `value` to a Tensor (dtype_hint is tried first, as TF does)."""
    if dtype is None and dtype_hint is not None:
        try:
            return convert_to_tensor(value, dtype=dtype_hint, name=name)
        except (TypeError, ValueError):
            pass
    return convert_to_tensor(value, dtype=dtype, name=name)


def assert_float_or_complex(x, name):
    """Raises TypeError unless `x` is floating or complex (TF's operator argument check)."""
    dt = dtypes.as_dtype(x.dtype).base_dtype
    if not (dt.is_floating or dt.is_complex):
        raise TypeError(f"Argument {name} must be floating or complex dtype. Found: {dt}")


def broadcast_matrix_batch_dims(a, b):
    """Broadcasts the batch dimensions (all but the last two) of `a` and `b`."""
    sa, sb = a.shape, b.shape
    if sa.rank is not None and sb.rank is not None and sa.is_fully_defined() and \
            sb.is_fully_defined():
        if sa[:-2] == sb[:-2]:
            return a, b
        batch = array_ops.broadcast_static_shape(sa[:-2], sb[:-2])
        out_a = a if sa[:-2] == batch else array_ops.broadcast_to(
            a, batch.concatenate(sa[-2:]).as_list())
        out_b = b if sb[:-2] == batch else array_ops.broadcast_to(
            b, batch.concatenate(sb[-2:]).as_list())
        return out_a, out_b
    sha, shb = array_ops.shape(a), array_ops.shape(b)
    batch = array_ops.broadcast_dynamic_shape(sha[:-2], shb[:-2])
    a = array_ops.broadcast_to(a, array_ops.concat([batch, sha[-2:]], 0))
    b = array_ops.broadcast_to(b, array_ops.concat([batch, shb[-2:]], 0))
    return a, b


def matrix_solve_with_broadcast(matrix, rhs, adjoint=False, name=None):
    """`MatrixSolve` after broadcasting the batch dimensions of both sides."""
    with name_scope(name, "MatrixSolveWithBroadcast", [matrix, rhs]):
        matrix, rhs = broadcast_matrix_batch_dims(matrix, rhs)
        return linalg_api.matrix_solve(matrix, rhs, adjoint=adjoint)


def matrix_triangular_solve_with_broadcast(matrix, rhs, lower=True, adjoint=False,
                                           name=None):
    """`MatrixTriangularSolve` after broadcasting the batch dimensions of both sides."""
    matrix, rhs = broadcast_matrix_batch_dims(matrix, rhs)
    return linalg_api.matrix_triangular_solve(matrix, rhs, lower=lower, adjoint=adjoint,
                                              name=name)


def static_shape(x):
    """The static TensorShape of a tensor."""
    return TensorShape(x.shape)


def combined_commuting_self_adjoint_hint(a, b):
    """Whether the product of two commuting operators is self-adjoint, from their
    hints."""
    if a.is_self_adjoint and b.is_self_adjoint:
        return True
    if {a.is_self_adjoint, b.is_self_adjoint} == {True, False}:
        return False
    return None


def combined_commuting_positive_definite_hint(a, b):
    """Whether the product of two commuting operators is positive definite."""
    if a.is_positive_definite is True and a.is_self_adjoint is True and \
            b.is_positive_definite is True and b.is_self_adjoint is True:
        return True
    return None


def commuting_hints(a, b):
    """The non-singular, self-adjoint and positive-definite hints of a product of two
    commuting operators (diagonal ones)."""
    return dict(is_non_singular=combined_non_singular_hint(a, b),
                is_self_adjoint=combined_commuting_self_adjoint_hint(a, b),
                is_positive_definite=combined_commuting_positive_definite_hint(a, b))


def is_square(a, b):
    """Whether the product a @ b is square, from the operators' shapes and hints."""
    if a.is_square and b.is_square:
        return True
    if a.is_square is False and b.is_square is False:
        return None
    if a.range_dimension is not None and b.domain_dimension is not None:
        return a.range_dimension == b.domain_dimension
    return None


def combined_non_singular_hint(*operators):
    """True when all are non-singular, False when one is singular, else None."""
    if any(op.is_non_singular is False for op in operators):
        return False
    return all(op.is_non_singular for op in operators) or None
