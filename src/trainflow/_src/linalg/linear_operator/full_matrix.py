"""`tf.linalg.LinearOperatorFullMatrix`: an operator holding its dense [batch] matrix."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.linalg.linear_operator import util
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops

_ALLOWED = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64,
            dtypes.complex128)


class LinearOperatorFullMatrix(LinearOperator):
    """`LinearOperator` wrapping a [batch] matrix of shape [B1, ..., Bb, M, N].

    Raises:
      TypeError: if the matrix is not float16/32/64 or complex64/128.
      ValueError: if it has fewer than 2 dimensions.
    """

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorFullMatrix"):
        parameters = dict(matrix=matrix, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with name_scope(name, values=[matrix]):
            self._matrix = util.convert_nonref(matrix, name="matrix")
            dtype = self._matrix.dtype.base_dtype
            if dtype not in _ALLOWED:
                raise TypeError("Argument matrix must have dtype in %s.  Found: %s"
                                % ([d.name for d in _ALLOWED], dtype))
            if self._matrix.shape.ndims is not None and self._matrix.shape.ndims < 2:
                raise ValueError("Argument matrix must have at least 2 dimensions.  Found: %s"
                                 % self._matrix)
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def matrix(self):
        """The dense matrix."""
        return self._matrix

    def _shape(self):
        return util.static_shape(self._matrix)

    def _shape_tensor(self):
        return array_ops.shape(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _to_dense(self):
        return self._matrix
