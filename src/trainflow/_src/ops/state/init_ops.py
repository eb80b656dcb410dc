"""Variable initializers of TF1 (`tf.zeros_initializer`, `tf.glorot_uniform_initializer`,
...): callables ``init(shape, dtype=None, partition_info=None) -> Tensor``.

Each builds the same ops as TensorFlow's (under `get_variable` they land in
``<var>/Initializer/``), so graphs and seeds line up with TF's. For a partitioned
variable, `partition_info` gives the full shape, and the scaling initializers
compute their fans from it, as TF does.
"""
import abc
import math
import numpy as np

from trainflow._src.ops.script import script_ops
from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework import constant_op
from trainflow._src.ops.array import create
from trainflow._src.ops.array import diag
from trainflow._src.ops.array import layout
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.array import slicing
from trainflow._src.ops.math import arith
from trainflow._src.ops.random import random_ops

__all__ = ["constant_initializer", "glorot_normal_initializer", "glorot_uniform_initializer",
           "ones_initializer", "orthogonal_initializer", "random_normal_initializer",
           "random_uniform_initializer", "truncated_normal_initializer",
           "uniform_unit_scaling_initializer", "variance_scaling_initializer",
           "zeros_initializer"]

# scipy.stats.truncnorm.std(a=-2, b=2, loc=0., scale=1.): the stddev of a unit normal
# truncated at two standard deviations.
_TRUNCATED_STD = .87962566103423978


def _float_dtype(dtype):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def _as_list(shape):
    if isinstance(shape, TensorShape):
        return shape.as_list()
    return list(shape)


class Initializer(abc.ABC):
    """Base class of initializers: ``init(shape, dtype=None, partition_info=None)``."""

    @abc.abstractmethod
    def __call__(self, shape, dtype=None, partition_info=None):
        """Builds the initial value.

        Args:
          shape: the shape of the variable (or of its partition).
          dtype: the element type; defaults to the initializer's dtype.
          partition_info: for a partition of a PartitionedVariable, its place in the
            full variable (`full_shape`, `var_offset`).

        Returns:
          a Tensor of `shape` and `dtype`.
        """

    def get_config(self):
        """The constructor arguments, JSON-friendly (dtypes as names)."""
        return {}

    @classmethod
    def from_config(cls, config):
        """Rebuilds an initializer from `get_config()`'s output."""
        return cls(**config)


class Zeros(Initializer):
    """Initializes to 0 (`tf.zeros_initializer`)."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return create.zeros(shape, dtype or self.dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    """Initializes to 1 (`tf.ones_initializer`)."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return create.ones(shape, dtype or self.dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    """Initializes to a constant (`tf.constant_initializer`).

    Args:
      value: a Python scalar, list/tuple or ndarray; a scalar or short list is padded
        to the variable's shape by repeating its last element (TF1 semantics).
      dtype: the default element type.
      verify_shape: require `value` to have the variable's shape exactly.

    Raises:
      TypeError: for any other kind of value.
    """

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {type(value)} (expected Python "
                            "scalar, list or tuple of values, or numpy.ndarray).")
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        if verify_shape is None:
            verify_shape = self._verify_shape
        return constant_op.constant(self.value, dtype=dtype or self.dtype, shape=shape,
                                    verify_shape=verify_shape)

    def get_config(self):
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    """Uniform values in [minval, maxval) (`tf.random_uniform_initializer`)."""

    def __init__(self, minval=.0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_uniform(shape, self.minval, self.maxval, dtype or self.dtype,
                                         seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed,
                "dtype": self.dtype.name}


class RandomNormal(Initializer):
    """Normal values (`tf.random_normal_initializer`).

    Raises:
      ValueError: for a non-floating dtype.
    """

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(shape, self.mean, self.stddev, dtype or self.dtype,
                                        seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


class TruncatedNormal(RandomNormal):
    """Normal values, those beyond two stddevs redrawn (`tf.truncated_normal_initializer`)."""

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.truncated_normal(shape, self.mean, self.stddev, dtype or self.dtype,
                                           seed=self.seed)


class UniformUnitScaling(Initializer):
    """Uniform in [-m, m] with m = factor * sqrt(3 / input_size), input_size being the
    product of all but the last dimension (`tf.uniform_unit_scaling_initializer`)."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor = factor
        self.seed = seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        scale_shape = _as_list(partition_info.full_shape if partition_info is not None
                               else shape)
        input_size = 1.0
        for dim in scale_shape[:-1]:
            input_size *= float(dim)
        max_val = math.sqrt(3 / max(input_size, 1.0)) * self.factor
        return random_ops.random_uniform(shape, -max_val, max_val, dtype or self.dtype,
                                         seed=self.seed)

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


def compute_fans(shape):
    """(fan_in, fan_out) of a weight shape: matrices [in, out], convolution kernels
    [..., in, out] times the receptive field."""
    shape = _as_list(shape)
    if not shape:
        fan_in = fan_out = 1
    elif len(shape) == 1:
        fan_in = fan_out = shape[0]
    elif len(shape) == 2:
        fan_in, fan_out = shape
    else:
        receptive = 1
        for dim in shape[:-2]:
            receptive *= dim
        fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
    return int(fan_in), int(fan_out)


class VarianceScaling(Initializer):
    """Samples with variance scale / n, n being fan_in, fan_out or their mean
    (`tf.variance_scaling_initializer`).

    Args:
      scale: positive scaling factor.
      mode: "fan_in", "fan_out" or "fan_avg".
      distribution: "truncated_normal" (or its old name "normal"), "untruncated_normal"
        or "uniform".
      seed: op-level seed.
      dtype: a floating type.

    Raises:
      ValueError: for a bad scale, mode, distribution or dtype.
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        if scale <= 0.:
            raise ValueError("`scale` must be positive float.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        scale_shape = partition_info.full_shape if partition_info is not None else shape
        fan_in, fan_out = compute_fans(scale_shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.}[self.mode]
        scale = self.scale / max(1., n)
        if self.distribution in ("normal", "truncated_normal"):
            return random_ops.truncated_normal(shape, 0.0, math.sqrt(scale) / _TRUNCATED_STD,
                                               dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """Uniform in [-l, l], l = sqrt(6 / (fan_in + fan_out)) (`tf.glorot_uniform_initializer`,
    the default initializer of float variables)."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Truncated normal with stddev sqrt(2 / (fan_in + fan_out)) / .8796
    (`tf.glorot_normal_initializer`)."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`, from the QR decomposition of a normal
    sample; shapes of rank > 2 are flattened to [prod(shape[:-1]), shape[-1]]
    (`tf.orthogonal_initializer`).

    Raises:
      ValueError: for a non-floating dtype, or (when called) a shape of rank < 2.
    """

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain = gain
        self.seed = seed
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        shape = _as_list(shape)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        num_rows = int(np.prod(shape[:-1]))
        num_cols = int(shape[-1])
        flat_shape = (num_cols, num_rows) if num_rows < num_cols else (num_rows, num_cols)
        a = random_ops.random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = _reduced_qr(a, flat_shape)
        q *= arith.sign(diag.diag_part(r))
        if num_rows < num_cols:
            q = layout.transpose(q)
        return self.gain * shape_lib.reshape(q, shape)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


def _numpy_qr(a):
    q, r = np.linalg.qr(a.astype(np.float64) if a.dtype.itemsize < 4 else a)
    return q.astype(a.dtype), r.astype(a.dtype)


def _reduced_qr(a, flat_shape):
    """The reduced QR decomposition of the matrix `a` (a `Qr` op, as TF builds).

    Until a `Qr` op is registered, NumPy's QR runs through `py_func` instead.
    """
    try:
        qr = arith.qr
    except AttributeError:
        qr = None
    if qr is not None:
        return qr(a, full_matrices=False)
    q, r = script_ops.py_func(_numpy_qr, [a], [a.dtype, a.dtype], stateful=False, name="Qr")
    rows, cols = flat_shape
    q.set_shape([rows, cols])
    r.set_shape([cols, cols])
    return q, r


def _eye(num_rows, num_cols, dtype):
    """`tf.eye(num_rows, num_cols)`; a constant when the linalg family has no `eye`."""
    # lazy: ops.linalg stays out of `import trainflow`.
    from trainflow._src.ops import linalg
    eye = getattr(linalg, "eye", None)
    if eye is not None:
        return eye(num_rows, num_cols, dtype=dtype)
    return constant_op.constant(np.eye(num_rows, num_cols), dtype=dtype, name="eye")


class Identity(Initializer):
    """`gain` times the identity matrix; 2-D shapes only (`tf.initializers.identity`).

    Raises:
      ValueError: (when called) for a shape that is not 2-D.
    """

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain = gain
        self.dtype = _float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        full_shape = _as_list(shape if partition_info is None else partition_info.full_shape)
        if len(full_shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        initializer = _eye(*full_shape, dtype=dtype or self.dtype)
        if partition_info is not None:
            initializer = slicing.slice(initializer, partition_info.var_offset, shape)
        return self.gain * initializer

    def get_config(self):
        return {"gain": self.gain, "dtype": self.dtype.name}


def lecun_normal(seed=None):
    """VarianceScaling(1, "fan_in", "truncated_normal")."""
    return VarianceScaling(1., "fan_in", "truncated_normal", seed)


def lecun_uniform(seed=None):
    """VarianceScaling(1, "fan_in", "uniform")."""
    return VarianceScaling(1., "fan_in", "uniform", seed)


def he_normal(seed=None):
    """VarianceScaling(2, "fan_in", "truncated_normal")."""
    return VarianceScaling(2., "fan_in", "truncated_normal", seed)


def he_uniform(seed=None):
    """VarianceScaling(2, "fan_in", "uniform")."""
    return VarianceScaling(2., "fan_in", "uniform", seed)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal
identity_initializer = Identity
