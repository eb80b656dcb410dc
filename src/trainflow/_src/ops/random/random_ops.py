"""Random tensors (TF1 `tf.random_normal`, `tf.random_uniform`, ...): graph-building
functions that build the same ops, names and seeds as TensorFlow.

The ops and their kernels are registered in `random_kernels`. Seeds follow TF1's
rules (`framework.random_seed.get_seed`); the numbers come from NumPy's Philox
generator keyed by (seed, seed2), so a seeded graph is reproducible run to run and
session to session, but its values differ from TensorFlow's.
"""
import numpy as np

from trainflow._src.ops.array import shape as shape_lib, slicing
from trainflow._src.ops.control_flow import assert_op, grouping
from trainflow._src.framework import dtypes
from trainflow._src.framework import random_seed
from trainflow._src.framework.random_seed import set_random_seed  # noqa: F401 - tf.set_random_seed
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, dimension_value
from trainflow._src.framework.tensor_util import constant_value_as_shape
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions
from trainflow._src.ops.random import random_kernels  # noqa: F401 - registers the ops

__all__ = ["multinomial", "random_crop", "random_gamma", "random_normal", "random_poisson",
           "random_shuffle", "random_uniform", "set_random_seed", "truncated_normal"]

_UNIFORM_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64,
                   dtypes.int32, dtypes.int64)


def shape_tensor(shape):
    """`shape` as a 1-D int tensor named "shape" (int32 unless a dimension needs int64).

    Raises:
      ValueError: for a TensorShape that is not fully defined.
    """
    dtype = None
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a "
                             "Tensor.")
        shape = shape.as_list()
    if isinstance(shape, (tuple, list)):
        if not shape:
            dtype = dtypes.int32
        else:
            shape = [dimension_value(d) if not isinstance(d, Tensor) else d for d in shape]
    return convert_to_tensor(shape, dtype=dtype, name="shape")


def _set_static_shape(result, shape):
    try:
        result.set_shape(constant_value_as_shape(shape))
    except (ValueError, TypeError):
        pass


def _op(op_type, **kwargs):
    return apply_op(op_type, **kwargs).outputs[0]


def _seeded_op(op_type, seed, **kwargs):
    """An `op_type` op with the `seed`/`seed2` attrs TF1 derives from the op seed `seed`
    (taken just before the op is added: the graph-seed rule counts the ops so far)."""
    seed1, seed2 = random_seed.get_seed(seed)
    return _op(op_type, seed=seed1 or 0, seed2=seed2 or 0, **kwargs)


def _scaled_normal(op_type, default_name, shape, mean, stddev, dtype, seed, name):
    """`op_type` (a standard-normal sampler) * stddev + mean, under `name`."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, default_name, [shape, mean, stddev]) as name:
        shape_t = shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = _seeded_op(op_type, seed, shape=shape_t, dtype=dtype)
        mul = rnd * stddev_t
        value = arith.add(mul, mean_t, name=name)
        _set_static_shape(value, shape_t)
        return value


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples a normal distribution (`tf.random_normal` / `tf.random.normal`).

    Args:
      shape: the output shape (1-D int tensor or Python list).
      mean, stddev: 0-D tensors or Python values of `dtype`.
      dtype: a floating type.
      seed: op-level seed (see `set_random_seed`).
      name: name scope (default "random_normal").

    Returns:
      a tensor of `shape` (built as RandomStandardNormal * stddev + mean).
    """
    return _scaled_normal("RandomStandardNormal", "random_normal", shape, mean, stddev, dtype,
                          seed, name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples a normal distribution with values beyond two stddevs redrawn
    (`tf.truncated_normal`). Arguments as `random_normal`."""
    return _scaled_normal("TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype,
                          seed, name)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Samples a uniform distribution on [minval, maxval) (`tf.random_uniform`).

    Args:
      shape: the output shape.
      minval, maxval: the range; maxval defaults to 1 for floats and is required for
        integer dtypes.
      dtype: float16, bfloat16, float32, float64, int32 or int64.
      seed: op-level seed.
      name: name scope (default "random_uniform").

    Raises:
      ValueError: for another dtype, or an integer dtype without maxval.
    """
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _UNIFORM_DTYPES:
        raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are "
                         f"({', '.join(repr(d) for d in _UNIFORM_DTYPES)}).")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with name_scope(name, "random_uniform", [shape, minval, maxval]) as name:
        shape_t = shape_tensor(shape)
        # The [0, 1) float case builds no min/max constants, like TF.
        minval_is_zero = type(minval) is int and minval == 0
        maxval_is_one = type(maxval) is int and maxval == 1
        if not minval_is_zero or not maxval_is_one or dtype.is_integer:
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        if dtype.is_integer:
            result = _seeded_op("RandomUniformInt", seed, shape=shape_t, minval=minval,
                                maxval=maxval, name=name)
        else:
            result = _seeded_op("RandomUniform", seed, shape=shape_t, dtype=dtype)
            if minval_is_zero:
                if not maxval_is_one:
                    result = arith.multiply(result, maxval)
            else:
                result = arith.add(result * (maxval - minval), minval, name=name)
        _set_static_shape(result, shape_t)
        return result


def random_shuffle(value, seed=None, name=None):
    """Shuffles `value` along its first dimension (`tf.random_shuffle`)."""
    return _seeded_op("RandomShuffle", seed, value=value, name=name)


def _multinomial(logits, num_samples, dtype, seed):
    logits = convert_to_tensor(logits, name="logits")
    dtype = dtypes.as_dtype(dtype) if dtype else dtypes.int64
    if dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are "
                         "(tf.int32, tf.int64).")
    return _seeded_op("Multinomial", seed, logits=logits, num_samples=num_samples,
                      output_dtype=dtype)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """Draws class indices from the categorical distributions given by `logits`
    ([batch, classes], unnormalized log-probabilities) (`tf.multinomial`).

    Returns:
      a [batch, num_samples] tensor of `output_dtype` (default int64).
    """
    with name_scope(name, "multinomial", [logits]):
        return _multinomial(logits, num_samples, output_dtype, seed)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """`tf.random.categorical`: `multinomial` with the TF2 argument order."""
    with name_scope(name, "categorical", [logits]):
        return _multinomial(logits, num_samples, dtype, seed)


def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    """Samples Gamma(alpha, beta) distributions (`tf.random_gamma`).

    Returns:
      a tensor of shape `shape + broadcast(alpha, beta).shape`, never below the
      smallest positive normal of `dtype`.
    """
    with name_scope(name, "random_gamma", [shape, alpha, beta]):
        shape = convert_to_tensor(shape, name="shape", dtype=dtypes.int32)
        alpha = convert_to_tensor(alpha, name="alpha", dtype=dtype)
        beta = convert_to_tensor(beta if beta is not None else 1, name="beta", dtype=dtype)
        broadcast_shape = shape_lib.broadcast_dynamic_shape(shape_lib.shape(alpha),
                                                            shape_lib.shape(beta))
        alpha_broadcast = shape_lib.broadcast_to(alpha, broadcast_shape)
        sample = _seeded_op("RandomGamma", seed, shape=shape, alpha=alpha_broadcast)
        tiny = np.finfo(dtypes.as_dtype(dtype).as_numpy_dtype).tiny
        return arith.maximum(tiny, sample / beta)


def random_poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None):
    """Samples Poisson(lam) distributions (`tf.random_poisson`); output shape
    `shape + lam.shape`."""
    with name_scope(name, "random_poisson", [lam, shape]):
        shape = convert_to_tensor(shape, name="shape", dtype=dtypes.int32)
        return _seeded_op("RandomPoissonV2", seed, shape=shape, rate=lam, dtype=dtype)


def random_crop(value, size, seed=None, name=None):
    """A random `size`-shaped slice of `value` (`tf.random_crop`).

    Raises:
      InvalidArgumentError (at run time): if `size` exceeds `value`'s shape.
    """
    with name_scope(name, "random_crop", [value, size]) as name:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = shape_lib.shape(value)
        check = assert_op.Assert(
            reductions.reduce_all(shape >= size),
            ["Need value.shape >= size, got ", shape, size], summarize=1000)
        shape = grouping.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = random_uniform(shape_lib.shape(shape), dtype=size.dtype, maxval=size.dtype.max,
                                seed=seed) % limit
        return slicing.slice(value, offset, size, name=name)
