"""TF1's learning-rate schedules (`tf.train.exponential_decay` and friends).

Each function builds the schedule's ops for a `global_step` (a Variable or integer/float
Tensor) under TF's name scope (`ExponentialDecay`, `PolynomialDecay`, `SGDRDecay`, ...)
and returns the decayed rate, in the dtype of `learning_rate` (float32 for Python floats,
float64 for float64 tensors), computed with TF's formulas in the same op order.
"""
import math

from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.nest_util import flatten_plain
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow.case import case
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.random import random_ops


def _require_step(global_step, fn):
    if global_step is None:
        raise ValueError(f"global_step is required for {fn}.")


def _start(learning_rate, global_step, fn):
    """(initial rate tensor, its dtype, the step cast to it, math_ops module)."""
    _require_step(global_step, fn)
    lr = convert_to_tensor(learning_rate, name="initial_learning_rate")
    dtype = lr.dtype
    return lr, dtype, math_ops.cast(global_step, dtype), math_ops


def _scope(name, default):
    # TF's schedules open name_scope_v2(name or default): the scope and the result op
    # share its (unique) name.
    return name_scope(name or default)


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """learning_rate * decay_rate ^ (global_step / decay_steps), floored when `staircase`.

    Raises:
      ValueError: if `global_step` is None.
    """
    _require_step(global_step, "exponential_decay")
    return _exponential(learning_rate, global_step, decay_steps, decay_rate, staircase, name)


def _exponential(learning_rate, global_step, decay_steps, decay_rate, staircase, name):
    with _scope(name, "ExponentialDecay") as scope:
        lr, dtype, step, math_ops = _start(learning_rate, global_step, "exponential_decay")
        p = step / math_ops.cast(decay_steps, dtype)
        if staircase:
            p = math_ops.floor(p)
        return math_ops.multiply(lr, math_ops.pow(math_ops.cast(decay_rate, dtype), p),
                                 name=scope)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """learning_rate * exp(-decay_rate * global_step / decay_steps) (staircase floors).

    Raises:
      ValueError: if `global_step` is None.
    """
    _require_step(global_step, "natural_exp_decay")
    rate = math_ops.exp(math_ops.negative(decay_rate))
    return _exponential(learning_rate, global_step, decay_steps, rate, staircase, name)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None):
    """learning_rate / (1 + decay_rate * global_step / decay_steps) (staircase floors).

    Raises:
      ValueError: if `global_step` is None.
    """
    with _scope(name, "InverseTimeDecay") as scope:
        lr, dtype, step, math_ops = _start(learning_rate, global_step, "inverse_time_decay")
        p = step / math_ops.cast(decay_steps, dtype)
        if staircase:
            p = math_ops.floor(p)
        one = math_ops.cast(constant(1), dtype)
        denom = math_ops.add(one, math_ops.multiply(math_ops.cast(decay_rate, dtype), p))
        return math_ops.divide(lr, denom, name=scope)


def piecewise_constant(x, boundaries, values, name=None):
    """values[i] while boundaries[i-1] < x <= boundaries[i] (values[0] up to and at
    boundaries[0], values[-1] beyond the last boundary).

    Raises:
      ValueError: if a boundary's dtype differs from x's (int32 boundaries are cast for
        an int64 x), or the values' dtypes differ.
    """
    _require_step(x, "piecewise_constant")
    boundaries = [convert_to_tensor(b) for b in flatten_plain(boundaries)]
    values = [convert_to_tensor(v) for v in flatten_plain(values)]
    x = convert_to_tensor(x)
    for i, b in enumerate(boundaries):
        if b.dtype.base_dtype != x.dtype.base_dtype:
            if b.dtype.base_dtype == dtypes.int32 and x.dtype.base_dtype == dtypes.int64:
                boundaries[i] = math_ops.cast(b, x.dtype.base_dtype)
            else:
                raise ValueError("Boundaries (%s) must have the same dtype as x (%s)."
                                 % (b.dtype.base_dtype, x.dtype.base_dtype))
    for v in values[1:]:
        if v.dtype.base_dtype != values[0].dtype.base_dtype:
            raise ValueError("Values must have elements all with the same dtype (%s vs %s)."
                             % (values[0].dtype.base_dtype, v.dtype.base_dtype))
    if len(values) != len(boundaries) + 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with _scope(name, "PiecewiseConstant"):
        pairs = [(x <= boundaries[0], lambda: values[0]),
                 (x > boundaries[-1], lambda: values[-1])]
        for low, high, v in zip(boundaries[:-1], boundaries[1:], values[1:-1]):
            pairs.append(((x > low) & (x <= high), lambda v=v: v))
        return case(pairs, lambda: values[0], exclusive=True)


piecewise_constant_decay = piecewise_constant


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None):
    """(learning_rate - end) * (1 - step / decay_steps) ^ power + end, the step held at
    decay_steps, or (with `cycle`) decay_steps stretched to the next multiple.

    Raises:
      ValueError: if `global_step` is None.
    """
    with _scope(name, "PolynomialDecay") as scope:
        lr, dtype, step, math_ops = _start(learning_rate, global_step, "polynomial_decay")
        end = math_ops.cast(end_learning_rate, dtype)
        power_t = math_ops.cast(power, dtype)
        steps = math_ops.cast(decay_steps, dtype)
        if cycle:
            multiplier = array_ops.where_v2(math_ops.equal(step, 0), 1.0,
                                            math_ops.ceil(step / decay_steps))
            steps = math_ops.multiply(steps, multiplier)
        else:
            step = math_ops.minimum(step, steps)
        p = math_ops.divide(step, steps)
        return math_ops.add(math_ops.multiply(lr - end, math_ops.pow(1 - p, power_t)), end,
                            name=scope)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) /
    decay_steps)) + alpha) (Loshchilov & Hutter).

    Raises:
      ValueError: if `global_step` is None.
    """
    _require_step(global_step, "cosine_decay")
    with _scope(name, "CosineDecay"):
        lr, dtype, step, _ = _start(learning_rate, global_step, "cosine_decay")
        steps = math_ops.cast(decay_steps, dtype)
        fraction = math_ops.minimum(step, steps) / steps
        cosine = 0.5 * (1.0 + math_ops.cos(constant(math.pi) * fraction))
        return math_ops.multiply(lr, (1 - alpha) * cosine + alpha)


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0,
                          m_mul=1.0, alpha=0.0, name=None):
    """Cosine decay with warm restarts (SGDR): periods grow by `t_mul`, and each restart's
    peak is scaled by `m_mul`.

    Raises:
      ValueError: if `global_step` is None.
    """
    with _scope(name, "SGDRDecay") as scope:
        lr, dtype, step, math_ops = _start(learning_rate, global_step, "cosine_decay_restarts")
        first = math_ops.cast(first_decay_steps, dtype)
        alpha_t = math_ops.cast(alpha, dtype)
        t_mul_t = math_ops.cast(t_mul, dtype)
        m_mul_t = math_ops.cast(m_mul, dtype)
        fraction = step / first

        def compute(fraction, geometric):
            if geometric:
                i_restart = math_ops.floor(math_ops.log(1.0 - fraction * (1.0 - t_mul_t)) /
                                           math_ops.log(t_mul_t))
                sum_r = (1.0 - t_mul_t ** i_restart) / (1.0 - t_mul_t)
                fraction = (fraction - sum_r) / t_mul_t ** i_restart
            else:
                i_restart = math_ops.floor(fraction)
                fraction -= i_restart
            return i_restart, fraction

        i_restart, fraction = cond(math_ops.equal(t_mul_t, 1.0),
                                   lambda: compute(fraction, False),
                                   lambda: compute(fraction, True))
        cosine = 0.5 * m_mul_t ** i_restart * (1.0 + math_ops.cos(constant(math.pi) * fraction))
        return math_ops.multiply(lr, (1 - alpha_t) * cosine + alpha_t, name=scope)


def _linear_cosine(learning_rate, global_step, decay_steps, num_periods, alpha, beta, scope,
                   fn, noise=None):
    lr, dtype, step, math_ops = _start(learning_rate, global_step, fn)
    steps = math_ops.cast(decay_steps, dtype)
    periods = math_ops.cast(num_periods, dtype)
    alpha_t, beta_t = math_ops.cast(alpha, dtype), math_ops.cast(beta, dtype)
    step = math_ops.minimum(step, steps)
    linear = (steps - step) / steps
    if noise is not None:
        linear = noise(linear, step, dtype)
    fraction = 2.0 * periods * (step / steps)
    cosine = 0.5 * (1.0 + math_ops.cos(constant(math.pi) * fraction))
    return math_ops.multiply(lr, (alpha_t + linear) * cosine + beta_t, name=scope)


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0,
                        beta=0.001, name=None):
    """learning_rate * ((alpha + linear) * cosine + beta), linear going 1 -> 0 and
    cosine making `num_periods` periods over `decay_steps`.

    Raises:
      ValueError: if `global_step` is None.
    """
    _require_step(global_step, "linear_cosine_decay")
    with _scope(name, "LinearCosineDecay") as scope:
        return _linear_cosine(learning_rate, global_step, decay_steps, num_periods, alpha,
                              beta, scope, "linear_cosine_decay")


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0,
                              variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001,
                              name=None):
    """linear_cosine_decay with Gaussian noise of variance
    initial_variance / (1 + step) ^ variance_decay added to the linear term.

    Raises:
      ValueError: if `global_step` is None.
    """
    _require_step(global_step, "noisy_linear_cosine_decay")

    def noise(linear, step, dtype):
        variance = math_ops.cast(initial_variance, dtype) / math_ops.pow(
            1.0 + step, math_ops.cast(variance_decay, dtype))
        return linear + random_ops.random_normal(linear.shape, stddev=math_ops.sqrt(variance))

    with _scope(name, "NoisyLinearCosineDecay") as scope:
        return _linear_cosine(learning_rate, global_step, decay_steps, num_periods, alpha,
                              beta, scope, "noisy_linear_cosine_decay", noise)
