"""The `Distribution` base class and the reparameterization marks of `tf.distributions`.

A distribution holds its parameters as tensors made under its own name scope (`Normal/`)
and each method builds its ops under `<name>/<method>/`, as TensorFlow's does."""
import contextlib

import numpy as np

from trainflow._src.distributions import kullback_leibler, util
from trainflow._src.framework import dtypes, tensor_shape, tensor_util
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.math import math_ops

__all__ = ["Distribution", "ReparameterizationType", "FULLY_REPARAMETERIZED",
           "NOT_REPARAMETERIZED"]


class ReparameterizationType:
    """Whether samples of a distribution are differentiable in its parameters; the two
    instances are compared by identity."""

    def __init__(self, rep_type):
        self._rep_type = rep_type

    def __repr__(self):
        return "<Reparameterization Type: %s>" % self._rep_type

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


def _not_implemented(method, obj):
    return NotImplementedError("%s is not implemented: %s" % (method, type(obj).__name__))


def _value_tensor(value, dtype):
    """A method's argument as a tensor, of the distribution's dtype when it has none."""
    if isinstance(value, Tensor):
        return value
    return convert_to_tensor(value, name="value", preferred_dtype=dtype)


class Distribution:
    """A batch of probability distributions: subclasses give `_log_prob`, `_sample_n`,
    `_mean` ... and this class wraps each in its name scope and its fallbacks (prob from
    log_prob, stddev from variance and back)."""

    def __init__(self, dtype, reparameterization_type, validate_args, allow_nan_stats,
                 parameters=None, graph_parents=None, name=None):
        graph_parents = [] if graph_parents is None else graph_parents
        for i, t in enumerate(graph_parents):
            if t is None or not isinstance(t, Tensor):
                raise ValueError("Graph parent item %d is not a Tensor; %s." % (i, t))
        if not name or name[-1] != "/":
            with name_scope(name or type(self).__name__) as name:
                pass
        self._dtype = dtype
        self._reparameterization_type = reparameterization_type
        self._allow_nan_stats = allow_nan_stats
        self._validate_args = validate_args
        self._parameters = parameters or {}
        self._graph_parents = graph_parents
        self._name = name

    @property
    def _parameters(self):
        return self._parameter_dict

    @_parameters.setter
    def _parameters(self, value):
        value.pop("self", None)
        value.pop("__class__", None)
        self._parameter_dict = value

    @classmethod
    def param_shapes(cls, sample_shape, name="DistributionParamShapes"):
        """The shapes of the parameters that give samples of shape `sample_shape`."""
        with name_scope(name, values=[sample_shape]):
            return cls._param_shapes(sample_shape)

    @classmethod
    def param_static_shapes(cls, sample_shape):
        """`param_shapes` as TensorShapes, for a fully known `sample_shape`."""
        if isinstance(sample_shape, tensor_shape.TensorShape):
            if not sample_shape.is_fully_defined():
                raise ValueError("TensorShape sample_shape must be fully defined")
            sample_shape = sample_shape.as_list()
        static = {}
        for pname, shape in cls.param_shapes(sample_shape).items():
            value = tensor_util.constant_value(shape)
            if value is None:
                raise ValueError(
                    "sample_shape must be a fully-defined TensorShape or list/tuple")
            static[pname] = tensor_shape.TensorShape(value)
        return static

    @staticmethod
    def _param_shapes(sample_shape):
        raise NotImplementedError("_param_shapes not implemented")

    name = property(lambda self: self._name, doc="The name scope of this distribution.")
    dtype = property(lambda self: self._dtype, doc="The DType of samples.")
    reparameterization_type = property(lambda self: self._reparameterization_type)
    allow_nan_stats = property(lambda self: self._allow_nan_stats)
    validate_args = property(lambda self: self._validate_args)

    @property
    def parameters(self):
        """The arguments this distribution was made with."""
        return {k: v for k, v in self._parameters.items()
                if not k.startswith("__") and k != "self"}

    def copy(self, **override_parameters_kwargs):
        """A new distribution of this type with some parameters replaced."""
        return type(self)(**dict(self.parameters, **override_parameters_kwargs))

    # Shapes.
    def _batch_shape_tensor(self):
        raise _not_implemented("batch_shape_tensor", self)

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        """The batch shape, as an int32 vector."""
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return convert_to_tensor(self.batch_shape.as_list(), dtype=dtypes.int32,
                                         name="batch_shape")
            return self._batch_shape_tensor()

    def _batch_shape(self):
        return tensor_shape.TensorShape(None)

    @property
    def batch_shape(self):
        """The static batch shape."""
        return tensor_shape.as_shape(self._batch_shape())

    def _event_shape_tensor(self):
        raise _not_implemented("event_shape_tensor", self)

    def event_shape_tensor(self, name="event_shape_tensor"):
        """The event shape, as an int32 vector."""
        with self._name_scope(name):
            if self.event_shape.is_fully_defined():
                return convert_to_tensor(self.event_shape.as_list(), dtype=dtypes.int32,
                                         name="event_shape")
            return self._event_shape_tensor()

    def _event_shape(self):
        return tensor_shape.TensorShape(None)

    @property
    def event_shape(self):
        """The static event shape."""
        return tensor_shape.as_shape(self._event_shape())

    def is_scalar_event(self, name="is_scalar_event"):
        """Whether events are scalars (a bool tensor)."""
        with self._name_scope(name):
            return convert_to_tensor(
                self._is_scalar_helper(self.event_shape, self.event_shape_tensor),
                name="is_scalar_event")

    def is_scalar_batch(self, name="is_scalar_batch"):
        """Whether the batch is a scalar (a bool tensor)."""
        with self._name_scope(name):
            return convert_to_tensor(
                self._is_scalar_helper(self.batch_shape, self.batch_shape_tensor),
                name="is_scalar_batch")

    # Sampling.
    def _sample_n(self, n, seed=None):
        raise _not_implemented("sample_n", self)

    def sample(self, sample_shape=(), seed=None, name="sample"):
        """Samples of shape `sample_shape + batch_shape + event_shape`."""
        with self._name_scope(name, values=[sample_shape]):
            sample_shape = convert_to_tensor(sample_shape, dtype=dtypes.int32,
                                             name="sample_shape")
            sample_shape, n = self._expand_sample_shape_to_vector(sample_shape,
                                                                  "sample_shape")
            samples = self._sample_n(n, seed)
            batch_event_shape = array_ops.shape(samples)[1:]
            final_shape = array_ops.concat([sample_shape, batch_event_shape], 0)
            samples = array_ops.reshape(samples, final_shape)
            return self._set_sample_static_shape(samples, sample_shape)

    # Densities and distribution functions, each with its fallback.
    def _with_fallback(self, name, value, first, second, convert):
        with self._name_scope(name, values=[value]):
            value = _value_tensor(value, self.dtype)
            try:
                return first(value)
            except NotImplementedError as original:
                try:
                    return convert(second(value))
                except NotImplementedError:
                    raise original from None

    def _log_prob(self, value):
        raise _not_implemented("log_prob", self)

    def log_prob(self, value, name="log_prob"):
        """Log probability density/mass of `value`."""
        return self._with_fallback(name, value, self._log_prob, self._prob, math_ops.log)

    def _prob(self, value):
        raise _not_implemented("prob", self)

    def prob(self, value, name="prob"):
        """Probability density/mass of `value`."""
        return self._with_fallback(name, value, self._prob, self._log_prob, math_ops.exp)

    def _log_cdf(self, value):
        raise _not_implemented("log_cdf", self)

    def log_cdf(self, value, name="log_cdf"):
        """Log of the cumulative distribution function at `value`."""
        return self._with_fallback(name, value, self._log_cdf, self._cdf, math_ops.log)

    def _cdf(self, value):
        raise _not_implemented("cdf", self)

    def cdf(self, value, name="cdf"):
        """The cumulative distribution function at `value`."""
        return self._with_fallback(name, value, self._cdf, self._log_cdf, math_ops.exp)

    def _log_survival_function(self, value):
        raise _not_implemented("log_survival_function", self)

    def log_survival_function(self, value, name="log_survival_function"):
        """log(1 - cdf(value))."""
        return self._with_fallback(name, value, self._log_survival_function, self.cdf,
                                   lambda c: math_ops.log1p(-c))

    def _survival_function(self, value):
        raise _not_implemented("survival_function", self)

    def survival_function(self, value, name="survival_function"):
        """1 - cdf(value)."""
        return self._with_fallback(name, value, self._survival_function, self.cdf,
                                   lambda c: 1.0 - c)

    def _quantile(self, value):
        raise _not_implemented("quantile", self)

    def quantile(self, value, name="quantile"):
        """The inverse of the cdf."""
        with self._name_scope(name, values=[value]):
            return self._quantile(_value_tensor(value, self.dtype))

    # Statistics.
    def _entropy(self):
        raise _not_implemented("entropy", self)

    def entropy(self, name="entropy"):
        """Shannon entropy in nats."""
        with self._name_scope(name):
            return self._entropy()

    def _mean(self):
        raise _not_implemented("mean", self)

    def mean(self, name="mean"):
        """The mean."""
        with self._name_scope(name):
            return self._mean()

    def _variance(self):
        raise _not_implemented("variance", self)

    def variance(self, name="variance"):
        """The variance (the square of stddev where only that is given)."""
        with self._name_scope(name):
            try:
                return self._variance()
            except NotImplementedError as original:
                try:
                    return math_ops.square(self._stddev())
                except NotImplementedError:
                    raise original from None

    def _stddev(self):
        raise _not_implemented("stddev", self)

    def stddev(self, name="stddev"):
        """The standard deviation (the root of variance where only that is given)."""
        with self._name_scope(name):
            try:
                return self._stddev()
            except NotImplementedError as original:
                try:
                    return math_ops.sqrt(self._variance())
                except NotImplementedError:
                    raise original from None

    def _covariance(self):
        raise _not_implemented("covariance", self)

    def covariance(self, name="covariance"):
        """The covariance of the event."""
        with self._name_scope(name):
            return self._covariance()

    def _mode(self):
        raise _not_implemented("mode", self)

    def mode(self, name="mode"):
        """The mode."""
        with self._name_scope(name):
            return self._mode()

    def cross_entropy(self, other, name="cross_entropy"):
        """H[self, other] = entropy + KL(self || other)."""
        with self._name_scope(name):
            return kullback_leibler.cross_entropy(self, other,
                                                  allow_nan_stats=self.allow_nan_stats)

    def kl_divergence(self, other, name="kl_divergence"):
        """KL(self || other), by the registered function for the two types."""
        with self._name_scope(name):
            return kullback_leibler.kl_divergence(self, other,
                                                  allow_nan_stats=self.allow_nan_stats)

    def __str__(self):
        batch = (", batch_shape={}".format(self.batch_shape)
                 if self.batch_shape.ndims is not None else "")
        event = (", event_shape={}".format(self.event_shape)
                 if self.event_shape.ndims is not None else "")
        return 'tfp.distributions.{}("{}"{}{}, dtype={})'.format(
            type(self).__name__, self.name, batch, event, self.dtype.name)

    def __repr__(self):
        return "<tfp.distributions.{} '{}' batch_shape={} event_shape={} dtype={}>".format(
            type(self).__name__, self.name, self.batch_shape, self.event_shape,
            self.dtype.name)

    @contextlib.contextmanager
    def _name_scope(self, name=None, values=None):
        with name_scope(self.name):
            with name_scope(name, values=list(values or []) + self._graph_parents) as scope:
                yield scope

    def _expand_sample_shape_to_vector(self, x, name):
        """The sample shape as a vector, and the number of samples it holds."""
        static = tensor_util.constant_value(x)
        np_dtype = x.dtype.as_numpy_dtype
        prod = (math_ops.reduce_prod(x) if static is None
                else np.prod(static, dtype=np_dtype))
        ndims = x.get_shape().ndims
        if ndims is None:
            expanded = util.pick_vector(math_ops.equal(array_ops.rank(x), 0),
                                        np.array([1], dtype=np.int32), array_ops.shape(x))
            x = array_ops.reshape(x, expanded)
        elif ndims == 0:
            if static is not None:
                x = convert_to_tensor(np.array([static], dtype=np_dtype), name=name)
            else:
                x = array_ops.reshape(x, [1])
        elif ndims != 1:
            raise ValueError("Input is neither scalar nor vector.")
        return x, prod

    def _set_sample_static_shape(self, x, sample_shape):
        """Gives `x` what is known of `sample_shape + batch_shape + event_shape`."""
        sample_shape = tensor_shape.TensorShape(tensor_util.constant_value(sample_shape))
        ndims = x.get_shape().ndims
        sample_ndims = sample_shape.ndims
        batch_ndims = self.batch_shape.ndims
        event_ndims = self.event_shape.ndims
        if (ndims is None and sample_ndims is not None and batch_ndims is not None
                and event_ndims is not None):
            ndims = sample_ndims + batch_ndims + event_ndims
            x.set_shape([None] * ndims)
        if ndims is not None and sample_ndims is not None:
            x.set_shape(x.get_shape().merge_with(
                sample_shape.concatenate([None] * (ndims - sample_ndims))))
        if ndims is not None and event_ndims is not None:
            x.set_shape(x.get_shape().merge_with(tensor_shape.TensorShape(
                [None] * (ndims - event_ndims)).concatenate(self.event_shape)))
        if batch_ndims is not None:
            if ndims is not None:
                if sample_ndims is None and event_ndims is not None:
                    sample_ndims = ndims - batch_ndims - event_ndims
                elif event_ndims is None and sample_ndims is not None:
                    event_ndims = ndims - batch_ndims - sample_ndims
            if sample_ndims is not None and event_ndims is not None:
                x.set_shape(x.get_shape().merge_with(
                    tensor_shape.TensorShape([None] * sample_ndims)
                    .concatenate(self.batch_shape).concatenate([None] * event_ndims)))
        return x

    def _is_scalar_helper(self, static_shape, dynamic_shape_fn):
        if static_shape.ndims is not None:
            return static_shape.ndims == 0
        shape = dynamic_shape_fn()
        if (shape.get_shape().ndims is not None
                and shape.get_shape().dims[0].value is not None):
            return shape.get_shape().as_list() == [0]
        return math_ops.equal(array_ops.shape(shape)[0], 0)
