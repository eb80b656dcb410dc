"""`tf.linalg.LinearOperatorBlockLowerTriangular`: a square operator made of blocks
below and on the diagonal (row i holds operators[i][0..i]); solves substitute block
by block."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_shape import Dimension, TensorShape, dimension_value
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.linalg.linear_operator.block_diag import broadcast_batch, split_rows
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.math import math_ops


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """`LinearOperator` acting like the block lower triangular matrix whose row i is
    `operators[i]` (i + 1 operators; the last one, on the diagonal, is square).

    Raises:
      TypeError: if the operators' dtypes differ.
      ValueError: if the rows do not have 1, 2, 3 ... operators, or is_square is False.
    """

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorBlockLowerTriangular"):
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        if not isinstance(operators, (list, tuple)) or not operators:
            raise ValueError("Expected a non-empty list of operators. Found: %s" % operators)
        self._operators = [list(row) for row in operators]
        for i, row in enumerate(self._operators):
            if len(row) != i + 1:
                raise ValueError("Argument `operators[{}]` must contain `{}` blocks. Found: {}"
                                 .format(i, i + 1, len(row)))
        flat = [op for row in self._operators for op in row]
        dtype = flat[0].dtype
        for op in flat:
            if op.dtype != dtype:
                raise TypeError("Expected all operators to have the same dtype.  Found %s"
                                % "   ".join(str((o.name, o.dtype)) for o in flat))
        diagonal = self._diagonal_operators = [row[-1] for row in self._operators]
        if all(op.is_non_singular for op in diagonal):
            if is_non_singular is False:
                raise ValueError("A blockwise lower-triangular operator with non-singular "
                                 "operators on the main diagonal is always non-singular.")
            is_non_singular = True
        if is_square is False:
            raise ValueError("A blockwise lower-triangular operator is always square.")
        with name_scope(name):
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=True,
                             parameters=parameters, name=name)

    @property
    def operators(self):
        """The rows of blocks."""
        return self._operators

    def _shape(self):
        n = Dimension(0)
        batch = self._operators[0][0].batch_shape
        for op in self._diagonal_operators:
            n += op.domain_dimension
        for row in self._operators:
            for op in row:
                batch = array_ops.broadcast_static_shape(batch, op.batch_shape)
        return batch.concatenate(TensorShape([n, n]))

    def _shape_tensor(self):
        n = 0
        batch = self._operators[0][0].batch_shape_tensor()
        for op in self._diagonal_operators:
            n = n + op.domain_dimension_tensor()
        for row in self._operators:
            for op in row:
                batch = array_ops.broadcast_dynamic_shape(batch, op.batch_shape_tensor())
        return array_ops.concat([batch, array_ops.stack([n, n])], 0)

    def _dims(self):
        return [dimension_value(op.domain_dimension) if
                dimension_value(op.domain_dimension) is not None else
                op.domain_dimension_tensor() for op in self._diagonal_operators]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_api.adjoint(x) if adjoint_arg else x
        pieces = split_rows(x, self._dims())
        n = len(self._operators)
        out = []
        for i in range(n):
            if adjoint:
                # Row i of A^H: blocks operators[j][i]^H for j >= i.
                terms = [self._operators[j][i].matmul(pieces[j], adjoint=True)
                         for j in range(i, n)]
            else:
                terms = [self._operators[i][j].matmul(pieces[j]) for j in range(i + 1)]
            total = terms[0]
            for t in terms[1:]:
                total = total + t
            out.append(total)
        return array_ops.concat(broadcast_batch(out), axis=-2)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_api.adjoint(rhs) if adjoint_arg else rhs
        pieces = split_rows(rhs, self._dims())
        n = len(self._operators)
        solution = [None] * n
        order = range(n - 1, -1, -1) if adjoint else range(n)
        for i in order:
            r = pieces[i]
            if adjoint:
                for j in range(i + 1, n):
                    r = r - self._operators[j][i].matmul(solution[j], adjoint=True)
            else:
                for j in range(i):
                    r = r - self._operators[i][j].matmul(solution[j])
            solution[i] = self._diagonal_operators[i].solve(r, adjoint=adjoint)
        return array_ops.concat(broadcast_batch(solution), axis=-2)

    def _determinant(self):
        result = self._diagonal_operators[0].determinant()
        for op in self._diagonal_operators[1:]:
            result = result * op.determinant()
        return result

    def _log_abs_determinant(self):
        terms = [op.log_abs_determinant() for op in self._diagonal_operators]
        if len({t.dtype for t in terms}) > 1:
            terms = [math_ops.cast(t, self.dtype) for t in terms]
        result = terms[0]
        for t in terms[1:]:
            result = result + t
        return result

    def _trace(self):
        result = self._diagonal_operators[0].trace()
        for op in self._diagonal_operators[1:]:
            result = result + op.trace()
        return result

    def _diag_part(self):
        parts = [array_ops.expand_dims(op.diag_part(), -2) for op in self._diagonal_operators]
        return array_ops.squeeze(array_ops.concat(broadcast_batch(parts), -1), -2)

    def _to_dense(self):
        dims = self._dims()
        rows = []
        for i, row in enumerate(self._operators):
            dense = [op.to_dense() for op in row]
            right = sum(dims[i + 1:]) if i + 1 < len(dims) else 0
            lead = dense[0]
            dense.append(array_ops.zeros(array_ops.concat(
                [array_ops.shape(lead)[:-1], array_ops.reshape(right, [1])], 0), self.dtype))
            rows.append(array_ops.concat(broadcast_batch(dense), -1))
        return array_ops.concat(broadcast_batch(rows), axis=-2)
