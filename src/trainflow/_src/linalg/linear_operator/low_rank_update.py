"""`tf.linalg.LinearOperatorLowRankUpdate`: A = L + U D V^H, a base operator L plus a
rank-k update; determinants by the matrix determinant lemma and solves by the
Woodbury identity, both through the k x k capacitance C = D^{-1} + V^H L^{-1} U."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.linalg.linear_operator import util
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.math import math_ops


class LinearOperatorLowRankUpdate(LinearOperator):
    """`LinearOperator` acting like `base_operator + u diag(diag_update) v^H` (v = u
    when None, diag_update = ones when None).

    Raises:
      TypeError: if u, v, diag_update and the base operator differ in dtype.
      ValueError: if is_diag_update_positive is False with no diag_update.
    """

    def __init__(self, base_operator, u, diag_update=None, v=None,
                 is_diag_update_positive=None, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        parameters = dict(base_operator=base_operator, u=u, diag_update=diag_update, v=v,
                          is_diag_update_positive=is_diag_update_positive,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        dtype = base_operator.dtype
        if diag_update is None and is_diag_update_positive is False:
            raise ValueError("Default diagonal is the identity, which is positive.  However, "
                             "user set 'is_diag_update_positive' to False.")
        if diag_update is None:
            is_diag_update_positive = True
        if v is None and base_operator.is_self_adjoint:
            if is_self_adjoint is False:
                raise ValueError("A self-adjoint base with v = u gives a self-adjoint "
                                 "operator.")
            is_self_adjoint = True if is_self_adjoint is None else is_self_adjoint
            if base_operator.is_positive_definite and is_diag_update_positive and \
                    is_positive_definite is None:
                is_positive_definite = True
        self._base_operator = base_operator
        self._is_diag_update_positive = is_diag_update_positive
        with name_scope(name):
            self._u = util.convert_nonref(u, dtype=dtype, name="u")
            self._v = self._u if v is None else util.convert_nonref(v, dtype=dtype, name="v")
            self._diag_update = None if diag_update is None else util.convert_nonref(
                diag_update, dtype=dtype, name="diag_update")
            self._v_is_u = v is None
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def base_operator(self):
        """L."""
        return self._base_operator

    @property
    def u(self):
        """U, shape [..., M, K]."""
        return self._u

    @property
    def v(self):
        """V, shape [..., N, K] (U itself when none was given)."""
        return self._v

    @property
    def diag_update(self):
        """The diagonal of D (None for the identity)."""
        return self._diag_update

    @property
    def is_diag_update_positive(self):
        return self._is_diag_update_positive

    def _shape(self):
        batch = array_ops.broadcast_static_shape(self._base_operator.batch_shape,
                                                 util.static_shape(self._u)[:-2])
        return batch.concatenate(self._base_operator.shape[-2:])

    def _shape_tensor(self):
        batch = array_ops.broadcast_dynamic_shape(self._base_operator.batch_shape_tensor(),
                                                  array_ops.shape(self._u)[:-2])
        return array_ops.concat([batch, self._base_operator.shape_tensor()[-2:]], 0)

    def _scaled(self, t, conj=False):
        """diag(d) t (t itself when D is the identity)."""
        if self._diag_update is None:
            return t
        d = math_ops.conj(self._diag_update) if conj else self._diag_update
        return array_ops.expand_dims(d, -1) * t

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_api.adjoint(x) if adjoint_arg else x
        left, right = (self._v, self._u) if adjoint else (self._u, self._v)
        base = self._base_operator.matmul(x, adjoint=adjoint)
        update = math_ops.matmul(left, self._scaled(
            math_ops.matmul(right, x, adjoint_a=True), conj=adjoint))
        return base + update

    def _capacitance(self):
        linv_u = self._base_operator.solve(self._u)
        vh_linv_u = math_ops.matmul(self._v, linv_u, adjoint_a=True)
        if self._diag_update is None:
            k = array_ops.shape(self._u)[-1]
            return linalg_api.eye(num_rows=k, dtype=self.dtype) + vh_linv_u
        return linalg_api.diag(1.0 / self._diag_update) + vh_linv_u

    def _determinant(self):
        det = self._base_operator.determinant() * linalg_api.matrix_determinant(
            self._capacitance())
        if self._diag_update is not None:
            det = det * math_ops.reduce_prod(self._diag_update, axis=[-1])
        return det

    def _log_abs_determinant(self):
        _, log_abs = linalg_api.log_matrix_determinant(self._capacitance())
        log_abs = math_ops.cast(math_ops.real(log_abs) if self.dtype.is_complex else log_abs,
                                self._base_operator.log_abs_determinant().dtype)
        result = self._base_operator.log_abs_determinant() + log_abs
        if self._diag_update is not None:
            d = math_ops.reduce_sum(math_ops.log(math_ops.abs(self._diag_update)), axis=[-1])
            result = result + math_ops.cast(d, result.dtype)
        return result

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if adjoint:
            return super()._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        rhs = linalg_api.adjoint(rhs) if adjoint_arg else rhs
        linv_rhs = self._base_operator.solve(rhs)
        vh_linv_rhs = math_ops.matmul(self._v, linv_rhs, adjoint_a=True)
        c_inv = util.matrix_solve_with_broadcast(self._capacitance(), vh_linv_rhs)
        return linv_rhs - self._base_operator.solve(math_ops.matmul(self._u, c_inv))

    def _to_dense(self):
        update = math_ops.matmul(self._u, self._scaled(linalg_api.adjoint(self._v)))
        return self._base_operator.to_dense() + update
