"""`tf.linalg.LinearOperatorToeplitz`: a [batch] Toeplitz matrix given by its first
column and first row (A[i, j] = col[i - j] below the diagonal, row[j - i] above)."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.linalg.linear_operator import util
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops


class LinearOperatorToeplitz(LinearOperator):
    """`LinearOperator` acting like the Toeplitz matrix of `col` and `row` (both
    [..., N]; row[..., 0] is ignored: the diagonal is col[..., 0])."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorToeplitz"):
        parameters = dict(col=col, row=row, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with name_scope(name, values=[row, col]):
            self._row = util.convert_nonref(row, name="row")
            self._col = util.convert_nonref(col, name="col")
            util.assert_float_or_complex(self._row, "row")
            util.assert_float_or_complex(self._col, "col")
            if self._row.dtype != self._col.dtype:
                raise TypeError("row and col must have the same dtype: %s vs %s"
                                % (self._row.dtype, self._col.dtype))
            super().__init__(dtype=self._row.dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def col(self):
        """The first column."""
        return self._col

    @property
    def row(self):
        """The first row."""
        return self._row

    def _shape(self):
        v = array_ops.broadcast_static_shape(util.static_shape(self._row),
                                             util.static_shape(self._col))
        return v.concatenate(v[-1:])

    def _shape_tensor(self):
        v = array_ops.broadcast_dynamic_shape(array_ops.shape(self._row),
                                              array_ops.shape(self._col))
        return array_ops.concat([v, v[-1:]], 0)

    def _to_dense(self):
        n = array_ops.shape(self._col)[-1]
        # values = [row[n-1], ..., row[1], col[0], ..., col[n-1]]; A[i, j] = values[n-1+i-j]
        values = array_ops.concat([array_ops.reverse(self._row[..., 1:], [-1]), self._col], -1)
        i = array_ops.expand_dims(math_ops.range(n), -1)
        j = array_ops.expand_dims(math_ops.range(n), 0)
        index = n - 1 + i - j
        row_batch, col_batch = self._row[..., :1], self._col[..., :1]
        values = values + array_ops.zeros_like(row_batch) + array_ops.zeros_like(col_batch)
        return _batched_take(values, index)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _diag_part(self):
        diag_entry = self._col[..., 0:1]
        return diag_entry * array_ops.ones(array_ops.shape(self._row)[-1:], self.dtype)

    def _trace(self):
        return math_ops.reduce_sum(self._diag_part(), axis=-1)


def _batched_take(values, index):
    """values[..., index] for a [..., L] batch of vectors and an [N, N] index."""
    n = array_ops.shape(index)[0]
    flat = array_ops.reshape(index, [-1])
    taken = array_ops.gather(values, flat, axis=-1)
    return array_ops.reshape(taken, array_ops.concat(
        [array_ops.shape(values)[:-1], array_ops.stack([n, n])], 0))
