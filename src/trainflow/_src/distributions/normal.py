"""`tf.distributions.Normal` and its KL divergence."""
import math

from trainflow._src.distributions import distribution, special_math
from trainflow._src.distributions.kullback_leibler import RegisterKL
from trainflow._src.framework import dtypes, tensor_shape
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.random import random_ops

__all__ = ["Normal"]


def _same_shape_params(names, sample_shape):
    return dict(zip(names, [convert_to_tensor(sample_shape, dtype=dtypes.int32)] * len(names)))


class LocScaleMixin:
    """The batch and event shapes of a scalar distribution with `loc` and `scale`."""

    loc = property(lambda self: self._loc, doc="The location parameter.")
    scale = property(lambda self: self._scale, doc="The scale parameter.")

    @staticmethod
    def _param_shapes(sample_shape):
        return _same_shape_params(("loc", "scale"), sample_shape)

    def _batch_shape_tensor(self):
        return array_ops.broadcast_dynamic_shape(array_ops.shape(self.loc),
                                                 array_ops.shape(self.scale))

    def _batch_shape(self):
        return array_ops.broadcast_static_shape(self.loc.get_shape(), self.scale.get_shape())

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return tensor_shape.TensorShape([])


class Normal(LocScaleMixin, distribution.Distribution):
    """The normal distribution N(loc, scale**2)."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Normal"):
        parameters = dict(locals())
        with name_scope(name, values=[loc, scale]) as name:
            with control_dependencies([check_ops.assert_positive(scale)]
                                      if validate_args else []):
                self._loc = array_ops.identity(loc, name="loc")
                self._scale = array_ops.identity(scale, name="scale")
                check_ops.assert_same_float_dtype([self._loc, self._scale])
        super().__init__(dtype=self._scale.dtype,
                         reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                         parameters=parameters, graph_parents=[self._loc, self._scale],
                         name=name)

    def _sample_n(self, n, seed=None):
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        sampled = random_ops.random_normal(shape=shape, mean=0.0, stddev=1.0,
                                           dtype=self.loc.dtype, seed=seed)
        return sampled * self.scale + self.loc

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_cdf(self, x):
        return special_math.log_ndtr(self._z(x))

    def _cdf(self, x):
        return special_math.ndtr(self._z(x))

    def _log_survival_function(self, x):
        return special_math.log_ndtr(-self._z(x))

    def _survival_function(self, x):
        return special_math.ndtr(-self._z(x))

    def _log_unnormalized_prob(self, x):
        return -0.5 * math_ops.square(self._z(x))

    def _log_normalization(self):
        return 0.5 * math.log(2.0 * math.pi) + math_ops.log(self.scale)

    def _entropy(self):
        scale = self.scale * array_ops.ones_like(self.loc)
        return 0.5 * math.log(2.0 * math.pi * math.e) + math_ops.log(scale)

    def _mean(self):
        return self.loc * array_ops.ones_like(self.scale)

    def _quantile(self, p):
        return self._inv_z(special_math.ndtri(p))

    def _stddev(self):
        return self.scale * array_ops.ones_like(self.loc)

    def _mode(self):
        return self._mean()

    def _z(self, x):
        with name_scope("standardize", values=[x]):
            return (x - self.loc) / self.scale

    def _inv_z(self, z):
        with name_scope("reconstruct", values=[z]):
            return z * self.scale + self.loc


@RegisterKL(Normal, Normal)
def _kl_normal_normal(n_a, n_b, name=None):
    with name_scope(name, "kl_normal_normal", [n_a.loc, n_b.loc]):
        one = constant(1, dtype=n_a.dtype)
        two = constant(2, dtype=n_a.dtype)
        half = constant(0.5, dtype=n_a.dtype)
        s_a_squared = math_ops.square(n_a.scale)
        s_b_squared = math_ops.square(n_b.scale)
        ratio = s_a_squared / s_b_squared
        return (math_ops.squared_difference(n_a.loc, n_b.loc) / (two * s_b_squared)
                + half * (ratio - one - math_ops.log(ratio)))
