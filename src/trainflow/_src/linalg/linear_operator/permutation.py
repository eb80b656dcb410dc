"""`tf.linalg.LinearOperatorPermutation`: the [batch] permutation matrix P with
P[i, perm[i]] = 1, so that (P x)[i] = x[perm[i]]."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_util import get_static_value
from trainflow._src.linalg.linear_operator import util
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.math import math_ops


class LinearOperatorPermutation(LinearOperator):
    """`LinearOperator` acting like the permutation matrix of `perm` (shape [..., N],
    integers), with entries of `dtype`.

    Raises:
      TypeError: if perm is not integer.
      ValueError: if perm is a scalar, or statically not a permutation.
    """

    def __init__(self, perm, dtype=dtypes.float32, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorPermutation"):
        parameters = dict(perm=perm, dtype=dtype, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with name_scope(name, values=[perm]):
            self._perm = util.convert_nonref(perm, name="perm")
            if not self._perm.dtype.is_integer:
                raise TypeError("Argument perm must have integer dtype. Found: %s"
                                % self._perm.dtype)
            if self._perm.shape.ndims is not None and self._perm.shape.ndims < 1:
                raise ValueError("Argument perm must have at least 1 dimension.  Found: %s"
                                 % self._perm)
            static = get_static_value(self._perm)
            if static is not None:
                if not np.all(np.sort(static, axis=-1) == np.arange(static.shape[-1])):
                    raise ValueError("Argument perm is not a permutation.  Found: %s" % static)
            if is_non_singular is False:
                raise ValueError("A Permutation operator is always non-singular.")
            if is_square is False:
                raise ValueError("A Permutation operator is always square.")
            is_square = True
            super().__init__(dtype=dtype, is_non_singular=True,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def perm(self):
        """The permutation."""
        return self._perm

    def _shape(self):
        s = util.static_shape(self._perm)
        return s.concatenate(s[-1:])

    def _shape_tensor(self):
        s = array_ops.shape(self._perm)
        return array_ops.concat([s, s[-1:]], 0)

    def _matrix(self):
        return array_ops.one_hot(self._perm, array_ops.shape(self._perm)[-1],
                                 dtype=self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        # One-hot rows: the product picks rows of x exactly, as TF's gather does.
        return math_ops.matmul(self._matrix(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        # The inverse of a permutation matrix is its transpose.
        return math_ops.matmul(self._matrix(), rhs, adjoint_a=not adjoint,
                               adjoint_b=adjoint_arg)

    def _determinant(self):
        return linalg_api.matrix_determinant(self._matrix())

    def _log_abs_determinant(self):
        return array_ops.zeros(array_ops.shape(self._perm)[:-1], dtype=self.dtype)

    def _to_dense(self):
        return self._matrix()

    def _diag_part(self):
        n = array_ops.shape(self._perm)[-1]
        return math_ops.cast(math_ops.equal(
            self._perm, math_ops.range(math_ops.cast(n, self._perm.dtype))), self.dtype)

    def _cond(self):
        return array_ops.ones(array_ops.shape(self._perm)[:-1], dtype=self.dtype.real_dtype)
