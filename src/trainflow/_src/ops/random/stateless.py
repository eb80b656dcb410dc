"""The stateless random ops with TensorFlow's numbers: StatelessRandomGetKeyCounter,
Stateless{RandomUniform, RandomNormal, TruncatedNormal, RandomUniformInt,
RandomUniformFullInt}V2 and their V1 forms keyed by the seed directly (registrations,
NumPy kernels over `philox_kernels`, not differentiable), and `tf.random.stateless_uniform`,
`stateless_normal`, `stateless_truncated_normal` building them as TF 2.21 does
(auto_select: Philox on the CPU)."""
import enum

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value, constant_value_as_shape
from trainflow._src.ops.array import join
from trainflow._src.ops.math import arith
from trainflow._src.ops.random import philox_kernels as pk
from trainflow._src.ops.random.random_ops import shape_tensor

__all__ = ["Algorithm", "fold_in", "split", "stateless_categorical", "stateless_multinomial",
           "stateless_random_normal", "stateless_random_uniform", "stateless_truncated_normal"]

_FLOATS = "dtype: {half, bfloat16, float, double} = DT_FLOAT"
_SHAPE = "Tshape: {int32, int64} = DT_INT32"
_SAMPLERS = {"Uniform": pk.uniform, "Normal": pk.normal, "TruncatedNormal": pk.truncated_normal}
_ALGS = {"philox": 1, "auto_select": 3, 1: 1, 3: 3}


class Algorithm(enum.Enum):
    """The RNG algorithms of the stateless ops (`tf.random.Algorithm`); this package
    computes Philox, which AUTO_SELECT picks on the CPU."""
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _dims(shape):
    shape = np.asarray(shape)
    if shape.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"shape must be a vector of {{int32,int64}}, got shape "
                        f"[{','.join(str(d) for d in shape.shape)}]")
    return tuple(int(d) for d in shape)


def _seed_words(seed):
    seed = np.asarray(seed)
    if seed.shape != (2,):
        raise errors.InvalidArgumentError(
            None, None, f"seed must have shape [2], not [{','.join(str(d) for d in seed.shape)}]")
    return pk.key_counter_from_seed(seed)


def _check_alg(alg):
    if int(alg) not in (1, 3):
        raise errors.InvalidArgumentError(None, None, f"Unsupported algorithm id: {int(alg)}")


def _sample(kind, dims, key, counter, np_dtype):
    n = int(np.prod(dims, dtype=np.int64))
    half = np.dtype(np_dtype).itemsize < 4
    wide = np.float32 if half and kind != "Uniform" else np_dtype
    return _SAMPLERS[kind](key, counter, n, wide).astype(np_dtype).reshape(dims)


def _get_key_counter_kernel(seed, *, Tseed):  # noqa: N803 - TF's attr name
    key, counter = _seed_words(seed)
    return (np.array([key[0] | key[1] << 32], np.uint64),
            np.array([counter[0] | counter[1] << 32, counter[2] | counter[3] << 32], np.uint64))


def _v2_kernel(kind):
    def kernel(shape, key, counter, alg, *, dtype, Tshape):  # noqa: N803 - TF's attr names
        _check_alg(alg)
        k, c = pk.key_counter_from_tensors(key, counter)
        return _sample(kind, _dims(shape), k, c, dtype.as_numpy_dtype)
    return kernel


def _v1_kernel(kind):
    def kernel(shape, seed, *, dtype, T, Tseed):  # noqa: N803 - TF's attr names
        k, c = _seed_words(seed)
        return _sample(kind, _dims(shape), k, c, dtype.as_numpy_dtype)
    return kernel


def _int_values(dims, key, counter, minval, maxval, np_dtype):
    n = int(np.prod(dims, dtype=np.int64))
    if n and int(minval) >= int(maxval):
        raise errors.InvalidArgumentError(
            None, None, f"Need minval < maxval: {int(minval)} >= {int(maxval)}")
    return pk.uniform_int(key, counter, n, minval, maxval, np_dtype).reshape(dims)


def _int_v2_kernel(shape, key, counter, alg, minval, maxval, *, dtype, Tshape):  # noqa: N803
    _check_alg(alg)
    k, c = pk.key_counter_from_tensors(key, counter)
    return _int_values(_dims(shape), k, c, minval, maxval, dtype.as_numpy_dtype)


def _int_v1_kernel(shape, seed, minval, maxval, *, dtype, T, Tseed):  # noqa: N803
    k, c = _seed_words(seed)
    return _int_values(_dims(shape), k, c, minval, maxval, dtype.as_numpy_dtype)


def _full_int_v2_kernel(shape, key, counter, alg, *, dtype, Tshape):  # noqa: N803
    _check_alg(alg)
    k, c = pk.key_counter_from_tensors(key, counter)
    dims = _dims(shape)
    n = int(np.prod(dims, dtype=np.int64))
    return pk.uniform_full_int(k, c, n, dtype.as_numpy_dtype).reshape(dims)


def _full_int_v1_kernel(shape, seed, *, dtype, T, Tseed):  # noqa: N803
    k, c = _seed_words(seed)
    dims = _dims(shape)
    n = int(np.prod(dims, dtype=np.int64))
    return pk.uniform_full_int(k, c, n, dtype.as_numpy_dtype).reshape(dims)


def _shape_fn(op):
    op._inputs[0]._shape.with_rank(1)
    if len(op._inputs) == 2 or op.type.endswith("Int") and len(op._inputs) == 4:
        op._inputs[1]._shape.with_rank(1).merge_with(TensorShape([2]))
    return [constant_value_as_shape(op._inputs[0])]


def _key_counter_shape(op):
    op._inputs[0]._shape.with_rank(1).merge_with(TensorShape([2]))
    return [TensorShape([1]), TensorShape([2])]


register_op("StatelessRandomGetKeyCounter", inputs=["seed: Tseed"],
            outputs=["key: uint64", "counter: uint64"],
            attrs=["Tseed: {int32, int64} = DT_INT64"], shape_fn=_key_counter_shape,
            kernel=_get_key_counter_kernel)
_V2_IN = ["shape: Tshape", "key: uint64", "counter: uint64", "alg: int32"]
_V1_IN = ["shape: T", "seed: Tseed"]
_V1_ATTRS = ["T: {int32, int64} = DT_INT32", "Tseed: {int32, int64} = DT_INT64"]
for _kind, _v2, _v1 in (("Uniform", "StatelessRandomUniformV2", "StatelessRandomUniform"),
                        ("Normal", "StatelessRandomNormalV2", "StatelessRandomNormal"),
                        ("TruncatedNormal", "StatelessTruncatedNormalV2",
                         "StatelessTruncatedNormal")):
    register_op(_v2, inputs=_V2_IN, outputs=["output: dtype"], attrs=[_FLOATS, _SHAPE],
                shape_fn=_shape_fn, kernel=_v2_kernel(_kind))
    register_op(_v1, inputs=_V1_IN, outputs=["output: dtype"], attrs=[_FLOATS] + _V1_ATTRS,
                shape_fn=_shape_fn, kernel=_v1_kernel(_kind))
register_op("StatelessRandomUniformIntV2", inputs=_V2_IN + ["minval: dtype", "maxval: dtype"],
            outputs=["output: dtype"], attrs=["dtype: {int32, int64, uint32, uint64}", _SHAPE],
            shape_fn=_shape_fn, kernel=_int_v2_kernel)
register_op("StatelessRandomUniformInt", inputs=_V1_IN + ["minval: dtype", "maxval: dtype"],
            outputs=["output: dtype"], attrs=["dtype: {int32, int64}"] + _V1_ATTRS,
            shape_fn=_shape_fn, kernel=_int_v1_kernel)
register_op("StatelessRandomUniformFullIntV2", inputs=_V2_IN, outputs=["output: dtype"],
            attrs=["dtype: {int32, int64, uint32, uint64} = DT_UINT64", _SHAPE],
            shape_fn=_shape_fn, kernel=_full_int_v2_kernel)
register_op("StatelessRandomUniformFullInt", inputs=_V1_IN, outputs=["output: dtype"],
            attrs=["dtype: {int32, int64, uint32, uint64} = DT_UINT64"] + _V1_ATTRS,
            shape_fn=_shape_fn, kernel=_full_int_v1_kernel)
for _op_type in ("StatelessRandomUniformV2",
                 "StatelessRandomNormalV2", "StatelessTruncatedNormalV2",
                 "StatelessRandomUniformIntV2", "StatelessRandomUniformFullIntV2",
                 "StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal",
                 "StatelessRandomUniformInt", "StatelessRandomUniformFullInt"):
    NotDifferentiable(_op_type)


def _key_counter_alg(seed, alg):
    if alg is None:
        alg = "auto_select"
    if isinstance(alg, Algorithm):
        alg = alg.value
    if isinstance(alg, str):
        alg = alg.lower()
    if alg not in _ALGS:
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                         "'philox' and 'auto_select' (Philox on the CPU).")
    op = apply_op("StatelessRandomGetKeyCounter", seed=seed)
    return op.outputs[0], op.outputs[1], _ALGS[alg]


def _set_static_shape(result, shape):
    try:
        result.set_shape(constant_value_as_shape(shape))
    except (ValueError, TypeError):
        pass


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32,
                             name=None, alg="auto_select"):
    """Deterministic uniform values on [minval, maxval) for a [2] int seed: TF's numbers
    (`tf.random.stateless_uniform`). An integer dtype needs minval and maxval both given
    (or both None for the dtype's full range).

    Raises:
      ValueError: for an unsupported dtype, one of minval / maxval None for an integer
        dtype, or an unsupported alg.
    """
    dtype = dtypes.as_dtype(dtype)
    accepted = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32,
                dtypes.int64, dtypes.uint32, dtypes.uint64)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are "
                         f"{accepted}.")
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype!r}, argument `minval` and "
                             f"`maxval` must be both None or not None. Got `minval`={minval} "
                             f"and `maxval`={maxval}.")
    elif maxval is None:
        maxval = 1
    with name_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as name:
        shape = shape_tensor(shape)
        if dtype.is_integer and minval is None:
            key, counter, alg = _key_counter_alg(seed, alg)
            result = apply_op("StatelessRandomUniformFullIntV2", shape=shape, key=key,
                              counter=counter, alg=alg, dtype=dtype, name=name).outputs[0]
        else:
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
            key, counter, alg = _key_counter_alg(seed, alg)
            if dtype.is_integer:
                result = apply_op("StatelessRandomUniformIntV2", shape=shape, key=key,
                                  counter=counter, alg=alg, minval=minval, maxval=maxval,
                                  name=name).outputs[0]
            else:
                rnd = apply_op("StatelessRandomUniformV2", shape=shape, key=key,
                               counter=counter, alg=alg, dtype=dtype).outputs[0]
                result = arith.add(rnd * (maxval - minval), minval, name=name)
        _set_static_shape(result, shape)
        return result


def _stateless_normal(op_type, default_name, shape, seed, mean, stddev, dtype, name, alg):
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, default_name, [shape, seed, mean, stddev]) as name:
        shape = shape_tensor(shape)
        mean = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        key, counter, alg = _key_counter_alg(seed, alg)
        rnd = apply_op(op_type, shape=shape, key=key, counter=counter, alg=alg,
                       dtype=dtype).outputs[0]
        result = arith.add(rnd * stddev, mean, name=name)
        _set_static_shape(result, shape)
        return result


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                            name=None, alg="auto_select"):
    """Deterministic normal values for a [2] int seed: TF's numbers
    (`tf.random.stateless_normal`)."""
    return _stateless_normal("StatelessRandomNormalV2", "stateless_random_normal", shape, seed,
                             mean, stddev, dtype, name, alg)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                               name=None, alg="auto_select"):
    """Deterministic normal values within two stddevs for a [2] int seed: TF's numbers
    (`tf.random.stateless_truncated_normal`)."""
    return _stateless_normal("StatelessTruncatedNormalV2", "stateless_truncated_normal", shape,
                             seed, mean, stddev, dtype, name, alg)


def split(seed, num=2, alg="auto_select"):
    """`num` new [2] seeds from a [2] seed: [num, 2] of the seed's dtype
    (`tf.random.split`)."""
    seed = convert_to_tensor(seed)
    return stateless_random_uniform(shape=[num, 2], seed=seed, dtype=seed.dtype, minval=None,
                                    maxval=None, alg=alg)


def fold_in(seed, data, alg="auto_select"):
    """A new [2] seed from a [2] seed and an integer `data` (`tf.random.fold_in`)."""
    data = convert_to_tensor(data)
    seed1 = stateless_random_uniform(shape=[], seed=seed, dtype=data.dtype, minval=None,
                                     maxval=None, alg=alg)
    return join.stack([seed1, data])


def _multinomial_kernel(logits, num_samples, seed, *, T, Tseed, output_dtype):  # noqa: N803
    if np.ndim(logits) != 2:
        raise errors.InvalidArgumentError(
            None, None, f"logits should be a matrix, got shape "
                        f"[{','.join(str(d) for d in np.shape(logits))}]")
    n = int(num_samples)
    if n < 0:
        raise errors.InvalidArgumentError(None, None, f"num_samples should be nonnegative, got {n}")
    k, c = _seed_words(seed)
    return pk.multinomial(k, c, np.asarray(logits), n, output_dtype.as_numpy_dtype)


def _multinomial_shape(op):
    logits = op._inputs[0]._shape.with_rank(2)
    op._inputs[1]._shape.with_rank(0)
    op._inputs[2]._shape.with_rank(1).merge_with(TensorShape([2]))
    batch = logits._dims[0] if logits._dims is not None else None
    samples = constant_value(op._inputs[1])
    return [TensorShape([batch, None if samples is None else int(samples)])]


register_op("StatelessMultinomial", inputs=["logits: T", "num_samples: int32", "seed: Tseed"],
            outputs=["output: output_dtype"],
            attrs=["T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, "
                   "half, uint32, uint64}", "Tseed: {int32, int64} = DT_INT64",
                   "output_dtype: {int32, int64} = DT_INT64"],
            shape_fn=_multinomial_shape, kernel=_multinomial_kernel)
NotDifferentiable("StatelessMultinomial")


def _stateless_multinomial(logits, num_samples, dtype, seed):
    logits = convert_to_tensor(logits, name="logits")
    dtype = dtypes.as_dtype(dtype) if dtype else dtypes.int64
    accepted = (dtypes.int32, dtypes.int64)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"{accepted}.")
    return apply_op("StatelessMultinomial", logits=logits, num_samples=num_samples, seed=seed,
                    output_dtype=dtype).outputs[0]


def stateless_multinomial(logits, num_samples, seed, output_dtype=dtypes.int64, name=None):
    """Deterministic samples of class indices from [batch, classes] logits for a [2]
    seed: [batch, num_samples] (`tf.random.stateless_multinomial`)."""
    with name_scope(name, "stateless_multinomial", [logits, seed]):
        return _stateless_multinomial(logits, num_samples, output_dtype, seed)


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """Deterministic samples of class indices from [batch, classes] logits for a [2]
    seed: [batch, num_samples] (`tf.random.stateless_categorical`)."""
    with name_scope(name, "stateless_categorical", [logits, seed]):
        return _stateless_multinomial(logits, num_samples, dtype, seed)
