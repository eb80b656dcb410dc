"""`tf.distributions.Uniform` on [low, high)."""
import math

from trainflow._src.distributions import distribution
from trainflow._src.distributions.normal import _same_shape_params
from trainflow._src.framework import dtypes, tensor_shape
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.random import random_ops

__all__ = ["Uniform"]


class Uniform(distribution.Distribution):
    """The uniform distribution on [low, high)."""

    def __init__(self, low=0.0, high=1.0, validate_args=False, allow_nan_stats=True,
                 name="Uniform"):
        parameters = dict(locals())
        with name_scope(name, values=[low, high]) as name:
            with control_dependencies([check_ops.assert_less(
                    low, high, message="uniform not defined when low >= high.")]
                    if validate_args else []):
                self._low = array_ops.identity(low, name="low")
                self._high = array_ops.identity(high, name="high")
                check_ops.assert_same_float_dtype([self._low, self._high])
        super().__init__(dtype=self._low.dtype,
                         reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                         parameters=parameters, graph_parents=[self._low, self._high],
                         name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return _same_shape_params(("low", "high"), sample_shape)

    low = property(lambda self: self._low, doc="Lower boundary of the support.")
    high = property(lambda self: self._high, doc="Upper boundary of the support.")

    def range(self, name="range"):
        """high - low."""
        with self._name_scope(name):
            return self.high - self.low

    def _batch_shape_tensor(self):
        return array_ops.broadcast_dynamic_shape(array_ops.shape(self.low),
                                                 array_ops.shape(self.high))

    def _batch_shape(self):
        return array_ops.broadcast_static_shape(self.low.get_shape(), self.high.get_shape())

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return tensor_shape.TensorShape([])

    def _sample_n(self, n, seed=None):
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        samples = random_ops.random_uniform(shape=shape, dtype=self.dtype, seed=seed)
        return self.low + self.range() * samples

    def _prob(self, x):
        x = x * array_ops.ones(self.batch_shape_tensor(), dtype=x.dtype)
        outside = math_ops.logical_or(x < self.low, x >= self.high)
        return array_ops.where_v2(
            math_ops.is_nan(x), x,
            array_ops.where_v2(outside, array_ops.zeros_like(x),
                               array_ops.ones_like(x) / self.range()))

    def _cdf(self, x):
        shape = array_ops.broadcast_dynamic_shape(array_ops.shape(x),
                                                  self.batch_shape_tensor())
        zeros = array_ops.zeros(shape, dtype=self.dtype)
        ones = array_ops.ones(shape, dtype=self.dtype)
        inside = array_ops.where_v2(x < self.low, zeros, (x * ones - self.low) / self.range())
        return array_ops.where_v2(x >= self.high, ones, inside)

    def _entropy(self):
        return math_ops.log(self.range())

    def _mean(self):
        return (self.low + self.high) / 2.0

    def _variance(self):
        return math_ops.square(self.range()) / 12.0

    def _stddev(self):
        return self.range() / math.sqrt(12.0)
