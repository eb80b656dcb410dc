"""`tf.distributions.Gamma` (concentration, rate) and `Exponential`, its concentration-1
case."""
import numpy as np

from trainflow._src.distributions import distribution
from trainflow._src.distributions.kullback_leibler import RegisterKL
from trainflow._src.distributions.normal import _same_shape_params
from trainflow._src.framework import dtypes, tensor_shape
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.control_flow.grouping import with_dependencies
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.math.special_gamma import igamma
from trainflow._src.ops.random import random_ops

__all__ = ["Gamma", "Exponential"]


class Gamma(distribution.Distribution):
    """The Gamma distribution with density x**(c-1) exp(-rate x) rate**c / Gamma(c)."""

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True,
                 name="Gamma"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration, rate]) as name:
            with control_dependencies([check_ops.assert_positive(concentration),
                                       check_ops.assert_positive(rate)]
                                      if validate_args else []):
                self._concentration = array_ops.identity(concentration, name="concentration")
                self._rate = array_ops.identity(rate, name="rate")
                check_ops.assert_same_float_dtype([self._concentration, self._rate])
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats,
                         reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters,
                         graph_parents=[self._concentration, self._rate], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return _same_shape_params(("concentration", "rate"), sample_shape)

    concentration = property(lambda self: self._concentration, doc="The shape parameter.")
    rate = property(lambda self: self._rate, doc="The inverse scale.")

    def _batch_shape_tensor(self):
        return array_ops.broadcast_dynamic_shape(array_ops.shape(self.concentration),
                                                 array_ops.shape(self.rate))

    def _batch_shape(self):
        return array_ops.broadcast_static_shape(self.concentration.get_shape(),
                                                self.rate.get_shape())

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return tensor_shape.TensorShape([])

    def _sample_n(self, n, seed=None):
        return random_ops.random_gamma(shape=[n], alpha=self.concentration, beta=self.rate,
                                       dtype=self.dtype, seed=seed)

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _cdf(self, x):
        x = self._maybe_assert_valid_sample(x)
        return igamma(self.concentration, self.rate * x)

    def _log_unnormalized_prob(self, x):
        x = self._maybe_assert_valid_sample(x)
        return math_ops.xlogy(self.concentration - 1.0, x) - self.rate * x

    def _log_normalization(self):
        return (math_ops.lgamma(self.concentration)
                - self.concentration * math_ops.log(self.rate))

    def _entropy(self):
        return (self.concentration - math_ops.log(self.rate)
                + math_ops.lgamma(self.concentration)
                + (1.0 - self.concentration) * math_ops.digamma(self.concentration))

    def _mean(self):
        return self.concentration / self.rate

    def _variance(self):
        return self.concentration / math_ops.square(self.rate)

    def _stddev(self):
        return math_ops.sqrt(self.concentration) / self.rate

    def _mode(self):
        mode = (self.concentration - 1.0) / self.rate
        if self.allow_nan_stats:
            nan = array_ops.fill(self.batch_shape_tensor(),
                                 np.array(np.nan, dtype=self.dtype.as_numpy_dtype),
                                 name="nan")
            return array_ops.where_v2(self.concentration > 1.0, mode, nan)
        return with_dependencies([check_ops.assert_less(
            array_ops.ones([], self.dtype), self.concentration,
            message="mode not defined when any concentration <= 1")], mode)

    def _maybe_assert_valid_sample(self, x):
        check_ops.assert_same_float_dtype(tensors=[x], dtype=self.dtype)
        if not self.validate_args:
            return x
        return with_dependencies([check_ops.assert_positive(x)], x)


@RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(g0, g1, name=None):
    with name_scope(name, "kl_gamma_gamma",
                    values=[g0.concentration, g0.rate, g1.concentration, g1.rate]):
        return ((g0.concentration - g1.concentration) * math_ops.digamma(g0.concentration)
                + math_ops.lgamma(g1.concentration) - math_ops.lgamma(g0.concentration)
                + g1.concentration * math_ops.log(g0.rate)
                - g1.concentration * math_ops.log(g1.rate)
                + g0.concentration * (g1.rate / g0.rate - 1.0))


class Exponential(Gamma):
    """The exponential distribution rate * exp(-rate x): Gamma with concentration 1."""

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        parameters = dict(locals())
        with name_scope(name, values=[rate]) as name:
            self._rate = convert_to_tensor(rate, name="rate")
        super().__init__(concentration=array_ops.ones([], dtype=self._rate.dtype),
                         rate=self._rate, allow_nan_stats=allow_nan_stats,
                         validate_args=validate_args, name=name)
        self._parameters = parameters
        self._graph_parents += [self._rate]

    @staticmethod
    def _param_shapes(sample_shape):
        return {"rate": convert_to_tensor(sample_shape, dtype=dtypes.int32)}

    rate = property(lambda self: self._rate, doc="The rate parameter.")

    def _log_survival_function(self, value):
        return self._log_prob(value) - math_ops.log(self._rate)

    def _sample_n(self, n, seed=None):
        shape = array_ops.concat([[n], array_ops.shape(self._rate)], 0)
        sampled = random_ops.random_uniform(
            shape, minval=np.finfo(self.dtype.as_numpy_dtype).tiny, maxval=1.0, seed=seed,
            dtype=self.dtype)
        return -math_ops.log(sampled) / self._rate
