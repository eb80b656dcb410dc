"""`tf.distributions.StudentT` with degrees of freedom `df`, `loc` and `scale`."""
import numpy as np

from trainflow._src.distributions import distribution, util
from trainflow._src.framework import dtypes, tensor_shape
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.control_flow.grouping import with_dependencies
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.math.betainc import betainc
from trainflow._src.ops.math.lbeta import lbeta
from trainflow._src.ops.random import random_ops

__all__ = ["StudentT"]


class StudentT(distribution.Distribution):
    """Student's t distribution."""

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True,
                 name="StudentT"):
        parameters = dict(locals())
        with name_scope(name, values=[df, loc, scale]) as name:
            with control_dependencies([check_ops.assert_positive(df)]
                                      if validate_args else []):
                self._df = array_ops.identity(df, name="df")
                self._loc = array_ops.identity(loc, name="loc")
                self._scale = array_ops.identity(scale, name="scale")
                check_ops.assert_same_float_dtype((self._df, self._loc, self._scale))
        super().__init__(dtype=self._scale.dtype,
                         reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                         parameters=parameters,
                         graph_parents=[self._df, self._loc, self._scale], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return dict(zip(("df", "loc", "scale"),
                        [convert_to_tensor(sample_shape, dtype=dtypes.int32)] * 3))

    df = property(lambda self: self._df, doc="Degrees of freedom.")
    loc = property(lambda self: self._loc, doc="The location.")
    scale = property(lambda self: self._scale, doc="The scale.")

    def _batch_shape_tensor(self):
        return array_ops.broadcast_dynamic_shape(
            array_ops.shape(self.df),
            array_ops.broadcast_dynamic_shape(array_ops.shape(self.loc),
                                              array_ops.shape(self.scale)))

    def _batch_shape(self):
        return array_ops.broadcast_static_shape(
            array_ops.broadcast_static_shape(self.df.get_shape(), self.loc.get_shape()),
            self.scale.get_shape())

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return tensor_shape.TensorShape([])

    def _sample_n(self, n, seed=None):
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        normal = random_ops.random_normal(shape, dtype=self.dtype, seed=seed)
        df = self.df * array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)
        gamma = random_ops.random_gamma([n], 0.5 * df, beta=0.5, dtype=self.dtype,
                                        seed=util.gen_new_seed(seed, salt="student_t"))
        return normal * math_ops.rsqrt(gamma / df) * self.scale + self.loc

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_unnormalized_prob(self, x):
        y = (x - self.loc) / self.scale
        return -0.5 * (self.df + 1.0) * math_ops.log1p(y ** 2.0 / self.df)

    def _log_normalization(self):
        return (math_ops.log(math_ops.abs(self.scale)) + 0.5 * math_ops.log(self.df)
                + 0.5 * np.log(np.pi) + math_ops.lgamma(0.5 * self.df)
                - math_ops.lgamma(0.5 * (self.df + 1.0)))

    def _cdf(self, x):
        y = (x - self.loc) / math_ops.abs(self.scale)
        x_t = self.df / (y ** 2.0 + self.df)
        neg_cdf = 0.5 * betainc(0.5 * self.df, 0.5, x_t)
        return array_ops.where_v2(math_ops.less(y, 0.0), neg_cdf, 1.0 - neg_cdf)

    def _entropy(self):
        v = array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)[..., array_ops.newaxis]
        u = v * self.df[..., array_ops.newaxis]
        beta_arg = array_ops.concat([u, v], -1) / 2.0
        return (math_ops.log(math_ops.abs(self.scale)) + 0.5 * math_ops.log(self.df)
                + lbeta(beta_arg)
                + 0.5 * (self.df + 1.0) * (math_ops.digamma(0.5 * (self.df + 1.0))
                                           - math_ops.digamma(0.5 * self.df)))

    def _nan(self):
        return array_ops.fill(self.batch_shape_tensor(),
                              np.array(np.nan, dtype=self.dtype.as_numpy_dtype), name="nan")

    def _mean(self):
        mean = self.loc * array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)
        if self.allow_nan_stats:
            return array_ops.where_v2(
                math_ops.greater(self.df,
                                 array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)),
                mean, self._nan())
        return with_dependencies([check_ops.assert_less(
            array_ops.ones([], dtype=self.dtype), self.df,
            message="mean not defined for components of df <= 1")], mean)

    def _variance(self):
        denom = array_ops.where_v2(math_ops.greater(self.df, 2.0), self.df - 2.0,
                                   array_ops.ones_like(self.df))
        var = (array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)
               * math_ops.square(self.scale) * self.df / denom)
        inf = np.array(np.inf, dtype=self.dtype.as_numpy_dtype)
        defined = array_ops.where_v2(
            self.df > array_ops.fill(self.batch_shape_tensor(), 2.0), var,
            array_ops.fill(self.batch_shape_tensor(), inf, name="inf"))
        if self.allow_nan_stats:
            return array_ops.where_v2(
                math_ops.greater(self.df,
                                 array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)),
                defined, self._nan())
        return with_dependencies([check_ops.assert_less(
            array_ops.ones([], dtype=self.dtype), self.df,
            message="variance not defined for components of df <= 1")], defined)

    def _mode(self):
        return array_ops.identity(self.loc)
