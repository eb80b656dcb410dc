"""Loss scales for mixed-precision training (`tf.train.experimental.LossScale`,
`FixedLossScale`, `DynamicLossScale`).

A loss scale multiplies the loss before differentiation so small float16 gradients do
not flush to zero; the gradients are divided by it again before they are applied. The
dynamic scale halves itself (and skips the step) whenever a gradient is Inf/NaN, and
doubles after `increment_period` finite steps in a row.
"""
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.nest_util import flatten_plain
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.control_flow import control_flow_ops
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import variables


class LossScale:
    """The base class: `loss_scale()` gives the current scale as a float32 Tensor and
    `update(grads)` gives (the op updating the scale, a bool saying whether to apply
    the gradients)."""

    def __init__(self):
        self._weights = {}

    def __call__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__")

    def update(self, grads):
        """(update op, should-apply-gradients bool or Tensor) for `grads`."""
        raise NotImplementedError(f"{type(self).__name__} must implement update")

    def _add_weight(self, name, initial_value, dtype=None):
        graph = get_default_graph()
        key = (name, graph)
        if self._weights.get(key) is not None:
            raise RuntimeError("Duplicate variables detected. {}".format((name, id(graph))))
        with variables.init_scope(graph):
            v = variables.Variable(initial_value, name=name, dtype=dtype, trainable=False)
        self._weights[key] = v
        return v

    def get_config(self):
        """The constructor arguments as a dict."""
        return {}

    @classmethod
    def from_config(cls, config):
        """A loss scale built from `get_config()`'s dict."""
        return cls(**config)


class FixedLossScale(LossScale):
    """A constant loss scale.

    Raises:
      ValueError: if `loss_scale_value` is not a Python int/float, or is below 1.
    """

    def __init__(self, loss_scale_value):
        super().__init__()
        if not isinstance(loss_scale_value, (int, float)):
            raise ValueError("loss_scale_value must be a Python int or float.")
        if loss_scale_value < 1:
            raise ValueError("loss_scale_value must be at least 1.")
        self._loss_scale_value = float(loss_scale_value)

    def __call__(self):
        return convert_to_tensor(self._loss_scale_value)

    def update(self, grads):
        del grads
        return control_flow_ops.no_op(), True

    def __repr__(self):
        return "FixedLossScale(%s)" % self._loss_scale_value

    def get_config(self):
        return {"loss_scale_value": self._loss_scale_value}


def _is_all_finite(grads):
    per_grad = [math_ops.reduce_all(math_ops.is_finite(
        g.values if isinstance(g, IndexedSlices) else g)) for g in grads if g is not None]
    return math_ops.reduce_all(per_grad)


def _assign_if_finite(var, value):
    return cond(math_ops.is_finite(value), lambda: var.assign(value).op,
                control_flow_ops.no_op)


class DynamicLossScale(LossScale):
    """A loss scale that adapts: divided by `multiplier` (not below 1) on a step with a
    non-finite gradient, which is then skipped, and multiplied by it after
    `increment_period` finite steps. Its state lives in the non-trainable variables
    `current_loss_scale` (float32) and `good_steps` (int64)."""

    def __init__(self, initial_loss_scale=2 ** 15, increment_period=2000, multiplier=2.):
        super().__init__()
        self._initial_loss_scale = float(initial_loss_scale)
        self._increment_period = int(increment_period)
        self._multiplier = float(multiplier)
        self._current_loss_scale = self._add_weight(
            "current_loss_scale", self._initial_loss_scale, dtypes.float32)
        self._num_good_steps = self._add_weight("good_steps", 0, dtypes.int64)

    initial_loss_scale = property(lambda self: self._initial_loss_scale)
    increment_period = property(lambda self: self._increment_period)
    multiplier = property(lambda self: self._multiplier)

    def __call__(self):
        return convert_to_tensor(self._current_loss_scale)

    def update(self, grads):
        is_finite = _is_all_finite(flatten_plain(grads))
        scale, good = self._current_loss_scale, self._num_good_steps

        def if_finite():
            def grow():
                return control_flow_ops.group(
                    _assign_if_finite(scale, scale * self._multiplier), good.assign(0))
            return cond(good + 1 >= self._increment_period, grow,
                        lambda: good.assign_add(1).op)

        def if_not_finite():
            return control_flow_ops.group(
                good.assign(0), scale.assign(math_ops.maximum(scale / self._multiplier, 1)))

        return cond(is_finite, if_finite, if_not_finite), is_finite

    def __repr__(self):
        return ("DynamicLossScale(initial_loss_scale=%s, increment_period=%s, multiplier=%s)"
                % (self.initial_loss_scale, self.increment_period, self.multiplier))

    def get_config(self):
        return {"initial_loss_scale": self.initial_loss_scale,
                "increment_period": self.increment_period, "multiplier": self.multiplier}


def get(identifier):
    """A LossScale from a number (fixed), "dynamic", a LossScale, or None.

    Raises:
      ValueError: for anything else.
    """
    if isinstance(identifier, (int, float)):
        return FixedLossScale(identifier)
    if identifier == "dynamic":
        return DynamicLossScale()
    if isinstance(identifier, LossScale) or identifier is None:
        return identifier
    raise ValueError("Could not interpret loss scale identifier: %s" % identifier)
