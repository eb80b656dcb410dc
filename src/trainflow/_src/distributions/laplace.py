"""`tf.distributions.Laplace`: density exp(-|x - loc| / scale) / (2 scale)."""
import math

import numpy as np

from trainflow._src.distributions import distribution, special_math
from trainflow._src.distributions.normal import LocScaleMixin
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.random import random_ops

__all__ = ["Laplace"]


class Laplace(LocScaleMixin, distribution.Distribution):
    """The Laplace (double exponential) distribution."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Laplace"):
        parameters = dict(locals())
        with name_scope(name, values=[loc, scale]) as name:
            with control_dependencies([check_ops.assert_positive(scale)]
                                      if validate_args else []):
                self._loc = array_ops.identity(loc, name="loc")
                self._scale = array_ops.identity(scale, name="scale")
                check_ops.assert_same_float_dtype([self._loc, self._scale])
            super().__init__(dtype=self._loc.dtype,
                             reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                             validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                             parameters=parameters, graph_parents=[self._loc, self._scale],
                             name=name)

    def _sample_n(self, n, seed=None):
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        np_dtype = self.dtype.as_numpy_dtype
        # Uniform on (-1, 1): the open lower end keeps log1p(-|u|) finite.
        u = random_ops.random_uniform(shape=shape,
                                      minval=np.nextafter(np_dtype(-1.0), np_dtype(0.0)),
                                      maxval=1.0, dtype=self.dtype, seed=seed)
        return self.loc - self.scale * math_ops.sign(u) * math_ops.log1p(-math_ops.abs(u))

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x):
        return math_ops.exp(self._log_prob(x))

    def _log_cdf(self, x):
        return special_math.log_cdf_laplace(self._z(x))

    def _log_survival_function(self, x):
        return special_math.log_cdf_laplace(-self._z(x))

    def _cdf(self, x):
        z = self._z(x)
        return 0.5 + 0.5 * math_ops.sign(z) * (1.0 - math_ops.exp(-math_ops.abs(z)))

    def _log_unnormalized_prob(self, x):
        return -math_ops.abs(self._z(x))

    def _log_normalization(self):
        return math.log(2.0) + math_ops.log(self.scale)

    def _entropy(self):
        scale = self.scale + array_ops.zeros_like(self.loc)
        return math.log(2.0) + 1.0 + math_ops.log(scale)

    def _mean(self):
        return self.loc + array_ops.zeros_like(self.scale)

    def _stddev(self):
        return math.sqrt(2.0) * self.scale + array_ops.zeros_like(self.loc)

    def _median(self):
        return self._mean()

    def _mode(self):
        return self._mean()

    def _z(self, x):
        return (x - self.loc) / self.scale
