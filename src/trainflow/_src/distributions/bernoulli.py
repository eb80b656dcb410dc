"""`tf.distributions.Bernoulli`: 0/1 outcomes from logits or probs."""
from trainflow._src.distributions import distribution, util
from trainflow._src.distributions.kullback_leibler import RegisterKL
from trainflow._src.framework import dtypes, tensor_shape
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.nn.activation import softplus
from trainflow._src.ops.nn.xent import sigmoid_cross_entropy_with_logits
from trainflow._src.ops.random import random_ops

__all__ = ["Bernoulli"]


class Bernoulli(distribution.Distribution):
    """The Bernoulli distribution, parameterized by `logits` or `probs` (of a 1)."""

    def __init__(self, logits=None, probs=None, dtype=dtypes.int32, validate_args=False,
                 allow_nan_stats=True, name="Bernoulli"):
        parameters = dict(locals())
        with name_scope(name) as name:
            self._logits, self._probs = util.get_logits_and_probs(
                logits=logits, probs=probs, validate_args=validate_args, name=name)
        super().__init__(dtype=dtype,
                         reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                         parameters=parameters, graph_parents=[self._logits, self._probs],
                         name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return {"logits": convert_to_tensor(sample_shape, dtype=dtypes.int32)}

    logits = property(lambda self: self._logits, doc="Log-odds of a 1.")
    probs = property(lambda self: self._probs, doc="Probability of a 1.")

    def _batch_shape_tensor(self):
        return array_ops.shape(self._logits)

    def _batch_shape(self):
        return self._logits.get_shape()

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return tensor_shape.TensorShape([])

    def _sample_n(self, n, seed=None):
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        uniform = random_ops.random_uniform(shape, seed=seed, dtype=self.probs.dtype)
        return math_ops.cast(math_ops.less(uniform, self.probs), self.dtype)

    def _log_prob(self, event):
        if self.validate_args:
            event = util.embed_check_integer_casting_closed(event, target_dtype=dtypes.bool)
        event = math_ops.cast(event, self.logits.dtype)
        logits = self.logits
        if not (event.get_shape().is_fully_defined() and logits.get_shape().is_fully_defined()
                and event.get_shape() == logits.get_shape()):
            logits, event = (array_ops.ones_like(event) * logits,
                             array_ops.ones_like(logits) * event)
        return -sigmoid_cross_entropy_with_logits(labels=event, logits=logits)

    def _entropy(self):
        return -self.logits * (math_ops.sigmoid(self.logits) - 1) + softplus(-self.logits)

    def _mean(self):
        return array_ops.identity(self.probs)

    def _variance(self):
        return self._mean() * (1.0 - self.probs)

    def _mode(self):
        return math_ops.cast(self.probs > 0.5, self.dtype)


@RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a, b, name=None):
    with name_scope(name, "kl_bernoulli_bernoulli", values=[a.logits, b.logits]):
        delta_probs0 = softplus(-b.logits) - softplus(-a.logits)
        delta_probs1 = softplus(b.logits) - softplus(a.logits)
        return (math_ops.sigmoid(a.logits) * delta_probs0
                + math_ops.sigmoid(-a.logits) * delta_probs1)
