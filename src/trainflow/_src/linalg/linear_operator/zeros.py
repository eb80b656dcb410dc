"""`tf.linalg.LinearOperatorZeros`: the [batch] zero matrix, with no storage."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.linalg.linear_operator.identity import check_num_rows, static_int
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops


class LinearOperatorZeros(LinearOperator):
    """`LinearOperator` acting like a [batch] zero matrix of shape
    [..., num_rows, num_columns].

    Raises:
      ValueError: if a hint is impossible for zeros or is_square contradicts the shape.
    """

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None,
                 is_non_singular=False, is_self_adjoint=True, is_positive_definite=False,
                 is_square=True, assert_proper_shapes=False, name="LinearOperatorZeros"):
        parameters = dict(num_rows=num_rows, num_columns=num_columns,
                          batch_shape=batch_shape, dtype=dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        dtype = dtypes.as_dtype(dtype or dtypes.float32)
        self._assert_proper_shapes = assert_proper_shapes
        with name_scope(name):
            if not is_self_adjoint and is_square:
                raise ValueError("A zero operator is always self adjoint.")
            if is_non_singular:
                raise ValueError("A zero operator is always singular.")
            if is_positive_definite:
                raise ValueError("A zero operator is always not positive-definite.")
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)
            self._num_rows = check_num_rows(num_rows)
            self._num_rows_static = static_int(self._num_rows)
            self._num_columns = check_num_rows(num_rows if num_columns is None
                                               else num_columns)
            self._num_columns_static = static_int(self._num_columns)
            if self._num_rows_static is not None and self._num_columns_static is not None:
                if is_square and self._num_rows_static != self._num_columns_static:
                    raise ValueError(
                        "LinearOperatorZeros initialized as is_square=True, but got "
                        "num_rows({}) != num_columns({})".format(
                            self._num_rows_static, self._num_columns_static))
            if batch_shape is None:
                self._batch_shape_arg = None
                self._batch_shape_static = None
            else:
                self._batch_shape_arg = convert_to_tensor(batch_shape, dtype=dtypes.int32,
                                                          name="batch_shape_arg")
                self._batch_shape_static = static_int(self._batch_shape_arg)
                if self._batch_shape_static is not None and \
                        any(d < 0 for d in self._batch_shape_static):
                    raise ValueError("Argument batch_shape must be non-negative.  Found: %s"
                                     % self._batch_shape_static)

    def _shape(self):
        matrix = TensorShape([self._num_rows_static, self._num_columns_static])
        if self._batch_shape_arg is None:
            return matrix
        if self._batch_shape_static is None:
            return TensorShape(None)
        return TensorShape(self._batch_shape_static).concatenate(matrix)

    def _shape_tensor(self):
        matrix = array_ops.stack([self._num_rows, self._num_columns])
        if self._batch_shape_arg is None:
            return matrix
        return array_ops.concat([self._batch_shape_arg, matrix], 0)

    def _zeros(self, shape):
        return array_ops.zeros(shape, dtype=self.dtype)

    def _possibly_broadcast_batch_shape(self, x):
        if self._batch_shape_arg is None:
            return x
        special = array_ops.concat([self._batch_shape_arg,
                                    constant([1, 1], dtype=dtypes.int32)], 0)
        return x + array_ops.zeros(special, dtype=self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x_shape = array_ops.shape(x)
        n = self._num_columns if adjoint else self._num_rows
        m = x_shape[-2] if adjoint_arg else x_shape[-1]
        out_shape = array_ops.concat([x_shape[:-2], array_ops.stack(
            [_int32(n), m])], 0)
        return self._possibly_broadcast_batch_shape(array_ops.zeros(out_shape, dtype=x.dtype))

    def _filled(self, extra):
        return array_ops.zeros(array_ops.concat(
            [constant([], dtype=dtypes.int32) if self._batch_shape_arg is None
             else self._batch_shape_arg,
             array_ops.reshape(array_ops.stack(extra), [-1]) if extra
             else constant([], dtype=dtypes.int32)], 0), dtype=self.dtype)

    def _determinant(self):
        return self._filled([])

    def _log_abs_determinant(self):
        return self._filled([]) + np.array(-np.inf, self.dtype.real_dtype.as_numpy_dtype)

    def _trace(self):
        return self._filled([])

    def _diag_part(self):
        return self._filled([_int32(math_ops.minimum(self._num_rows, self._num_columns))])

    def _to_dense(self):
        return self._filled([_int32(self._num_rows), _int32(self._num_columns)])

    def _add_to_tensor(self, x):
        return self._possibly_broadcast_batch_shape(x)

    def _eigvals(self):
        return self._diag_part()

    def _assert_non_singular(self):
        raise NotImplementedError("Zero operators are always non-invertible.")

    def _linop_adjoint(self):
        return LinearOperatorZeros(
            num_rows=self._num_columns, num_columns=self._num_rows,
            batch_shape=self._batch_shape_arg, dtype=self.dtype,
            is_non_singular=False, is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=False, is_square=self.is_square)

    def _linop_matmul(self, left, right):
        if not left.is_square or not right.is_square:
            raise ValueError("Matmul with non-square `LinearOperator`s or non-square "
                             "`LinearOperatorZeros` not supported at this time.")
        return left if left is self else right


def _int32(n):
    """An int32 scalar tensor of a row or column count."""
    return math_ops.cast(n, dtypes.int32)
