"""`tf.linalg.LinearOperatorDiag`: a [batch] diagonal matrix held as its diagonal."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.linalg.linear_operator import util
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.math import math_ops


class LinearOperatorDiag(LinearOperator):
    """`LinearOperator` acting like `diag(d)` for d of shape [B1, ..., Bb, N].

    Raises:
      TypeError: if d is not floating or complex.
      ValueError: if d is a scalar, if is_square is False, or if a real d is said not
        to be self-adjoint.
    """

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorDiag"):
        parameters = dict(diag=diag, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with name_scope(name, values=[diag]):
            self._diag = util.convert_nonref(diag, name="diag")
            util.assert_float_or_complex(self._diag, "diag")
            if self._diag.shape.ndims is not None and self._diag.shape.ndims < 1:
                raise ValueError("Argument diag must have at least 1 dimension.  Found: %s"
                                 % self._diag)
            if not self._diag.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real diagonal operator is always self adjoint.")
                is_self_adjoint = True
            if is_square is False:
                raise ValueError("Only square diagonal operators currently supported.")
            is_square = True
            super().__init__(dtype=self._diag.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def diag(self):
        """The diagonal."""
        return self._diag

    def _shape(self):
        d = util.static_shape(self._diag)
        return d.concatenate(d[-1:])

    def _shape_tensor(self):
        d_shape = array_ops.shape(self._diag)
        return array_ops.concat([d_shape, d_shape[-1:]], 0)

    def _assert_non_singular(self):
        return check_ops.assert_none_equal(
            math_ops.abs(self._diag), array_ops.zeros([], dtype=self._diag.dtype.real_dtype),
            message="Singular operator:  Diagonal contained zero values.")

    def _assert_positive_definite(self):
        if self.dtype.is_complex:
            message = ("Diagonal operator had diagonal entries with non-positive real part, "
                       "thus was not positive definite.")
        else:
            message = ("Real diagonal operator had non-positive diagonal entries, thus was "
                       "not positive definite.")
        return check_ops.assert_positive(math_ops.real(self._diag), message=message)

    def _assert_self_adjoint(self):
        return check_ops.assert_equal(
            math_ops.imag(self._diag), array_ops.zeros([], dtype=self._diag.dtype.real_dtype),
            message="This diagonal operator contained non-zero imaginary values.  Thus it "
                    "was not self-adjoint.")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        diag_term = math_ops.conj(self._diag) if adjoint else self._diag
        x = linalg_api.adjoint(x) if adjoint_arg else x
        return array_ops.expand_dims(diag_term, -1) * x

    def _matvec(self, x, adjoint=False):
        diag_term = math_ops.conj(self._diag) if adjoint else self._diag
        return diag_term * x

    def _determinant(self):
        return math_ops.reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self):
        log_det = math_ops.reduce_sum(math_ops.log(math_ops.abs(self._diag)), axis=[-1])
        if self.dtype.is_complex:
            log_det = math_ops.cast(log_det, dtype=self.dtype)
        return log_det

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        diag_term = math_ops.conj(self._diag) if adjoint else self._diag
        rhs = linalg_api.adjoint(rhs) if adjoint_arg else rhs
        inv_diag_mat = array_ops.expand_dims(1.0 / diag_term, -1)
        return rhs * inv_diag_mat

    def _to_dense(self):
        return linalg_api.diag(self._diag)

    def _diag_part(self):
        return self._diag

    def _trace(self):
        return math_ops.reduce_sum(self._diag, axis=-1)

    def _add_to_tensor(self, x):
        x_diag = linalg_api.diag_part(x)
        return linalg_api.set_diag(x, x_diag + self._diag)

    def _eigvals(self):
        return self._diag

    def _cond(self):
        abs_diag = math_ops.abs(self._diag)
        return (math_ops.reduce_max(abs_diag, axis=-1)
                / math_ops.reduce_min(abs_diag, axis=-1))

    def _linop_adjoint(self):
        return LinearOperatorDiag(math_ops.conj(self._diag),
                                  is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite,
                                  is_square=True)

    def _linop_inverse(self):
        return LinearOperatorDiag(1.0 / self._diag, is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite,
                                  is_square=True)

    def _linop_cholesky(self):
        return LinearOperatorDiag(math_ops.sqrt(self._diag), is_non_singular=True,
                                  is_self_adjoint=True, is_positive_definite=True,
                                  is_square=True)

    def _linop_matmul(self, left, right):
        # Lazy: both modules import this one.
        from trainflow._src.linalg.linear_operator import lower_triangular, scaled_identity
        hints = util.commuting_hints(left, right)
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(left.diag * right.diag, is_square=True, **hints)
        if isinstance(right, scaled_identity.LinearOperatorScaledIdentity):
            return LinearOperatorDiag(left.diag * right.multiplier, is_square=True, **hints)
        if isinstance(right, lower_triangular.LinearOperatorLowerTriangular):
            hints["is_positive_definite"] = None
            return lower_triangular.LinearOperatorLowerTriangular(
                array_ops.expand_dims(left.diag, -1) * right.to_dense(), is_square=True,
                **hints)
        return super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        # Lazy: both modules import this one.
        from trainflow._src.linalg.linear_operator import lower_triangular, scaled_identity
        hints = util.commuting_hints(left, right)
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(right.diag / left.diag, is_square=True, **hints)
        if isinstance(right, scaled_identity.LinearOperatorScaledIdentity):
            return LinearOperatorDiag(right.multiplier / left.diag, is_square=True, **hints)
        if isinstance(right, lower_triangular.LinearOperatorLowerTriangular):
            hints["is_positive_definite"] = None
            return lower_triangular.LinearOperatorLowerTriangular(
                right.to_dense() / array_ops.expand_dims(left.diag, -1), is_square=True,
                **hints)
        return super()._linop_solve(left, right)
