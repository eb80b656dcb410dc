"""`tf.linalg.LinearOperatorLowerTriangular`: the lower triangle of a [batch] matrix."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.linalg.linear_operator import diag, util
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.math import math_ops


class LinearOperatorLowerTriangular(LinearOperator):
    """`LinearOperator` acting like the lower triangle of `tril` (entries above the
    diagonal are ignored).

    Raises:
      TypeError: if tril is not floating or complex.
      ValueError: if tril has fewer than 2 dimensions or is_square is False.
    """

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowerTriangular"):
        parameters = dict(tril=tril, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        is_square = True
        with name_scope(name, values=[tril]):
            self._tril = util.convert_nonref(tril, name="tril")
            util.assert_float_or_complex(self._tril, "tril")
            if self._tril.shape.ndims is not None and self._tril.shape.ndims < 2:
                raise ValueError("Argument tril must have at least 2 dimensions.  Found: %s"
                                 % self._tril)
            super().__init__(dtype=self._tril.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def tril(self):
        """The matrix given (only its lower triangle is used)."""
        return self._tril

    def _get_tril(self):
        return linalg_api.band_part(self._tril, -1, 0)

    def _get_diag(self):
        return linalg_api.diag_part(self._tril)

    def _shape(self):
        return util.static_shape(self._tril)

    def _shape_tensor(self):
        return array_ops.shape(self._tril)

    def _assert_non_singular(self):
        return check_ops.assert_none_equal(
            math_ops.abs(self._get_diag()),
            array_ops.zeros([], dtype=self.dtype.real_dtype),
            message="Singular operator:  Diagonal contained zero values.")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self._get_tril(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self):
        return math_ops.reduce_prod(self._get_diag(), axis=[-1])

    def _log_abs_determinant(self):
        return math_ops.reduce_sum(math_ops.log(math_ops.abs(self._get_diag())), axis=[-1])

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_api.adjoint(rhs) if adjoint_arg else rhs
        return util.matrix_triangular_solve_with_broadcast(self._get_tril(), rhs, lower=True,
                                                           adjoint=adjoint)

    def _to_dense(self):
        return self._get_tril()

    def _eigvals(self):
        return self._get_diag()

    def _linop_matmul(self, left, right):
        if isinstance(right, diag.LinearOperatorDiag):
            return LinearOperatorLowerTriangular(
                left.to_dense() * array_ops.expand_dims(right.diag, -2),
                is_non_singular=util.combined_non_singular_hint(right, left),
                is_self_adjoint=util.combined_commuting_self_adjoint_hint(right, left),
                is_positive_definite=None, is_square=True)
        return super()._linop_matmul(left, right)
