"""`tf.linalg.LinearOperatorHouseholder`: the reflection I - 2 v v^H / (v^H v) about
the hyperplane orthogonal to v."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.linalg.linear_operator import util
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow.grouping import no_op
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.math import math_ops


class LinearOperatorHouseholder(LinearOperator):
    """`LinearOperator` acting like a [batch] Householder reflection about
    `reflection_axis` (shape [..., N]).

    Raises:
      ValueError: if a hint is impossible for a reflection.
    """

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None,
                 name="LinearOperatorHouseholder"):
        parameters = dict(reflection_axis=reflection_axis, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with name_scope(name, values=[reflection_axis]):
            self._reflection_axis = util.convert_nonref(reflection_axis,
                                                        name="reflection_axis")
            util.assert_float_or_complex(self._reflection_axis, "reflection_axis")
            if self._reflection_axis.shape.ndims is not None and \
                    self._reflection_axis.shape.ndims < 1:
                raise ValueError("Argument reflection_axis must have at least 1 dimension.  "
                                 "Found: %s" % self._reflection_axis)
            if is_self_adjoint is False:
                raise ValueError("A Householder operator is always self adjoint.")
            is_self_adjoint = True
            if is_positive_definite is True:
                raise ValueError("A Householder operator is always non-positive definite.")
            is_positive_definite = False
            if is_square is False:
                raise ValueError("A Householder operator is always square.")
            is_square = True
            super().__init__(dtype=self._reflection_axis.dtype,
                             is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=is_square,
                             parameters=parameters, name=name)

    @property
    def reflection_axis(self):
        """The vector v the reflection is about."""
        return self._reflection_axis

    def _shape(self):
        s = util.static_shape(self._reflection_axis)
        return s.concatenate(s[-1:])

    def _shape_tensor(self):
        s = array_ops.shape(self._reflection_axis)
        return array_ops.concat([s, s[-1:]], 0)

    def _unit_axis(self):
        v = self._reflection_axis
        norm = math_ops.sqrt(math_ops.reduce_sum(math_ops.real(v * math_ops.conj(v)),
                                                 axis=-1, keepdims=True))
        return v / math_ops.cast(norm, v.dtype)

    def _assert_non_singular(self):
        return no_op("assert_non_singular")

    def _assert_positive_definite(self):
        raise ValueError("Householder operators are always non-positive definite.")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        # Self-adjoint: `adjoint` changes nothing.
        x = linalg_api.adjoint(x) if adjoint_arg else x
        u = self._unit_axis()
        projection = math_ops.reduce_sum(array_ops.expand_dims(math_ops.conj(u), -1) * x,
                                         axis=-2, keepdims=True)
        return x - 2 * array_ops.expand_dims(u, -1) * projection

    def _trace(self):
        n = math_ops.cast(self._shape_tensor()[-1], self.dtype)
        batch = array_ops.shape(self._reflection_axis)[:-1]
        return array_ops.fill(batch, n - 2)

    def _determinant(self):
        batch = array_ops.shape(self._reflection_axis)[:-1]
        return -array_ops.ones(batch, dtype=self.dtype)

    def _log_abs_determinant(self):
        batch = array_ops.shape(self._reflection_axis)[:-1]
        return array_ops.zeros(batch, dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        # A Householder reflection is its own inverse.
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _to_dense(self):
        u = self._unit_axis()
        eye = linalg_api.eye(num_rows=self._shape_tensor()[-1], dtype=self.dtype)
        outer = array_ops.expand_dims(u, -1) * array_ops.expand_dims(math_ops.conj(u), -2)
        return eye - 2 * outer

    def _diag_part(self):
        u = self._unit_axis()
        return 1 - 2 * u * math_ops.conj(u)

    def _eigvals(self):
        n = self._shape_tensor()[-1]
        batch = array_ops.shape(self._reflection_axis)[:-1]
        ones = array_ops.ones(array_ops.concat([batch, array_ops.reshape(n - 1, [1])], 0),
                              dtype=self.dtype)
        return array_ops.concat([-array_ops.ones(array_ops.concat(
            [batch, [1]], 0), dtype=self.dtype), ones], -1)

    def _cond(self):
        return array_ops.ones(array_ops.shape(self._reflection_axis)[:-1],
                              dtype=self.dtype.real_dtype)

    def _linop_adjoint(self):
        return self

    def _linop_inverse(self):
        return self
