"""`tf.linalg.LinearOperatorAdjoint`: the conjugate transpose of an operator, computed
through the operator's own adjoint paths."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.math import math_ops


def pick_hint(given, implied, message):
    """The hint to use: `given` unless it contradicts `implied` (ValueError)."""
    if given is not None and implied is not None and given != implied:
        raise ValueError(message)
    return implied if given is None else given


class LinearOperatorAdjoint(LinearOperator):
    """`LinearOperator` acting like `operator^H`.

    Raises:
      ValueError: if a hint contradicts the operator's.
    """

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        parameters = dict(operator=operator, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        self._operator = operator
        is_non_singular = pick_hint(is_non_singular, operator.is_non_singular,
                                    "An operator is non-singular if and only if its adjoint "
                                    "is non-singular.")
        is_self_adjoint = pick_hint(is_self_adjoint, operator.is_self_adjoint,
                                    "An operator is self-adjoint if and only if its adjoint "
                                    "is self-adjoint.")
        is_positive_definite = pick_hint(
            is_positive_definite, operator.is_positive_definite,
            "An operator is positive-definite if and only if its adjoint is "
            "positive-definite.")
        is_square = pick_hint(is_square, operator.is_square,
                              "An operator is square if and only if its adjoint is square.")
        if name is None:
            name = operator.name + "_adjoint"
        with name_scope(name):
            super().__init__(dtype=operator.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def operator(self):
        """The operator whose adjoint this is."""
        return self._operator

    def _shape(self):
        s = self._operator.shape
        if s.rank is None:
            return s
        return s[:-2].concatenate(TensorShape([s.dims[-1], s.dims[-2]]))

    def _shape_tensor(self):
        s = self._operator.shape_tensor()
        return array_ops.concat([s[:-2], array_ops.stack([s[-1], s[-2]])], 0)

    def _assert_non_singular(self):
        return self._operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self._operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self._operator.assert_self_adjoint()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self._operator.matvec(x, adjoint=not adjoint)

    def _determinant(self):
        if self.is_self_adjoint:
            return self._operator.determinant()
        return math_ops.conj(self._operator.determinant())

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def _trace(self):
        if self.is_self_adjoint:
            return self._operator.trace()
        return math_ops.conj(self._operator.trace())

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self._operator.solvevec(rhs, adjoint=not adjoint)

    def _to_dense(self):
        if self.is_self_adjoint:
            return self._operator.to_dense()
        return linalg_api.adjoint(self._operator.to_dense())

    def _linop_adjoint(self):
        return self._operator
