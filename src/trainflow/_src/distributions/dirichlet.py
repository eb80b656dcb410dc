"""`tf.distributions.Dirichlet`: distributions over the probability simplex."""
import numpy as np

from trainflow._src.distributions import distribution
from trainflow._src.distributions.kullback_leibler import RegisterKL
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.control_flow.grouping import with_dependencies
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.math.lbeta import lbeta
from trainflow._src.ops.random import random_ops

__all__ = ["Dirichlet"]


class Dirichlet(distribution.Distribution):
    """The Dirichlet distribution with `concentration` (its last dimension the event)."""

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True,
                 name="Dirichlet"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration]) as name:
            self._concentration = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration, name="concentration"), validate_args)
            self._total_concentration = math_ops.reduce_sum(self._concentration, -1)
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats,
                         reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters,
                         graph_parents=[self._concentration, self._total_concentration],
                         name=name)

    concentration = property(lambda self: self._concentration, doc="The concentrations.")
    total_concentration = property(lambda self: self._total_concentration,
                                   doc="Their sum over the event.")

    def _batch_shape_tensor(self):
        return array_ops.shape(self.total_concentration)

    def _batch_shape(self):
        return self.total_concentration.get_shape()

    def _event_shape_tensor(self):
        return array_ops.shape(self.concentration)[-1:]

    def _event_shape(self):
        return self.concentration.get_shape().with_rank_at_least(1)[-1:]

    def _sample_n(self, n, seed=None):
        gamma = random_ops.random_gamma(shape=[n], alpha=self.concentration, dtype=self.dtype,
                                        seed=seed)
        return gamma / math_ops.reduce_sum(gamma, -1, keepdims=True)

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x):
        return math_ops.exp(self._log_prob(x))

    def _log_unnormalized_prob(self, x):
        x = self._maybe_assert_valid_sample(x)
        return math_ops.reduce_sum(math_ops.xlogy(self.concentration - 1.0, x), -1)

    def _log_normalization(self):
        return lbeta(self.concentration)

    def _entropy(self):
        k = math_ops.cast(self.event_shape_tensor()[0], self.dtype)
        return (self._log_normalization()
                + (self.total_concentration - k) * math_ops.digamma(self.total_concentration)
                - math_ops.reduce_sum((self.concentration - 1.0)
                                      * math_ops.digamma(self.concentration), axis=-1))

    def _mean(self):
        return self.concentration / self.total_concentration[..., array_ops.newaxis]

    def _covariance(self):
        x = self._variance_scale_term() * self._mean()
        return array_ops.matrix_set_diag(
            -math_ops.matmul(x[..., array_ops.newaxis], x[..., array_ops.newaxis, :]),
            self._variance())

    def _variance(self):
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (scale - x)

    def _variance_scale_term(self):
        return math_ops.rsqrt(1.0 + self.total_concentration[..., array_ops.newaxis])

    def _mode(self):
        k = math_ops.cast(self.event_shape_tensor()[0], self.dtype)
        mode = ((self.concentration - 1.0)
                / (self.total_concentration[..., array_ops.newaxis] - k))
        if self.allow_nan_stats:
            nan = array_ops.fill(array_ops.shape(mode),
                                 np.array(np.nan, dtype=self.dtype.as_numpy_dtype), name="nan")
            return array_ops.where_v2(math_ops.reduce_all(self.concentration > 1.0, axis=-1),
                                      mode, nan)
        return with_dependencies([check_ops.assert_less(
            array_ops.ones([], self.dtype), self.concentration,
            message="Mode undefined when any concentration <= 1")], mode)

    @staticmethod
    def _maybe_assert_valid_concentration(concentration, validate_args):
        if not validate_args:
            return concentration
        return with_dependencies([
            check_ops.assert_positive(concentration,
                                      message="Concentration parameter must be positive."),
            check_ops.assert_rank_at_least(
                concentration, 1, message="Concentration parameter must have >=1 dimensions."),
            check_ops.assert_less(1, array_ops.shape(concentration)[-1],
                                  message="Concentration parameter must have event_size >= 2."),
        ], concentration)

    def _maybe_assert_valid_sample(self, x):
        if not self.validate_args:
            return x
        return with_dependencies([
            check_ops.assert_positive(x, message="samples must be positive"),
            check_ops.assert_near(array_ops.ones([], dtype=self.dtype),
                                  math_ops.reduce_sum(x, -1),
                                  message="sample last-dimension must sum to `1`"),
        ], x)


@RegisterKL(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(d1, d2, name=None):
    with name_scope(name, "kl_dirichlet_dirichlet",
                    values=[d1.concentration, d2.concentration]):
        digamma_sum_d1 = math_ops.digamma(
            math_ops.reduce_sum(d1.concentration, axis=-1, keepdims=True))
        digamma_diff = math_ops.digamma(d1.concentration) - digamma_sum_d1
        concentration_diff = d1.concentration - d2.concentration
        return (math_ops.reduce_sum(concentration_diff * digamma_diff, axis=-1)
                - lbeta(d1.concentration) + lbeta(d2.concentration))
