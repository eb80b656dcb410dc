"""`tf.distributions.Categorical`: one of K classes, from logits or probs."""
from trainflow._src.distributions import distribution, util
from trainflow._src.distributions.kullback_leibler import RegisterKL
from trainflow._src.framework import dtypes, tensor_shape
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.nn.softmax import log_softmax, softmax
from trainflow._src.ops.nn.xent import sparse_softmax_cross_entropy_with_logits
from trainflow._src.ops.random import random_ops

__all__ = ["Categorical"]


def _broadcast_event_and_params(event, params, base_dtype):
    """The event (cast to int32 if floating) and params broadcast against each other."""
    if event.dtype.is_floating:
        event = math_ops.cast(event, dtype=dtypes.int32)
    elif not event.dtype.is_integer:
        raise TypeError("`value` should have integer `dtype` or `self.dtype` ({})".format(
            base_dtype))
    static = (params.shape.ndims is not None and params.shape[:-1].is_fully_defined()
              and event.shape.is_fully_defined())
    if not static or params.shape[:-1] != event.shape:
        params *= array_ops.ones_like(event[..., array_ops.newaxis], dtype=params.dtype)
        event *= array_ops.ones(array_ops.shape(params)[:-1], dtype=event.dtype)
        if params.shape.ndims is not None:
            event.set_shape(tensor_shape.TensorShape(params.shape[:-1]))
    return event, params


class Categorical(distribution.Distribution):
    """The categorical distribution over {0, ..., K-1} (K the last dimension of the
    parameters)."""

    def __init__(self, logits=None, probs=None, dtype=dtypes.int32, validate_args=False,
                 allow_nan_stats=True, name="Categorical"):
        parameters = dict(locals())
        with name_scope(name, values=[logits, probs]) as name:
            self._logits, self._probs = util.get_logits_and_probs(
                logits=logits, probs=probs, validate_args=validate_args,
                multidimensional=True, name=name)
            if validate_args:
                self._logits = util.embed_check_categorical_event_shape(self._logits)
            static = self._logits.get_shape().with_rank_at_least(1)
            if static.ndims is not None:
                self._batch_rank = convert_to_tensor(static.ndims - 1, dtype=dtypes.int32,
                                                     name="batch_rank")
            else:
                with name_scope(name="batch_rank"):
                    self._batch_rank = array_ops.rank(self._logits) - 1
            logits_shape = array_ops.shape(self._logits, name="logits_shape")
            if tensor_shape.dimension_value(static[-1]) is not None:
                self._event_size = convert_to_tensor(static.dims[-1].value,
                                                     dtype=dtypes.int32, name="event_size")
            else:
                with name_scope(name="event_size"):
                    self._event_size = logits_shape[self._batch_rank]
            if static[:-1].is_fully_defined():
                self._batch_shape_val = constant(static[:-1].as_list(), dtype=dtypes.int32,
                                                 name="batch_shape")
            else:
                with name_scope(name="batch_shape"):
                    self._batch_shape_val = logits_shape[:-1]
        super().__init__(dtype=dtype,
                         reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats,
                         parameters=parameters, graph_parents=[self._logits, self._probs],
                         name=name)

    event_size = property(lambda self: self._event_size, doc="The number of classes.")
    logits = property(lambda self: self._logits, doc="Unnormalized log probabilities.")
    probs = property(lambda self: self._probs, doc="The class probabilities.")

    def _batch_shape_tensor(self):
        return array_ops.identity(self._batch_shape_val)

    def _batch_shape(self):
        return self.logits.get_shape()[:-1]

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return tensor_shape.TensorShape([])

    def _sample_n(self, n, seed=None):
        if self.logits.get_shape().ndims == 2:
            logits_2d = self.logits
        else:
            logits_2d = array_ops.reshape(self.logits, [-1, self.event_size])
        sample_dtype = dtypes.int64 if self.dtype.size > 4 else dtypes.int32
        draws = random_ops.multinomial(logits_2d, n, seed=seed, output_dtype=sample_dtype)
        draws = array_ops.reshape(array_ops.transpose(draws),
                                  array_ops.concat([[n], self.batch_shape_tensor()], 0))
        return math_ops.cast(draws, self.dtype)

    def _checked_k(self, k):
        k = convert_to_tensor(k, name="k")
        if self.validate_args:
            k = util.embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        return k

    def _cdf(self, k):
        k, probs = _broadcast_event_and_params(self._checked_k(k), self.probs,
                                               base_dtype=self.dtype.base_dtype)
        flat_probs = array_ops.reshape(probs, (-1, self._event_size))
        flat_k = array_ops.reshape(k, [-1])
        to_sum = array_ops.where(array_ops.sequence_mask(flat_k, self._event_size),
                                 flat_probs, array_ops.zeros_like(flat_probs))
        return array_ops.reshape(math_ops.reduce_sum(to_sum, axis=-1), array_ops.shape(k))

    def _log_prob(self, k):
        k, logits = _broadcast_event_and_params(self._checked_k(k), self.logits,
                                                base_dtype=self.dtype.base_dtype)
        return -sparse_softmax_cross_entropy_with_logits(labels=k, logits=logits)

    def _entropy(self):
        return -math_ops.reduce_sum(log_softmax(self.logits) * self.probs, axis=-1)

    def _mode(self):
        ret = math_ops.cast(math_ops.argmax(self.logits, axis=self._batch_rank), self.dtype)
        ret.set_shape(self.batch_shape)
        return ret


@RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a, b, name=None):
    with name_scope(name, "kl_categorical_categorical", values=[a.logits, b.logits]):
        delta = log_softmax(a.logits) - log_softmax(b.logits)
        return math_ops.reduce_sum(softmax(a.logits) * delta, axis=-1)
