"""`tf.linalg.LinearOperatorScaledIdentity`: `c I` for a [batch of] scalar(s) c."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.linalg.linear_operator import util
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.linalg.linear_operator.diag import LinearOperatorDiag
from trainflow._src.linalg.linear_operator.identity import check_num_rows, static_int
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.math import math_ops


class LinearOperatorScaledIdentity(LinearOperator):
    """`LinearOperator` acting like `multiplier * I` of size num_rows; the batch shape
    is the multiplier's shape.

    Raises:
      ValueError: if a real multiplier is said not to be self-adjoint, or is_square is
        False.
    """

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        parameters = dict(num_rows=num_rows, multiplier=multiplier,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        self._assert_proper_shapes = assert_proper_shapes
        with name_scope(name, values=[multiplier, num_rows]):
            self._multiplier = util.convert_nonref(multiplier, name="multiplier")
            if not self._multiplier.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real diagonal operator is always self adjoint.")
                is_self_adjoint = True
            if not is_square:
                raise ValueError("A ScaledIdentity operator is always square.")
            super().__init__(dtype=self._multiplier.dtype.base_dtype,
                             is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)
            self._num_rows = check_num_rows(num_rows)
            self._num_rows_static = static_int(self._num_rows)
            self._num_rows_cast_to_dtype = math_ops.cast(self._num_rows, self.dtype)
            self._num_rows_cast_to_real_dtype = math_ops.cast(self._num_rows,
                                                              self.dtype.real_dtype)

    @property
    def multiplier(self):
        """The scalar (or batch of scalars) multiplying the identity."""
        return self._multiplier

    def _shape(self):
        n = self._num_rows_static
        return util.static_shape(self._multiplier).concatenate(TensorShape([n, n]))

    def _shape_tensor(self):
        return array_ops.concat([array_ops.shape(self._multiplier),
                                 array_ops.stack([self._num_rows, self._num_rows])], 0)

    def _multiplier_matrix(self, conjugate=False):
        m = math_ops.conj(self._multiplier) if conjugate else self._multiplier
        return array_ops.expand_dims(array_ops.expand_dims(m, -1), -1)

    def _n(self):
        return self._num_rows_static if self._num_rows_static is not None else self._num_rows

    def _assert_non_singular(self):
        return check_ops.assert_positive(math_ops.abs(self._multiplier),
                                         message="LinearOperator was singular")

    def _assert_positive_definite(self):
        return check_ops.assert_positive(math_ops.real(self._multiplier),
                                         message="LinearOperator was not positive definite.")

    def _assert_self_adjoint(self):
        imag = math_ops.imag(self._multiplier)
        return check_ops.assert_equal(array_ops.zeros_like(imag), imag,
                                      message="LinearOperator was not self-adjoint")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_api.adjoint(x) if adjoint_arg else x
        return x * self._multiplier_matrix(conjugate=adjoint)

    def _matvec(self, x, adjoint=False):
        m = math_ops.conj(self._multiplier) if adjoint else self._multiplier
        return x * array_ops.expand_dims(m, -1)

    def _determinant(self):
        return self._multiplier ** self._num_rows_cast_to_dtype

    def _log_abs_determinant(self):
        return self._num_rows_cast_to_real_dtype * math_ops.log(
            math_ops.abs(self._multiplier))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_api.adjoint(rhs) if adjoint_arg else rhs
        return rhs / self._multiplier_matrix(conjugate=adjoint)

    def _solvevec(self, rhs, adjoint=False):
        m = math_ops.conj(self._multiplier) if adjoint else self._multiplier
        return rhs / array_ops.expand_dims(m, -1)

    def _trace(self):
        return self._multiplier * self._num_rows_cast_to_dtype

    def _diag_part(self):
        return array_ops.expand_dims(self._multiplier, -1) * array_ops.ones(
            [self._n()], dtype=self.dtype)

    def _to_dense(self):
        return self._multiplier_matrix() * linalg_api.eye(num_rows=self._n(),
                                                          dtype=self.dtype)

    def _add_to_tensor(self, x):
        x_diag = linalg_api.diag_part(x)
        new_diag = array_ops.expand_dims(self._multiplier, -1) + x_diag
        return linalg_api.set_diag(x, new_diag)

    def _eigvals(self):
        return self._diag_part()

    def _linop_adjoint(self):
        return LinearOperatorScaledIdentity(
            num_rows=self._num_rows, multiplier=math_ops.conj(self._multiplier),
            is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_inverse(self):
        return LinearOperatorScaledIdentity(
            num_rows=self._num_rows, multiplier=1.0 / self._multiplier,
            is_non_singular=self.is_non_singular, is_self_adjoint=True,
            is_positive_definite=self.is_positive_definite, is_square=True)

    def _linop_cholesky(self):
        return LinearOperatorScaledIdentity(
            num_rows=self._num_rows, multiplier=math_ops.sqrt(self._multiplier),
            is_non_singular=True, is_self_adjoint=True, is_positive_definite=True,
            is_square=True)

    def _linop_matmul(self, left, right):
        hints = util.commuting_hints(left, right)
        if isinstance(right, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(
                num_rows=left.domain_dimension_tensor(),
                multiplier=left.multiplier * right.multiplier, is_square=True, **hints)
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(right.diag * left.multiplier, is_square=True, **hints)
        return super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        hints = util.commuting_hints(left, right)
        if isinstance(right, LinearOperatorScaledIdentity):
            return LinearOperatorScaledIdentity(
                num_rows=left.domain_dimension_tensor(),
                multiplier=right.multiplier / left.multiplier, is_square=True, **hints)
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(right.diag / left.multiplier, is_square=True, **hints)
        return super()._linop_solve(left, right)
