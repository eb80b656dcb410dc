"""`tf.linalg.LinearOperatorIdentity`: the [batch] identity matrix, with no storage."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import get_static_value
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow.grouping import no_op
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.math import math_ops


def check_num_rows(num_rows):
    """num_rows as an int32 Tensor; ValueError when statically negative or not scalar."""
    num_rows = convert_to_tensor(num_rows, name="num_rows")
    if not num_rows.dtype.is_integer:
        raise TypeError("Argument num_rows must be integer type.  Found: %s" % num_rows)
    if num_rows.shape.ndims is not None and num_rows.shape.ndims != 0:
        raise ValueError("Argument num_rows must be a 0-D Tensor.  Found: %s" % num_rows)
    static = get_static_value(num_rows)
    if static is not None and static < 0:
        raise ValueError("Argument num_rows must be non-negative.  Found: %s" % static)
    if num_rows.dtype.base_dtype != dtypes.int32:
        num_rows = math_ops.cast(num_rows, dtypes.int32)
    return num_rows


def static_int(t):
    """The Python value of a constant integer tensor, else None."""
    v = get_static_value(t)
    return None if v is None else np.asarray(v).tolist()


class LinearOperatorIdentity(LinearOperator):
    """`LinearOperator` acting like a [batch] identity matrix of size num_rows.

    Raises:
      ValueError: if a hint is not True, or num_rows / batch_shape are bad.
    """

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True,
                 is_self_adjoint=True, is_positive_definite=True, is_square=True,
                 assert_proper_shapes=False, name="LinearOperatorIdentity"):
        parameters = dict(num_rows=num_rows, batch_shape=batch_shape, dtype=dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        dtype = dtype or dtypes.float32
        self._assert_proper_shapes = assert_proper_shapes
        with name_scope(name):
            dtype = dtypes.as_dtype(dtype)
            if not is_self_adjoint:
                raise ValueError("An identity operator is always self adjoint.")
            if not is_non_singular:
                raise ValueError("An identity operator is always non-singular.")
            if not is_positive_definite:
                raise ValueError("An identity operator is always positive-definite.")
            if not is_square:
                raise ValueError("An identity operator is always square.")
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)
            self._num_rows = check_num_rows(num_rows)
            self._num_rows_static = static_int(self._num_rows)
            if batch_shape is None:
                self._batch_shape_arg = None
                self._batch_shape_static = None
            else:
                self._batch_shape_arg = convert_to_tensor(batch_shape, dtype=dtypes.int32,
                                                          name="batch_shape_arg")
                if self._batch_shape_arg.shape.ndims not in (None, 1):
                    raise ValueError("Argument batch_shape must be a 1-D Tensor.  Found: %s"
                                     % self._batch_shape_arg)
                self._batch_shape_static = static_int(self._batch_shape_arg)
                if self._batch_shape_static is not None and \
                        any(d < 0 for d in self._batch_shape_static):
                    raise ValueError("Argument batch_shape must be non-negative.  Found: %s"
                                     % self._batch_shape_static)

    def _shape(self):
        matrix = TensorShape([self._num_rows_static, self._num_rows_static])
        if self._batch_shape_arg is None:
            return matrix
        if self._batch_shape_static is None:
            return TensorShape([None] * int(self._batch_shape_arg.shape[0] or 0)
                               if self._batch_shape_arg.shape[0] is not None
                               else None).concatenate(matrix)
        return TensorShape(self._batch_shape_static).concatenate(matrix)

    def _shape_tensor(self):
        matrix = array_ops.stack([self._num_rows, self._num_rows])
        if self._batch_shape_arg is None:
            return matrix
        return array_ops.concat([self._batch_shape_arg, matrix], 0)

    def _batch_list(self):
        if self._batch_shape_arg is None:
            return []
        if self._batch_shape_static is not None:
            return list(self._batch_shape_static)
        return self._batch_shape_arg

    def _full(self, extra, value):
        """A tensor of `value` with shape batch_shape + extra."""
        batch = self._batch_list()
        if isinstance(batch, Tensor) or any(isinstance(e, Tensor) for e in extra):
            shape = array_ops.concat([batch if isinstance(batch, Tensor) else
                                      constant(batch, dtype=dtypes.int32),
                                      array_ops.reshape(array_ops.stack(extra), [-1])
                                      if extra else constant([], dtype=dtypes.int32)], 0)
        else:
            shape = list(batch) + list(extra)
        return array_ops.fill(shape, constant(value, dtype=self.dtype))

    def _n(self):
        return self._num_rows_static if self._num_rows_static is not None else self._num_rows

    def _possibly_broadcast_batch_shape(self, x):
        """x broadcast against the operator's batch shape (x is returned unchanged when
        the operator has none)."""
        if self._batch_shape_arg is None:
            return x
        zeros = self._full([1, 1], 0)
        return x + zeros

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = linalg_api.adjoint(x) if adjoint_arg else x
        return self._possibly_broadcast_batch_shape(x)

    def _determinant(self):
        return self._full([], 1)

    def _log_abs_determinant(self):
        return self._full([], 0)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _trace(self):
        return self._full([], 1) * math_ops.cast(self._n(), self.dtype)

    def _diag_part(self):
        return self._full([self._n()], 1)

    def _to_dense(self):
        batch = self._batch_list()
        return linalg_api.eye(num_rows=self._n(), batch_shape=batch or None,
                              dtype=self.dtype)

    def _add_to_tensor(self, x):
        x_diag = linalg_api.diag_part(x)
        return linalg_api.set_diag(x, x_diag + 1)

    def _eigvals(self):
        return self._diag_part()

    def _cond(self):
        return self._full([], 1)

    def _assert_non_singular(self):
        return no_op("assert_non_singular")

    def _assert_positive_definite(self):
        return no_op("assert_positive_definite")

    def _assert_self_adjoint(self):
        return no_op("assert_self_adjoint")

    def _linop_adjoint(self):
        return self

    def _linop_inverse(self):
        return self

    def _linop_cholesky(self):
        return self

    def _linop_matmul(self, left, right):
        return right

    def _linop_solve(self, left, right):
        return right
