"""`tf.distributions.Beta` on [0, 1] and its KL divergence."""
import numpy as np

from trainflow._src.distributions import distribution, util
from trainflow._src.distributions.kullback_leibler import RegisterKL
from trainflow._src.distributions.normal import _same_shape_params
from trainflow._src.framework import dtypes, tensor_shape
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.control_flow.grouping import with_dependencies
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.math.betainc import betainc
from trainflow._src.ops.random import random_ops

__all__ = ["Beta"]


class Beta(distribution.Distribution):
    """The Beta distribution: density x**(c1-1) (1-x)**(c0-1) / B(c1, c0)."""

    def __init__(self, concentration1=None, concentration0=None, validate_args=False,
                 allow_nan_stats=True, name="Beta"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration1, concentration0]) as name:
            self._concentration1 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration1, name="concentration1"), validate_args)
            self._concentration0 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration0, name="concentration0"), validate_args)
            check_ops.assert_same_float_dtype([self._concentration1, self._concentration0])
            self._total_concentration = self._concentration1 + self._concentration0
        super().__init__(dtype=self._total_concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats,
                         reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters,
                         graph_parents=[self._concentration1, self._concentration0,
                                        self._total_concentration], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return _same_shape_params(("concentration1", "concentration0"), sample_shape)

    concentration1 = property(lambda self: self._concentration1, doc="Alpha.")
    concentration0 = property(lambda self: self._concentration0, doc="Beta.")
    total_concentration = property(lambda self: self._total_concentration,
                                   doc="concentration1 + concentration0.")

    def _batch_shape_tensor(self):
        return array_ops.shape(self.total_concentration)

    def _batch_shape(self):
        return self.total_concentration.get_shape()

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return tensor_shape.TensorShape([])

    def _sample_n(self, n, seed=None):
        ones = array_ops.ones_like(self.total_concentration, dtype=self.dtype)
        gamma1 = random_ops.random_gamma(shape=[n], alpha=ones * self.concentration1,
                                         dtype=self.dtype, seed=seed)
        gamma2 = random_ops.random_gamma(shape=[n], alpha=ones * self.concentration0,
                                         dtype=self.dtype,
                                         seed=util.gen_new_seed(seed, "beta"))
        return gamma1 / (gamma1 + gamma2)

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x):
        return math_ops.exp(self._log_prob(x))

    def _log_cdf(self, x):
        return math_ops.log(self._cdf(x))

    def _cdf(self, x):
        return betainc(self.concentration1, self.concentration0, x)

    def _log_unnormalized_prob(self, x):
        x = self._maybe_assert_valid_sample(x)
        return (math_ops.xlogy(self.concentration1 - 1.0, x)
                + (self.concentration0 - 1.0) * math_ops.log1p(-x))

    def _log_normalization(self):
        return (math_ops.lgamma(self.concentration1) + math_ops.lgamma(self.concentration0)
                - math_ops.lgamma(self.total_concentration))

    def _entropy(self):
        return (self._log_normalization()
                - (self.concentration1 - 1.0) * math_ops.digamma(self.concentration1)
                - (self.concentration0 - 1.0) * math_ops.digamma(self.concentration0)
                + (self.total_concentration - 2.0)
                * math_ops.digamma(self.total_concentration))

    def _mean(self):
        return self._concentration1 / self._total_concentration

    def _variance(self):
        return self._mean() * (1.0 - self._mean()) / (1.0 + self.total_concentration)

    def _mode(self):
        mode = (self.concentration1 - 1.0) / (self.total_concentration - 2.0)
        if self.allow_nan_stats:
            nan = array_ops.fill(self.batch_shape_tensor(),
                                 np.array(np.nan, dtype=self.dtype.as_numpy_dtype), name="nan")
            is_defined = math_ops.logical_and(self.concentration1 > 1.0,
                                              self.concentration0 > 1.0)
            return array_ops.where_v2(is_defined, mode, nan)
        one = array_ops.ones([], dtype=self.dtype)
        return with_dependencies([
            check_ops.assert_less(one, self.concentration1,
                                  message="Mode undefined for concentration1 <= 1."),
            check_ops.assert_less(one, self.concentration0,
                                  message="Mode undefined for concentration0 <= 1.")], mode)

    @staticmethod
    def _maybe_assert_valid_concentration(concentration, validate_args):
        if not validate_args:
            return concentration
        return with_dependencies([check_ops.assert_positive(
            concentration, message="Concentration parameter must be positive.")],
            concentration)

    def _maybe_assert_valid_sample(self, x):
        if not self.validate_args:
            return x
        return with_dependencies([
            check_ops.assert_positive(x, message="sample must be positive"),
            check_ops.assert_less(x, array_ops.ones([], self.dtype),
                                  message="sample must be less than `1`.")], x)


@RegisterKL(Beta, Beta)
def _kl_beta_beta(d1, d2, name=None):
    def delta(attr, call=False):
        a, b = getattr(d1, attr), getattr(d2, attr)
        return b() - a() if call else b - a

    with name_scope(name, "kl_beta_beta",
                    values=[d1.concentration1, d1.concentration0, d1.total_concentration,
                            d2.concentration1, d2.concentration0, d2.total_concentration]):
        return (delta("_log_normalization", call=True)
                - math_ops.digamma(d1.concentration1) * delta("concentration1")
                - math_ops.digamma(d1.concentration0) * delta("concentration0")
                + math_ops.digamma(d1.total_concentration) * delta("total_concentration"))
