"""`tf.linalg.LinearOperatorInversion`: the inverse of an operator, whose products are
the operator's solves and whose solves are its products."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.linalg.linear_operator.adjoint import pick_hint
from trainflow._src.linalg.linear_operator.base import LinearOperator


class LinearOperatorInversion(LinearOperator):
    """`LinearOperator` acting like `operator^{-1}`.

    Raises:
      ValueError: if the operator is known singular or non-square, or a hint
        contradicts the operator's.
    """

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        parameters = dict(operator=operator, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        self._operator = operator
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError("operator and supplied hints must be non-singular. Found: "
                             "operator.is_non_singular = %s, is_non_singular = %s."
                             % (operator.is_non_singular, is_non_singular))
        if operator.is_square is False or is_square is False:
            raise ValueError("operator and supplied hints must be square. Found: "
                             "operator.is_square = %s, is_square = %s."
                             % (operator.is_square, is_square))
        is_non_singular = pick_hint(is_non_singular, operator.is_non_singular,
                                    "An operator is non-singular if and only if its inverse "
                                    "is non-singular.")
        is_self_adjoint = pick_hint(is_self_adjoint, operator.is_self_adjoint,
                                    "An operator is self-adjoint if and only if its inverse "
                                    "is self-adjoint.")
        is_positive_definite = pick_hint(
            is_positive_definite, operator.is_positive_definite,
            "An operator is positive-definite if and only if its inverse is "
            "positive-definite.")
        is_square = pick_hint(is_square, operator.is_square,
                              "An operator is square if and only if its inverse is square.")
        if name is None:
            name = operator.name + "_inv"
        with name_scope(name):
            super().__init__(dtype=operator.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def operator(self):
        """The operator being inverted."""
        return self._operator

    def _shape(self):
        return self._operator.shape

    def _shape_tensor(self):
        return self._operator.shape_tensor()

    def _assert_non_singular(self):
        return self._operator.assert_non_singular()

    def _assert_positive_definite(self):
        return self._operator.assert_positive_definite()

    def _assert_self_adjoint(self):
        return self._operator.assert_self_adjoint()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self._operator.solvevec(x, adjoint=adjoint)

    def _determinant(self):
        return 1.0 / self._operator.determinant()

    def _log_abs_determinant(self):
        return -1.0 * self._operator.log_abs_determinant()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self._operator.matvec(rhs, adjoint=adjoint)

    def _linop_inverse(self):
        return self._operator

    def _linop_solve(self, left, right):
        return left.operator.matmul(right)
