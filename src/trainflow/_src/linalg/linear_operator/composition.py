"""`tf.linalg.LinearOperatorComposition`: the product A1 A2 ... An of operators, applied
one operator at a time."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops


class LinearOperatorComposition(LinearOperator):
    """`LinearOperator` acting like `operators[0] @ operators[1] @ ...`.

    Raises:
      TypeError: if the operators' dtypes differ.
      ValueError: if the list is empty or a hint contradicts the operators'.
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        if not isinstance(operators, (list, tuple)) or not operators:
            raise ValueError("Expected a non-empty list of operators. Found: %s" % operators)
        self._operators = list(operators)
        dtype = self._operators[0].dtype
        for operator in self._operators:
            if operator.dtype != dtype:
                name_type = (str((o.name, o.dtype)) for o in self._operators)
                raise TypeError("Expected all operators to have the same dtype.  Found %s"
                                % "   ".join(name_type))
        if all(operator.is_non_singular for operator in self._operators):
            if is_non_singular is False:
                raise ValueError("The composition of non-singular operators is always "
                                 "non-singular.")
            is_non_singular = True
        if name is None:
            name = "_o_".join(operator.name for operator in self._operators)
        with name_scope(name):
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def operators(self):
        """The operators, leftmost first."""
        return self._operators

    def _shape(self):
        domain = self._operators[-1].domain_dimension
        range_ = self._operators[0].range_dimension
        for a, b in zip(self._operators[:-1], self._operators[1:]):
            if a.domain_dimension is not None and b.range_dimension is not None:
                a.domain_dimension.assert_is_compatible_with(b.range_dimension)
        if range_ is None or domain is None or any(op.shape.rank is None
                                                   for op in self._operators):
            return TensorShape(None)
        batch = self._operators[0].batch_shape
        for operator in self._operators[1:]:
            batch = array_ops.broadcast_static_shape(batch, operator.batch_shape)
        return batch.concatenate(TensorShape([range_, domain]))

    def _shape_tensor(self):
        if self.shape.is_fully_defined():
            return super()._shape_tensor()
        domain = self._operators[-1].domain_dimension_tensor()
        range_ = self._operators[0].range_dimension_tensor()
        batch = self._operators[0].batch_shape_tensor()
        for operator in self._operators[1:]:
            batch = array_ops.broadcast_dynamic_shape(batch, operator.batch_shape_tensor())
        return array_ops.concat([batch, array_ops.stack([range_, domain])], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        # Apply the rightmost factor first (the leftmost one when adjoint).
        order = list(self._operators) if adjoint else list(reversed(self._operators))
        result = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in order[1:]:
            result = operator.matmul(result, adjoint=adjoint)
        return result

    def _determinant(self):
        result = self._operators[0].determinant()
        for operator in self._operators[1:]:
            result = result * operator.determinant()
        return result

    def _log_abs_determinant(self):
        # Operators disagree on the dtype of a complex log|det| (real or complex).
        terms = [op.log_abs_determinant() for op in self._operators]
        if len({t.dtype for t in terms}) > 1:
            terms = [math_ops.cast(t, self.dtype) for t in terms]
        result = terms[0]
        for term in terms[1:]:
            result = result + term
        return result

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        # A1 ... An x = rhs: solve with A1 first (An first when adjoint).
        order = list(reversed(self._operators)) if adjoint else list(self._operators)
        solution = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in order[1:]:
            solution = operator.solve(solution, adjoint=adjoint)
        return solution

    def _to_dense(self):
        if all(op.batch_shape.is_fully_defined() for op in self._operators) and \
                len({tuple(op.batch_shape.as_list()) for op in self._operators}) == 1:
            product = self._operators[-1].to_dense()
            for operator in reversed(self._operators[:-1]):
                product = operator.matmul(product)
            return product
        return super()._to_dense()
