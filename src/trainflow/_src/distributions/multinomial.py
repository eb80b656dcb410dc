"""`tf.distributions.Multinomial` and `DirichletMultinomial`: counts of `total_count`
draws over K classes."""
from trainflow._src.distributions import distribution, util
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.control_flow.functional_ops import map_fn
from trainflow._src.ops.control_flow.grouping import with_dependencies
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.math.lbeta import lbeta
from trainflow._src.ops.nn.softmax import log_softmax
from trainflow._src.ops.random import random_ops

__all__ = ["Multinomial", "DirichletMultinomial"]


def _checked_counts(dist, counts, message):
    if not dist.validate_args:
        return counts
    counts = util.embed_check_nonnegative_integer_form(counts)
    return with_dependencies([check_ops.assert_equal(
        dist.total_count, math_ops.reduce_sum(counts, -1), message=message)], counts)


def _covariance_from(x, variance):
    return array_ops.matrix_set_diag(
        -math_ops.matmul(x[..., array_ops.newaxis], x[..., array_ops.newaxis, :]), variance)


class Multinomial(distribution.Distribution):
    """Counts of `total_count` categorical draws with the given logits or probs."""

    def __init__(self, total_count, logits=None, probs=None, validate_args=False,
                 allow_nan_stats=True, name="Multinomial"):
        parameters = dict(locals())
        with name_scope(name, values=[total_count, logits, probs]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = util.embed_check_nonnegative_integer_form(
                    self._total_count)
            self._logits, self._probs = util.get_logits_and_probs(
                logits=logits, probs=probs, multidimensional=True,
                validate_args=validate_args, name=name)
            self._mean_val = self._total_count[..., array_ops.newaxis] * self._probs
        super().__init__(dtype=self._probs.dtype,
                         reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                         parameters=parameters,
                         graph_parents=[self._total_count, self._logits, self._probs],
                         name=name)

    total_count = property(lambda self: self._total_count, doc="The number of draws.")
    logits = property(lambda self: self._logits, doc="Unnormalized log probabilities.")
    probs = property(lambda self: self._probs, doc="The class probabilities.")

    def _batch_shape_tensor(self):
        return array_ops.shape(self._mean_val)[:-1]

    def _batch_shape(self):
        return self._mean_val.get_shape().with_rank_at_least(1)[:-1]

    def _event_shape_tensor(self):
        return array_ops.shape(self._mean_val)[-1:]

    def _event_shape(self):
        return self._mean_val.get_shape().with_rank_at_least(1)[-1:]

    def _sample_n(self, n, seed=None):
        n_draws = math_ops.cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        n_draws = array_ops.ones_like(self.logits[..., 0], dtype=n_draws.dtype) * n_draws
        logits = (array_ops.ones_like(n_draws[..., array_ops.newaxis], dtype=self.logits.dtype)
                  * self.logits)
        flat_logits = array_ops.reshape(logits, [-1, k])
        flat_ndraws = n * array_ops.reshape(n_draws, [-1])

        def _sample_single(args):
            row_logits, n_draw = args
            x = random_ops.multinomial(row_logits[array_ops.newaxis, ...], n_draw, seed)
            x = array_ops.reshape(x, shape=[n, -1])
            return math_ops.reduce_sum(array_ops.one_hot(x, depth=k), axis=-2)

        x = map_fn(_sample_single, [flat_logits, flat_ndraws], dtype=self.dtype)
        x = array_ops.transpose(x, perm=[1, 0, 2])
        return array_ops.reshape(x, array_ops.concat([[n], self.batch_shape_tensor(), [k]], 0))

    def _log_prob(self, counts):
        return self._log_unnormalized_prob(counts) - self._log_normalization(counts)

    def _log_unnormalized_prob(self, counts):
        counts = self._maybe_assert_valid_sample(counts)
        return math_ops.reduce_sum(counts * log_softmax(self.logits), -1)

    def _log_normalization(self, counts):
        counts = self._maybe_assert_valid_sample(counts)
        return -util.log_combinations(self.total_count, counts)

    def _mean(self):
        return array_ops.identity(self._mean_val)

    def _covariance(self):
        p = self.probs * array_ops.ones_like(self.total_count)[..., array_ops.newaxis]
        return array_ops.matrix_set_diag(
            -math_ops.matmul(self._mean_val[..., array_ops.newaxis],
                             p[..., array_ops.newaxis, :]), self._variance())

    def _variance(self):
        p = self.probs * array_ops.ones_like(self.total_count)[..., array_ops.newaxis]
        return self._mean_val - self._mean_val * p

    def _maybe_assert_valid_sample(self, counts):
        return _checked_counts(self, counts, "counts must sum to `self.total_count`")


class DirichletMultinomial(distribution.Distribution):
    """Multinomial counts whose class probabilities are Dirichlet(concentration)."""

    def __init__(self, total_count, concentration, validate_args=False, allow_nan_stats=True,
                 name="DirichletMultinomial"):
        parameters = dict(locals())
        with name_scope(name, values=[total_count, concentration]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = util.embed_check_nonnegative_integer_form(
                    self._total_count)
            self._concentration = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration, name="concentration"), validate_args)
            self._total_concentration = math_ops.reduce_sum(self._concentration, -1)
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats,
                         reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         parameters=parameters,
                         graph_parents=[self._total_count, self._concentration], name=name)

    total_count = property(lambda self: self._total_count, doc="The number of draws.")
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
        n_draws = math_ops.cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        logits = array_ops.reshape(math_ops.log(random_ops.random_gamma(
            shape=[n], alpha=self.concentration, dtype=self.dtype, seed=seed)), shape=[-1, k])
        draws = random_ops.multinomial(
            logits=logits, num_samples=n_draws,
            seed=util.gen_new_seed(seed, salt="dirichlet_multinomial"))
        x = math_ops.reduce_sum(array_ops.one_hot(draws, depth=k), -2)
        x = array_ops.reshape(x, array_ops.concat([[n], self.batch_shape_tensor(), [k]], 0))
        return math_ops.cast(x, self.dtype)

    def _log_prob(self, counts):
        counts = self._maybe_assert_valid_sample(counts)
        ordered = lbeta(self.concentration + counts) - lbeta(self.concentration)
        return ordered + util.log_combinations(self.total_count, counts)

    def _prob(self, counts):
        return math_ops.exp(self._log_prob(counts))

    def _mean(self):
        return self.total_count * (self.concentration
                                   / self.total_concentration[..., array_ops.newaxis])

    def _covariance(self):
        return _covariance_from(self._variance_scale_term() * self._mean(), self._variance())

    def _variance(self):
        scale = self._variance_scale_term()
        x = scale * self._mean()
        return x * (self.total_count * scale - x)

    def _variance_scale_term(self):
        c0 = self.total_concentration[..., array_ops.newaxis]
        return math_ops.sqrt((1.0 + c0 / self.total_count) / (1.0 + c0))

    @staticmethod
    def _maybe_assert_valid_concentration(concentration, validate_args):
        if not validate_args:
            return concentration
        concentration = util.embed_check_categorical_event_shape(concentration)
        return with_dependencies([check_ops.assert_positive(
            concentration, message="Concentration parameter must be positive.")],
            concentration)

    def _maybe_assert_valid_sample(self, counts):
        return _checked_counts(self, counts,
                               "counts last-dimension must sum to `self.total_count`")
