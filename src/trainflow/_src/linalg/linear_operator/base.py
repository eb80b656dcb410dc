"""`tf.linalg.LinearOperator`: the abstract base of operators that act like (batches of)
matrices without always holding one. Subclasses give `_shape`, `_shape_tensor` and
`_matmul`; everything else has a dense default that a subclass may make faster.
Every method opens the scope `<operator name>/<method name>` as TensorFlow does."""
import abc
import contextlib

import numpy as np

from trainflow._src import tf_logging
from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import get_default_graph
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, dimension_value
from trainflow._src.linalg.linear_operator import util
from trainflow._src.module.module import Module
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.linalg import linalg_api
from trainflow._src.ops.linalg.eig import self_adjoint_eigvals
from trainflow._src.ops.math import math_ops


class LinearOperator(Module, metaclass=abc.ABCMeta):
    """Base class for operators acting like `[batch] matrices` of shape [..., M, N].

    Args:
      dtype: the dtype of the tensors the operator takes and returns.
      graph_parents: (deprecated) tensors the operator depends on.
      is_non_singular, is_self_adjoint, is_positive_definite, is_square: hints that
        select faster paths; None means unknown.
      name: the name prefixed to every op the operator makes.
      parameters: the dict of arguments the operator was made with.

    Raises:
      ValueError: if the hints contradict each other.
    """

    def __init__(self, dtype, graph_parents=None, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name=None, parameters=None):
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._is_square_set_or_implied_by_hints = is_square
        self._graph_parents = []
        if graph_parents is not None:
            for i, t in enumerate(graph_parents):
                if t is None or not isinstance(t, Tensor):
                    raise ValueError("Graph parent item %d is not a Tensor; %s." % (i, t))
            self._graph_parents = list(graph_parents)
        self._dtype = dtypes.as_dtype(dtype).base_dtype if dtype else dtype
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._parameters = dict(parameters or {})
        self._name = name or type(self).__name__

    @contextlib.contextmanager
    def _name_scope(self, name=None):
        full_name = self.name if name is None else self.name + "/" + name
        with get_default_graph().name_scope(full_name) as scope:
            yield scope

    @property
    def name_scope(self):
        """The scope the operator's ops go under."""
        return self._name_scope()

    # -- properties -------------------------------------------------------------------
    @property
    def parameters(self):
        """The arguments the operator was made with."""
        return dict(self._parameters)

    @property
    def dtype(self):
        """The DType of the tensors the operator handles."""
        return self._dtype

    @property
    def name(self):
        """The name prefixed to the operator's ops."""
        return self._name

    @property
    def graph_parents(self):
        """(Deprecated) the tensors given as graph parents."""
        return self._graph_parents

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        """Whether the operator is square (from its shape when no hint says)."""
        auto = self.domain_dimension == self.range_dimension
        if self._is_square_set_or_implied_by_hints is False and auto:
            raise ValueError("User set is_square hint to False, but the operator was square.")
        if self._is_square_set_or_implied_by_hints is None:
            return auto
        return self._is_square_set_or_implied_by_hints

    # -- shapes -----------------------------------------------------------------------
    @abc.abstractmethod
    def _shape(self):
        """The static TensorShape [B1, ..., Bb, M, N]."""

    def _shape_tensor(self):
        if self.shape.is_fully_defined():
            return constant(self.shape.as_list(), dtype=dtypes.int32, name="shape")
        raise NotImplementedError(f"{type(self).__name__} has no dynamic shape.")

    @property
    def shape(self):
        """The static TensorShape of the operator, [B1, ..., Bb, M, N]."""
        return self._shape()

    def shape_tensor(self, name="shape_tensor"):
        """The shape as an int32 1-D Tensor."""
        with self._name_scope(name):
            if self.shape.is_fully_defined():
                return constant(self.shape.as_list(), dtype=dtypes.int32)
            return self._shape_tensor()

    @property
    def batch_shape(self):
        """The static batch shape [B1, ..., Bb]."""
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        """The batch shape as an int32 1-D Tensor."""
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return constant(self.batch_shape.as_list(), dtype=dtypes.int32)
            return self._shape_tensor()[:-2]

    @property
    def tensor_rank(self):
        """The static rank b + 2 (None when unknown)."""
        return self.shape.ndims

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        """The rank as an int32 scalar Tensor."""
        with self._name_scope(name):
            if self.tensor_rank is not None:
                return constant(self.tensor_rank, dtype=dtypes.int32)
            return array_ops.size(self._shape_tensor())

    @property
    def domain_dimension(self):
        """N, the number of columns (a Dimension; None inside when unknown)."""
        if self.shape.rank is None:
            return None
        return self.shape.dims[-1]

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        """N as an int32 scalar Tensor."""
        with self._name_scope(name):
            n = dimension_value(self.domain_dimension)
            if n is not None:
                return constant(n, dtype=dtypes.int32)
            return self._shape_tensor()[-1]

    @property
    def range_dimension(self):
        """M, the number of rows (a Dimension; None inside when unknown)."""
        if self.shape.rank is None:
            return None
        return self.shape.dims[-2]

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        """M as an int32 scalar Tensor."""
        with self._name_scope(name):
            m = dimension_value(self.range_dimension)
            if m is not None:
                return constant(m, dtype=dtypes.int32)
            return self._shape_tensor()[-2]

    # -- assertions -------------------------------------------------------------------
    def _max_condition_number_to_be_non_singular(self):
        with get_default_graph().name_scope("max_nonsingular_condition_number"):
            eps = np.finfo(self.dtype.real_dtype.as_numpy_dtype).eps
            dims = [dimension_value(self.range_dimension), dimension_value(self.domain_dimension)]
            if None not in dims:
                return constant(1.0 / (max([100.0] + [float(d) for d in dims]) * eps),
                                dtype=self.dtype.real_dtype)
            biggest = math_ops.reduce_max(array_ops.stack([
                constant(100.0, dtype=self.dtype.real_dtype),
                math_ops.cast(self.range_dimension_tensor(), self.dtype.real_dtype),
                math_ops.cast(self.domain_dimension_tensor(), self.dtype.real_dtype)]))
            return 1.0 / (biggest * eps)

    def _assert_non_singular(self):
        tf_logging.warning("Using (possibly slow) default implementation of "
                           "assert_non_singular.  Requires conversion to a dense matrix "
                           "and O(N^3) operations.")
        if self._can_use_cholesky():
            return self.assert_positive_definite()
        singular_values = linalg_api.svd(self.to_dense(), compute_uv=False)
        cond = (math_ops.reduce_max(singular_values, axis=-1)
                / math_ops.reduce_min(singular_values, axis=-1))
        return check_ops.assert_less(cond, self._max_condition_number_to_be_non_singular(),
                                     message="Singular matrix up to precision epsilon.")

    def assert_non_singular(self, name="assert_non_singular"):
        """An op failing with InvalidArgumentError when the operator is singular."""
        with self._name_scope(name):
            return self._assert_non_singular()

    def _assert_positive_definite(self):
        if self.is_self_adjoint:
            return check_ops.assert_positive(
                linalg_api.diag_part(linalg_api.cholesky(self.to_dense())),
                message="Matrix was not positive definite.")
        raise NotImplementedError("assert_positive_definite is not implemented.")

    def assert_positive_definite(self, name="assert_positive_definite"):
        """An op failing with InvalidArgumentError when the operator is not positive
        definite."""
        with self._name_scope(name):
            return self._assert_positive_definite()

    def _assert_self_adjoint(self):
        dense = self.to_dense()
        return check_ops.assert_equal(dense, linalg_api.adjoint(dense),
                                      message="Matrix was not equal to its adjoint.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        """An op failing with InvalidArgumentError when the operator is not self-adjoint."""
        with self._name_scope(name):
            return self._assert_self_adjoint()

    def _check_input_dtype(self, arg):
        if arg.dtype.base_dtype != self.dtype:
            raise TypeError("Expected argument to have dtype %s.  Found: %s in tensor %s"
                            % (self.dtype, arg.dtype, arg))

    # -- products ---------------------------------------------------------------------
    @abc.abstractmethod
    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        """The product with a Tensor x, of shape [..., M, R]."""

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """`A x` (or `A^H x`, `A x^H`): a Tensor for a Tensor x, a LinearOperator for an
        operator x."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            lhs, rhs = dimension_value(right.range_dimension), dimension_value(
                left.domain_dimension)
            if lhs is not None and rhs is not None and lhs != rhs:
                raise ValueError("Operators are incompatible. Expected `x` to have dimension"
                                 " {} but got {}.".format(rhs, lhs))
            with self._name_scope(name):
                return self._linop_matmul(left, right)
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self_dim = -2 if adjoint else -1
            arg_dim = -1 if adjoint_arg else -2
            if self.shape.rank is not None and x.shape.rank is not None:
                self.shape.dims[self_dim].assert_is_compatible_with(x.shape.dims[arg_dim])
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _linop_matmul(self, left, right):
        # Lazy: the composition and identity modules subclass this one.
        from trainflow._src.linalg.linear_operator import composition, identity
        if isinstance(right, identity.LinearOperatorIdentity):
            return left
        square = util.is_square(left, right)
        non_singular = self_adjoint = positive_definite = None
        if square:
            non_singular = util.combined_non_singular_hint(left, right)
        elif square is False:
            non_singular = self_adjoint = positive_definite = False
        return composition.LinearOperatorComposition(
            operators=[left, right], is_non_singular=non_singular,
            is_self_adjoint=self_adjoint, is_positive_definite=positive_definite,
            is_square=square)

    def __matmul__(self, other):
        return self.matmul(other)

    def _matvec(self, x, adjoint=False):
        x_mat = array_ops.expand_dims(x, axis=-1)
        y_mat = self.matmul(x_mat, adjoint=adjoint)
        return array_ops.squeeze(y_mat, axis=-1)

    def matvec(self, x, adjoint=False, name="matvec"):
        """`A x` for a batch of vectors x of shape [..., N]."""
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self_dim = -2 if adjoint else -1
            if self.shape.rank is not None and x.shape.rank is not None:
                self.shape.dims[self_dim].assert_is_compatible_with(x.shape.dims[-1])
            return self._matvec(x, adjoint=adjoint)

    # -- determinants -----------------------------------------------------------------
    def _determinant(self):
        tf_logging.warning("Using (possibly slow) default implementation of determinant."
                           "  Requires conversion to a dense matrix and O(N^3) operations.")
        if self._can_use_cholesky():
            return math_ops.exp(self.log_abs_determinant())
        return linalg_api.matrix_determinant(self.to_dense())

    def determinant(self, name="det"):
        """The determinant of each matrix of the batch, shape [B1, ..., Bb]."""
        self._check_determinable()
        with self._name_scope(name):
            return self._determinant()

    def _log_abs_determinant(self):
        tf_logging.warning("Using (possibly slow) default implementation of determinant."
                           "  Requires conversion to a dense matrix and O(N^3) operations.")
        if self._can_use_cholesky():
            diag = linalg_api.diag_part(linalg_api.cholesky(self.to_dense()))
            return 2 * math_ops.reduce_sum(math_ops.log(diag), axis=[-1])
        _, log_abs_det = linalg_api.log_matrix_determinant(self.to_dense())
        return log_abs_det

    def log_abs_determinant(self, name="log_abs_det"):
        """log |det A| of each matrix of the batch."""
        self._check_determinable()
        with self._name_scope(name):
            return self._log_abs_determinant()

    # -- solves -----------------------------------------------------------------------
    def _dense_solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = linalg_api.adjoint(rhs) if adjoint_arg else rhs
        if self._can_use_cholesky():
            return linalg_api.cholesky_solve(linalg_api.cholesky(self.to_dense()), rhs)
        return util.matrix_solve_with_broadcast(self.to_dense(), rhs, adjoint=adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        tf_logging.warning("Using (possibly slow) default implementation of solve."
                           "  Requires conversion to a dense matrix and O(N^3) operations.")
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _check_determinable(self):
        if self.is_square is False:
            raise NotImplementedError("Determinant not implemented for an operator that is "
                                      "expected to not be square.")

    def _check_solvable(self):
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to not be square.")

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """X with `A X = rhs` (or `A^H X = rhs`): a Tensor for a Tensor rhs, a
        LinearOperator for an operator rhs."""
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            lhs, rd = dimension_value(right.range_dimension), dimension_value(
                left.domain_dimension)
            if lhs is not None and rd is not None and lhs != rd:
                raise ValueError("Operators are incompatible. Expected `rhs` to have "
                                 "dimension {} but got {}.".format(rd, lhs))
            with self._name_scope(name):
                return self._linop_solve(left, right)
        with self._name_scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self_dim = -1 if adjoint else -2
            arg_dim = -1 if adjoint_arg else -2
            if self.shape.rank is not None and rhs.shape.rank is not None:
                self.shape.dims[self_dim].assert_is_compatible_with(rhs.shape.dims[arg_dim])
            return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _linop_solve(self, left, right):
        # Lazy: the composition, identity and inversion modules subclass this one.
        from trainflow._src.linalg.linear_operator import composition, identity, inversion
        if isinstance(right, identity.LinearOperatorIdentity):
            return left.inverse()
        square = util.is_square(left, right)
        non_singular = self_adjoint = positive_definite = None
        if square:
            non_singular = util.combined_non_singular_hint(left, right)
        elif square is False:
            non_singular = self_adjoint = positive_definite = False
        return composition.LinearOperatorComposition(
            operators=[inversion.LinearOperatorInversion(left), right],
            is_non_singular=non_singular, is_self_adjoint=self_adjoint,
            is_positive_definite=positive_definite, is_square=square)

    def _solvevec(self, rhs, adjoint=False):
        rhs_mat = array_ops.expand_dims(rhs, axis=-1)
        solution_mat = self.solve(rhs_mat, adjoint=adjoint)
        return array_ops.squeeze(solution_mat, axis=-1)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """x with `A x = rhs` for a batch of vectors rhs of shape [..., M]."""
        self._check_solvable()
        with self._name_scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self_dim = -1 if adjoint else -2
            if self.shape.rank is not None and rhs.shape.rank is not None:
                self.shape.dims[self_dim].assert_is_compatible_with(rhs.shape.dims[-1])
            return self._solvevec(rhs, adjoint=adjoint)

    # -- derived operators ------------------------------------------------------------
    def adjoint(self, name="adjoint"):
        """The operator `A^H` (the operator itself when it is self-adjoint)."""
        if self.is_self_adjoint is True:
            return self
        with self._name_scope(name):
            return self._linop_adjoint()

    H = property(adjoint, None)

    def _linop_adjoint(self):
        from trainflow._src.linalg.linear_operator import adjoint  # lazy: a subclass
        return adjoint.LinearOperatorAdjoint(
            self, is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite, is_square=self.is_square)

    def inverse(self, name="inverse"):
        """The operator `A^{-1}`."""
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non "
                             "square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular "
                             "matrix.")
        with self._name_scope(name):
            return self._linop_inverse()

    def _linop_inverse(self):
        from trainflow._src.linalg.linear_operator import inversion  # lazy: a subclass
        return inversion.LinearOperatorInversion(
            self, is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite, is_square=self.is_square)

    def cholesky(self, name="cholesky"):
        """The lower triangular operator L with `A = L L^H`."""
        if not self._can_use_cholesky():
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive "
                             "definite self adjoint matrix.")
        with self._name_scope(name):
            return self._linop_cholesky()

    def _linop_cholesky(self):
        from trainflow._src.linalg.linear_operator import lower_triangular  # lazy: a subclass
        return lower_triangular.LinearOperatorLowerTriangular(
            linalg_api.cholesky(self.to_dense()), is_non_singular=True,
            is_self_adjoint=False, is_square=True)

    # -- dense views ------------------------------------------------------------------
    def _to_dense(self):
        if self.batch_shape.is_fully_defined():
            batch_shape = self.batch_shape.as_list()
        else:
            batch_shape = self.batch_shape_tensor()
        dim_value = dimension_value(self.domain_dimension)
        if dim_value is not None:
            n = dim_value
        else:
            n = self.domain_dimension_tensor()
        eye = linalg_api.eye(num_rows=n, batch_shape=batch_shape, dtype=self.dtype)
        return self.matmul(eye)

    def to_dense(self, name="to_dense"):
        """The dense [batch] matrix the operator stands for."""
        with self._name_scope(name):
            return self._to_dense()

    def _diag_part(self):
        return linalg_api.diag_part(self.to_dense())

    def diag_part(self, name="diag_part"):
        """The diagonal of each matrix, shape [B1, ..., Bb, min(M, N)]."""
        with self._name_scope(name):
            return self._diag_part()

    def _trace(self):
        return math_ops.reduce_sum(self.diag_part(), axis=-1)

    def trace(self, name="trace"):
        """The sum of the diagonal of each matrix."""
        with self._name_scope(name):
            return self._trace()

    def _add_to_tensor(self, x):
        return self.to_dense() + x

    def add_to_tensor(self, x, name="add_to_tensor"):
        """`A + x` as a dense Tensor."""
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            return self._add_to_tensor(x)

    def _eigvals(self):
        return self_adjoint_eigvals(self.to_dense())

    def eigvals(self, name="eigvals"):
        """The eigenvalues of a self-adjoint operator."""
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        with self._name_scope(name):
            return self._eigvals()

    def _cond(self):
        if not self.is_self_adjoint:
            vals = linalg_api.svd(self.to_dense(), compute_uv=False)
        else:
            vals = math_ops.abs(self._eigvals())
        return (math_ops.reduce_max(vals, axis=-1) / math_ops.reduce_min(vals, axis=-1))

    def cond(self, name="cond"):
        """The condition number (largest over smallest singular value)."""
        with self._name_scope(name):
            return self._cond()

    def _can_use_cholesky(self):
        return self.is_self_adjoint and self.is_positive_definite


def shape_from_tensor(x):
    """The static TensorShape of `x` (a helper for subclasses)."""
    return TensorShape(x.shape)
