"""`tf.linalg.LinearOperatorTridiag`: a [batch] tridiagonal matrix given by its three
diagonals, in TensorFlow's "compact", "sequence" or "matrix" format."""
from trainflow._src.framework.scopes import name_scope
from trainflow._src.linalg.linear_operator import util
from trainflow._src.linalg.linear_operator.base import LinearOperator
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.math import math_ops

_COMPACT, _SEQUENCE, _MATRIX = "compact", "sequence", "matrix"


class LinearOperatorTridiag(LinearOperator):
    """`LinearOperator` acting like a tridiagonal matrix.

    `diagonals` is, by `diagonals_format`: "compact", one [..., 3, N] tensor holding
    the superdiagonal (its last entry ignored), the diagonal and the subdiagonal (its
    first entry ignored); "sequence", a list of those three [..., N] tensors;
    "matrix", the [..., N, N] matrix itself (entries off the three diagonals ignored).

    Raises:
      ValueError: for an unknown format or a sequence not of three tensors.
    """

    def __init__(self, diagonals, diagonals_format=_COMPACT, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorTridiag"):
        parameters = dict(diagonals=diagonals, diagonals_format=diagonals_format,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with name_scope(name):
            if diagonals_format not in (_COMPACT, _SEQUENCE, _MATRIX):
                raise ValueError("Diagonals Format must be one of compact, matrix, sequence"
                                 ". Got : {}".format(diagonals_format))
            if diagonals_format == _SEQUENCE:
                if len(diagonals) != 3:
                    raise ValueError("Expected diagonals to be a sequence of length 3.")
                self._diagonals = [util.convert_nonref(d, name="diag_{}".format(i))
                                   for i, d in enumerate(diagonals)]
                dtype = self._diagonals[0].dtype
            else:
                self._diagonals = util.convert_nonref(diagonals, name="diagonals")
                dtype = self._diagonals.dtype
            self._diagonals_format = diagonals_format
            if is_square is False:
                raise ValueError("Only square tridiagonal operators are supported.")
            super().__init__(dtype=dtype, is_non_singular=is_non_singular,
                             is_self_adjoint=is_self_adjoint,
                             is_positive_definite=is_positive_definite, is_square=True,
                             parameters=parameters, name=name)

    @property
    def diagonals(self):
        """The diagonals as given."""
        return self._diagonals

    @property
    def diagonals_format(self):
        """"compact", "sequence" or "matrix"."""
        return self._diagonals_format

    def _three(self):
        """(superdiagonal, diagonal, subdiagonal), each [..., N]."""
        if self._diagonals_format == _SEQUENCE:
            return tuple(self._diagonals)
        if self._diagonals_format == _COMPACT:
            d = self._diagonals
            return d[..., 0, :], d[..., 1, :], d[..., 2, :]
        m = self._diagonals
        diag = linalg_api.diag_part(m)
        zero = array_ops.zeros_like(diag[..., :1])
        sup = array_ops.concat([linalg_api.diag_part(m[..., :-1, 1:]), zero], -1)
        sub = array_ops.concat([zero, linalg_api.diag_part(m[..., 1:, :-1])], -1)
        return sup, diag, sub

    def _shape(self):
        if self._diagonals_format == _MATRIX:
            return util.static_shape(self._diagonals)
        if self._diagonals_format == _SEQUENCE:
            s = util.static_shape(self._diagonals[0])
            for d in self._diagonals[1:]:
                s = array_ops.broadcast_static_shape(s, util.static_shape(d))
            return s.concatenate(s[-1:])
        s = util.static_shape(self._diagonals)
        return s[:-2].concatenate(s[-1:]).concatenate(s[-1:])

    def _shape_tensor(self):
        if self._diagonals_format == _MATRIX:
            return array_ops.shape(self._diagonals)
        if self._diagonals_format == _SEQUENCE:
            s = array_ops.shape(self._diagonals[0])
            return array_ops.concat([s, s[-1:]], 0)
        s = array_ops.shape(self._diagonals)
        return array_ops.concat([s[:-2], s[-1:], s[-1:]], 0)

    def _to_dense(self):
        if self._diagonals_format == _MATRIX:
            return linalg_api.band_part(self._diagonals, 1, 1)
        # Superdiagonals align left and subdiagonals right: the ignored entries are the
        # superdiagonal's last and the subdiagonal's first, as in the compact format.
        bands = self._diagonals if self._diagonals_format == _COMPACT else \
            array_ops.stack(list(self._three()), axis=-2)
        return linalg_api.diag(bands, k=(-1, 1), align="LEFT_RIGHT")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _diag_part(self):
        return self._three()[1]

    def _trace(self):
        return math_ops.reduce_sum(self._three()[1], axis=-1)

