"""Random ops of TF1 (RandomStandardNormal, TruncatedNormal, RandomUniform,
RandomUniformInt, RandomShuffle, Multinomial, RandomGamma, RandomPoissonV2):
registrations, shape functions and NumPy kernels.

Every op carries TF's ``seed``/``seed2`` attrs. Its kernel keeps one generator
per (session, op) in ``ctx.state``, so repeated runs continue one stream and two
sessions of the same graph produce the same sequence. The stream is NumPy's
Philox bit generator keyed by (seed, seed2): reproducible, but not TensorFlow's
own Philox numbers, which are not reproduced bit for bit. seed = seed2 = 0
means a nondeterministic stream, as in TF. The generators live on the host, so
these ops are host-only for a compiled backend.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value, constant_value_as_shape

_SEED_ATTRS = ["seed: int = 0", "seed2: int = 0"]
_MASK64 = (1 << 64) - 1


def generator(ctx):
    """The op's NumPy Generator for this session, created on first use from its seeds."""
    rng = ctx.state.get("rng")
    if rng is None:
        seed = int(ctx.op._attrs.get("seed", 0))
        seed2 = int(ctx.op._attrs.get("seed2", 0))
        if seed == 0 and seed2 == 0:
            bits = np.random.Philox()
        else:
            bits = np.random.Philox(key=((seed & _MASK64) << 64) | (seed2 & _MASK64))
        rng = ctx.state.setdefault("rng", np.random.Generator(bits))
    return rng


def _shape_arg(shape, what="shape"):
    """A shape tuple from a 1-D int array input; InvalidArgumentError if it isn't one."""
    shape = np.asarray(shape)
    if shape.ndim != 1 or shape.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            None, None, f"{what} must be a vector of {{int32,int64}}, got shape "
                        f"[{','.join(str(d) for d in shape.shape)}]")
    dims = tuple(int(d) for d in shape)
    for d in dims:
        if d < 0:
            raise errors.InvalidArgumentError(None, None, f"Dimension {d} must be >= 0")
    return dims


def _mantissa_bits(np_dtype):
    return {np.dtype(np.float16): 10, np.dtype(np.float32): 23}.get(np.dtype(np_dtype), 7)


def _uniform(rng, size, np_dtype):
    """Uniform floats in [0, 1) of `np_dtype`, exactly representable (never 1.0)."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype in (np.float32, np.float64):
        return rng.random(size, dtype=np_dtype)
    bits = _mantissa_bits(np_dtype)
    return (rng.integers(0, 1 << bits, size) * (1.0 / (1 << bits))).astype(np_dtype)


def _normal(rng, size, np_dtype):
    np_dtype = np.dtype(np_dtype)
    if np_dtype in (np.float32, np.float64):
        return rng.standard_normal(size, dtype=np_dtype)
    return rng.standard_normal(size, dtype=np.float32).astype(np_dtype)


def _truncated(rng, size, np_dtype):
    """Standard normal values with those beyond two standard deviations redrawn."""
    work = np.float64 if np.dtype(np_dtype) == np.float64 else np.float32
    out = rng.standard_normal(size, dtype=work)
    flat = out.reshape(-1)
    bad = np.flatnonzero(np.abs(flat) > 2.0)
    while bad.size:
        flat[bad] = rng.standard_normal(bad.size, dtype=work)
        bad = bad[np.abs(flat[bad]) > 2.0]
    return out.astype(np_dtype, copy=False)


def _float_kernel(sample):
    def kernel(shape, *, dtype, ctx):
        return sample(generator(ctx), _shape_arg(shape), dtype.as_numpy_dtype)
    return kernel


def _shape_from_input(op):
    return [constant_value_as_shape(op._inputs[0])]


_FLOAT_OUT = "{half, bfloat16, float, double}"
for _op_type, _sample in (("RandomStandardNormal", _normal), ("TruncatedNormal", _truncated),
                          ("RandomUniform", _uniform)):
    register_op(_op_type, inputs=["shape: T"], outputs=["output: dtype"],
                attrs=_SEED_ATTRS + [f"dtype: {_FLOAT_OUT}", "T: {int32, int64}"],
                shape_fn=_shape_from_input, kernel=_float_kernel(_sample), stateful=True,
                host_only=True)


def _uniform_int_kernel(shape, minval, maxval, *, ctx):
    minval, maxval = np.asarray(minval), np.asarray(maxval)
    for name, v in (("minval", minval), ("maxval", maxval)):
        if v.ndim != 0:
            raise errors.InvalidArgumentError(
                None, None, f"{name} must be 0-D, got shape "
                            f"[{','.join(str(d) for d in v.shape)}]")
    dims = _shape_arg(shape)
    size = int(np.prod(dims, dtype=np.int64))
    if size and minval >= maxval:
        raise errors.InvalidArgumentError(
            None, None, f"Need minval < maxval: {int(minval)} >= {int(maxval)}")
    if not size:
        return np.zeros(dims, dtype=minval.dtype)
    return generator(ctx).integers(int(minval), int(maxval), dims, dtype=minval.dtype)


register_op("RandomUniformInt", inputs=["shape: T", "minval: Tout", "maxval: Tout"],
            outputs=["output: Tout"],
            attrs=_SEED_ATTRS + ["Tout: {int32, int64}", "T: {int32, int64}"],
            shape_fn=_shape_from_input, kernel=_uniform_int_kernel, stateful=True, host_only=True)


def _shuffle_kernel(value, *, ctx):
    value = np.asarray(value)
    if value.ndim == 0 or value.shape[0] <= 1:
        return value.copy()
    return generator(ctx).permutation(value)


register_op("RandomShuffle", inputs=["value: T"], outputs=["output: T"],
            attrs=_SEED_ATTRS + ["T: type"], shape_fn=lambda op: [op._inputs[0]._shape],
            kernel=_shuffle_kernel, stateful=True, host_only=True)


def _multinomial_kernel(logits, num_samples, *, output_dtype, ctx):
    logits = np.asarray(logits)
    if logits.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, "logits should be a matrix, got shape "
                        f"[{','.join(str(d) for d in logits.shape)}]")
    n = int(num_samples)
    if n < 0:
        raise errors.InvalidArgumentError(
            None, None, f"num_samples should be nonnegative, got {n}")
    batch, classes = logits.shape
    if classes == 0 and batch:
        raise errors.InvalidArgumentError(
            None, None, f"num_classes should be positive, got {classes}")
    out = np.zeros((batch, n), dtype=output_dtype.as_numpy_dtype)
    if not batch or not n:
        return out
    work = logits.astype(np.float64)
    finite_max = np.max(np.where(np.isfinite(work), work, -np.inf), axis=1, keepdims=True)
    probs = np.exp(work - np.where(np.isfinite(finite_max), finite_max, 0.0))
    probs[~np.isfinite(probs)] = 0.0
    cdf = np.cumsum(probs, axis=1)
    draws = generator(ctx).random((batch, n)) * cdf[:, -1:]
    for b in range(batch):
        out[b] = np.minimum(np.searchsorted(cdf[b], draws[b], side="right"), classes - 1)
    return out


def _multinomial_shape(op):
    logits = op._inputs[0]._shape
    if logits._dims is not None and len(logits._dims) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(logits._dims)}")
    samples = op._inputs[1]._shape._dims
    if samples is not None and len(samples) != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {len(samples)}")
    n = constant_value(op._inputs[1])
    batch = None if logits._dims is None else logits._dims[0]
    return [TensorShape([batch, None if n is None else int(n)])]


register_op("Multinomial", inputs=["logits: T", "num_samples: int32"],
            outputs=["output: output_dtype"],
            attrs=_SEED_ATTRS + ["T: {float, double, int32, uint8, int16, int8, int64, "
                                 "bfloat16, uint16, half, uint32, uint64}",
                                 "output_dtype: {int32, int64} = DT_INT64"],
            shape_fn=_multinomial_shape, kernel=_multinomial_kernel, stateful=True,
            host_only=True)


def _shape_plus_param(op):
    shape = constant_value_as_shape(op._inputs[0])
    return [shape.concatenate(op._inputs[1]._shape)]


def _gamma_kernel(shape, alpha, *, ctx):
    alpha = np.asarray(alpha)
    size = _shape_arg(shape) + alpha.shape
    with np.errstate(invalid="ignore"):
        out = generator(ctx).standard_gamma(alpha.astype(np.float64), size)
    return out.astype(alpha.dtype)


register_op("RandomGamma", inputs=["shape: S", "alpha: T"], outputs=["output: T"],
            attrs=_SEED_ATTRS + ["S: {int32, int64}", "T: {half, float, double}"],
            shape_fn=_shape_plus_param, kernel=_gamma_kernel, stateful=True, host_only=True)


def _poisson_kernel(shape, rate, *, dtype, ctx):
    rate = np.asarray(rate)
    if np.any(rate < 0):
        raise errors.InvalidArgumentError(None, None, "rate must be non-negative")
    size = _shape_arg(shape) + rate.shape
    return generator(ctx).poisson(rate.astype(np.float64), size).astype(dtype.as_numpy_dtype)


register_op("RandomPoissonV2", inputs=["shape: S", "rate: R"], outputs=["output: dtype"],
            attrs=_SEED_ATTRS + ["S: {int32, int64}",
                                 "R: {half, float, double, int32, int64} = DT_DOUBLE",
                                 "dtype: {half, float, double, int32, int64} = DT_INT64"],
            shape_fn=_shape_plus_param, kernel=_poisson_kernel, stateful=True, host_only=True)


# TensorFlow marks these not differentiable (its random_ops.py); RandomUniformInt and
# RandomPoissonV2 have no gradient entry in TF at all (integer outputs), nor here.
for _op_type in ("RandomStandardNormal", "TruncatedNormal", "RandomUniform", "RandomShuffle",
                 "Multinomial"):
    NotDifferentiable(_op_type)
