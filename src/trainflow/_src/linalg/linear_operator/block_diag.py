"""`tf.linalg.LinearOperatorBlockDiag`: the block diagonal (direct sum) of square
operators, each acting on its own slice of the rows."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_shape import Dimension, TensorShape, dimension_value
from trainflow._src.linalg.linear_operator import util
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.math import math_ops


def check_operators(operators):
    """The operators as a list with one dtype (TypeError / ValueError as TF)."""
    if not isinstance(operators, (list, tuple)) or not operators:
        raise ValueError("Expected a non-empty list of operators. Found: %s" % operators)
    dtype = operators[0].dtype
    for op in operators:
        if op.dtype != dtype:
            raise TypeError("Expected all operators to have the same dtype.  Found %s"
                            % "   ".join(str((o.name, o.dtype)) for o in operators))
    return list(operators), dtype


def split_rows(x, sizes):
    """x split along its second-to-last axis into pieces of the given sizes."""
    if all(dimension_value(s) is not None for s in sizes):
        return array_ops.split(x, [dimension_value(s) for s in sizes], axis=-2)
    return array_ops.split(x, array_ops.stack(sizes), axis=-2)


def broadcast_batch(tensors):
    """The tensors broadcast to one batch shape (all but the last two axes)."""
    shapes = [array_ops.shape(t)[:-2] for t in tensors]
    batch = shapes[0]
    for s in shapes[1:]:
        batch = array_ops.broadcast_dynamic_shape(batch, s)
    return [array_ops.broadcast_to(t, array_ops.concat([batch, array_ops.shape(t)[-2:]], 0))
            for t in tensors]


class LinearOperatorBlockDiag(LinearOperator):
    """`LinearOperator` acting like the block diagonal matrix of `operators`.

    Raises:
      TypeError: if the operators' dtypes differ.
      ValueError: if the list is empty or is_square is False.
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        self._operators, dtype = check_operators(operators)
        if all(op.is_non_singular for op in self._operators):
            if is_non_singular is False:
                raise ValueError("The direct sum of non-singular operators is always "
                                 "non-singular.")
            is_non_singular = True
        if all(op.is_self_adjoint for op in self._operators):
            if is_self_adjoint is False:
                raise ValueError("The direct sum of self-adjoint operators is always "
                                 "self-adjoint.")
            is_self_adjoint = True
        if all(op.is_positive_definite for op in self._operators):
            if is_positive_definite is False:
                raise ValueError("The direct sum of positive definite operators is always "
                                 "positive definite.")
            is_positive_definite = True
        if name is None:
            name = "_ds_".join(op.name for op in self._operators)
        with name_scope(name):
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def operators(self):
        """The diagonal blocks, top first."""
        return self._operators

    def _shape(self):
        rows, cols = Dimension(0), Dimension(0)
        batch = self._operators[0].batch_shape
        for op in self._operators:
            rows += op.range_dimension
            cols += op.domain_dimension
            batch = array_ops.broadcast_static_shape(batch, op.batch_shape)
        return batch.concatenate(TensorShape([rows, cols]))

    def _shape_tensor(self):
        rows = cols = 0
        batch = self._operators[0].batch_shape_tensor()
        for op in self._operators:
            rows = rows + op.range_dimension_tensor()
            cols = cols + op.domain_dimension_tensor()
            batch = array_ops.broadcast_dynamic_shape(batch, op.batch_shape_tensor())
        return array_ops.concat([batch, array_ops.stack([rows, cols])], 0)

    def _sizes(self, domain):
        return [op.domain_dimension if domain else op.range_dimension
                for op in self._operators]

    def _dims(self, domain):
        return [dimension_value(d) if dimension_value(d) is not None else
                (op.domain_dimension_tensor() if domain else op.range_dimension_tensor())
                for d, op in zip(self._sizes(domain), self._operators)]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_api.adjoint(x) if adjoint_arg else x
        pieces = split_rows(x, self._dims(domain=not adjoint))
        out = [op.matmul(p, adjoint=adjoint) for op, p in zip(self._operators, pieces)]
        return array_ops.concat(broadcast_batch(out), axis=-2)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_api.adjoint(rhs) if adjoint_arg else rhs
        pieces = split_rows(rhs, self._dims(domain=adjoint))
        out = [op.solve(p, adjoint=adjoint) for op, p in zip(self._operators, pieces)]
        return array_ops.concat(broadcast_batch(out), axis=-2)

    def _determinant(self):
        result = self._operators[0].determinant()
        for op in self._operators[1:]:
            result = result * op.determinant()
        return result

    def _log_abs_determinant(self):
        terms = [op.log_abs_determinant() for op in self._operators]
        if len({t.dtype for t in terms}) > 1:
            terms = [math_ops.cast(t, self.dtype) for t in terms]
        result = terms[0]
        for t in terms[1:]:
            result = result + t
        return result

    def _trace(self):
        result = self._operators[0].trace()
        for op in self._operators[1:]:
            result = result + op.trace()
        return result

    def _diag_part(self):
        parts = [array_ops.expand_dims(op.diag_part(), -2) for op in self._operators]
        return array_ops.squeeze(array_ops.concat(broadcast_batch(parts), -1), -2)

    def _to_dense(self):
        cols = self._dims(domain=True)
        blocks = []
        for i, op in enumerate(self._operators):
            left = sum(cols[:i]) if i else 0
            right = sum(cols[i + 1:]) if i + 1 < len(cols) else 0
            dense = op.to_dense()
            zeros_left = array_ops.zeros(array_ops.concat(
                [array_ops.shape(dense)[:-1], array_ops.reshape(left, [1])], 0), self.dtype)
            zeros_right = array_ops.zeros(array_ops.concat(
                [array_ops.shape(dense)[:-1], array_ops.reshape(right, [1])], 0), self.dtype)
            blocks.append(array_ops.concat([zeros_left, dense, zeros_right], -1))
        return array_ops.concat(broadcast_batch(blocks), axis=-2)

    def _linop_adjoint(self):
        return LinearOperatorBlockDiag([op.adjoint() for op in self._operators],
                                       is_non_singular=self.is_non_singular,
                                       is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite,
                                       is_square=True)

    def _linop_inverse(self):
        return LinearOperatorBlockDiag([op.inverse() for op in self._operators],
                                       is_non_singular=self.is_non_singular,
                                       is_self_adjoint=self.is_self_adjoint,
                                       is_positive_definite=self.is_positive_definite,
                                       is_square=True)

    def _linop_cholesky(self):
        return LinearOperatorBlockDiag([op.cholesky() for op in self._operators],
                                       is_non_singular=True, is_self_adjoint=None,
                                       is_square=True)

    def _linop_matmul(self, left, right):
        if isinstance(right, LinearOperatorBlockDiag):
            return LinearOperatorBlockDiag(
                [a.matmul(b) for a, b in zip(left.operators, right.operators)],
                is_non_singular=util.combined_non_singular_hint(left, right),
                is_self_adjoint=None, is_positive_definite=None, is_square=True)
        return super()._linop_matmul(left, right)

    def _linop_solve(self, left, right):
        if isinstance(right, LinearOperatorBlockDiag):
            return LinearOperatorBlockDiag(
                [a.solve(b) for a, b in zip(left.operators, right.operators)],
                is_non_singular=util.combined_non_singular_hint(left, right),
                is_self_adjoint=None, is_positive_definite=None, is_square=True)
        return super()._linop_solve(left, right)
