"""`tf.linalg.LinearOperatorKronecker`: the Kronecker product A1 (x) A2 (x) ... of
operators; determinants and traces come from the factors."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_shape import Dimension, TensorShape
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops


def kron_dense(a, b):
    """The Kronecker product of two [batch] matrices."""
    sa, sb = array_ops.shape(a), array_ops.shape(b)
    prod = array_ops.expand_dims(array_ops.expand_dims(a, -1), -3) * \
        array_ops.expand_dims(array_ops.expand_dims(b, -3), -2)
    # prod[..., i, k, j, l] = a[..., i, j] * b[..., k, l]
    batch = array_ops.shape(prod)[:-4]
    return array_ops.reshape(prod, array_ops.concat(
        [batch, array_ops.stack([sa[-2] * sb[-2], sa[-1] * sb[-1]])], 0))


class LinearOperatorKronecker(LinearOperator):
    """`LinearOperator` acting like `operators[0] (x) operators[1] (x) ...`.

    Raises:
      TypeError: if the operators' dtypes differ.
      ValueError: if the list is empty.
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        if not isinstance(operators, (list, tuple)) or not operators:
            raise ValueError("Expected a list of >=1 operators. Found: %s" % operators)
        self._operators = list(operators)
        dtype = self._operators[0].dtype
        for operator in self._operators:
            if operator.dtype != dtype:
                raise TypeError("Expected all operators to have the same dtype.  Found %s"
                                % "   ".join(str((o.name, o.dtype)) for o in self._operators))
        if all(op.is_non_singular for op in self._operators):
            if is_non_singular is False:
                raise ValueError("The Kronecker product of non-singular operators is always "
                                 "non-singular.")
            is_non_singular = True
        if all(op.is_self_adjoint for op in self._operators):
            if is_self_adjoint is False:
                raise ValueError("The Kronecker product of self-adjoint operators is always "
                                 "self-adjoint.")
            is_self_adjoint = True
        if all(op.is_positive_definite for op in self._operators):
            if is_positive_definite is False:
                raise ValueError("The Kronecker product of positive-definite operators is "
                                 "always positive-definite.")
            is_positive_definite = True
        if name is None:
            name = "_x_".join(op.name for op in self._operators)
        with name_scope(name):
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def operators(self):
        """The factors, leftmost first."""
        return self._operators

    def _shape(self):
        rows, cols = Dimension(1), Dimension(1)
        batch = self._operators[0].batch_shape
        for op in self._operators:
            rows *= op.range_dimension
            cols *= op.domain_dimension
            batch = array_ops.broadcast_static_shape(batch, op.batch_shape)
        return batch.concatenate(TensorShape([rows, cols]))

    def _shape_tensor(self):
        rows = cols = 1
        batch = self._operators[0].batch_shape_tensor()
        for op in self._operators:
            rows = rows * op.range_dimension_tensor()
            cols = cols * op.domain_dimension_tensor()
            batch = array_ops.broadcast_dynamic_shape(batch, op.batch_shape_tensor())
        return array_ops.concat([batch, array_ops.stack([rows, cols])], 0)

    def _to_dense(self):
        product = self._operators[0].to_dense()
        for op in self._operators[1:]:
            product = kron_dense(product, op.to_dense())
        return product

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self):
        # det(A (x) B) = det(A)^m det(B)^n for A n x n and B m x m.
        total = math_ops.cast(self.domain_dimension_tensor(), self.dtype)
        result = None
        for op in self._operators:
            n = math_ops.cast(op.domain_dimension_tensor(), self.dtype)
            term = op.determinant() ** (total / n)
            result = term if result is None else result * term
        return result

    def _log_abs_determinant(self):
        total = self.domain_dimension_tensor()
        terms = [op.log_abs_determinant() for op in self._operators]
        if len({t.dtype for t in terms}) > 1:
            terms = [math_ops.cast(t, self.dtype) for t in terms]
        result = None
        for op, term in zip(self._operators, terms):
            scale = math_ops.cast(total // op.domain_dimension_tensor(), term.dtype)
            result = scale * term if result is None else result + scale * term
        return result

    def _trace(self):
        result = self._operators[0].trace()
        for op in self._operators[1:]:
            result = result * op.trace()
        return result

    def _diag_part(self):
        result = self._operators[0].diag_part()
        for op in self._operators[1:]:
            d = op.diag_part()
            outer = array_ops.expand_dims(result, -1) * array_ops.expand_dims(d, -2)
            result = array_ops.reshape(outer, array_ops.concat(
                [array_ops.shape(outer)[:-2], [-1]], 0))
        return result

    def _linop_adjoint(self):
        return LinearOperatorKronecker([op.adjoint() for op in self._operators],
                                       is_non_singular=self.is_non_singular,
                                       is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite,
                                       is_square=True)

    def _linop_cholesky(self):
        return LinearOperatorKronecker([op.cholesky() for op in self._operators],
                                       is_non_singular=True, is_self_adjoint=None,
                                       is_square=True)

    def _linop_inverse(self):
        return LinearOperatorKronecker([op.inverse() for op in self._operators],
                                       is_non_singular=self.is_non_singular,
                                       is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite,
                                       is_square=True)
