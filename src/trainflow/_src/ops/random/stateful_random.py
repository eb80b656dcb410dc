"""`tf.random.Generator` (graph mode) and its state ops: RngReadAndSkip, which hands out a
Philox key and counter and moves the counter of a resource-variable state past them, and
NonDeterministicInts; the samples themselves are the stateless V2 ops on that key and
counter, so a Generator gives TensorFlow's numbers.

A Philox state is an int64 [3]: the 128-bit counter (low word first), then the key. Each
draw of n values skips the counter by 256 n, as TensorFlow's kernel does."""
import os

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value_as_shape
from trainflow._src.ops.array import bitcast as bitcast_op
from trainflow._src.ops.array import cast as cast_op
from trainflow._src.ops.array import create, join
from trainflow._src.ops.array import shape as shape_ops
from trainflow._src.ops.math import arith, reductions
from trainflow._src.ops.random.stateless import Algorithm, _check_alg
from trainflow._src.ops.state.resource_variable_ops import buffer_of
from trainflow._src.ops.state.resource_variables import ResourceVariable

__all__ = ["Generator", "create_rng_state", "get_global_generator", "set_global_generator"]

_M64 = (1 << 64) - 1
_PHILOX_STATE_SIZE = 3  # counter (2 words) + key (1 word)
_PHILOX_COUNTER_SIZE = 2
_SKIP_PER_VALUE = 256  # counter steps reserved per value drawn (TF's multiplier)


def _read_and_skip_kernel(resource, alg, delta, *, ctx):
    _check_alg(alg)
    buf = buffer_of(resource, ctx)
    old = np.zeros(_PHILOX_STATE_SIZE, np.int64)
    flat = buf.reshape(-1)
    old[:min(flat.size, _PHILOX_STATE_SIZE)] = flat[:_PHILOX_STATE_SIZE]
    words = old.view(np.uint64)
    counter = (int(words[1]) << 64) | int(words[0])
    counter = (counter + int(delta) * _SKIP_PER_VALUE) & ((1 << 128) - 1)
    flat[:2] = np.array([counter & _M64, counter >> 64], np.uint64).view(np.int64)
    return old


register_op("RngReadAndSkip", inputs=["resource: resource", "alg: int32", "delta: uint64"],
            outputs=["value: int64"], shape_fn=lambda op: [TensorShape([3])],
            kernel=_read_and_skip_kernel, stateful=True, host_only=True)


def _non_deterministic_kernel(shape, *, dtype, shape_dtype):
    dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    count = int(np.prod(dims, dtype=np.int64))
    return np.frombuffer(os.urandom(count * np_dtype.itemsize), np_dtype).reshape(dims)


def _non_deterministic_shape(op):
    return [constant_value_as_shape(op._inputs[0])]


register_op("NonDeterministicInts", inputs=["shape: shape_dtype"], outputs=["output: dtype"],
            attrs=["dtype: type = DT_INT64", "shape_dtype: type = DT_INT64"],
            shape_fn=_non_deterministic_shape, kernel=_non_deterministic_kernel,
            stateful=True, host_only=True)
for _op_type in ("RngReadAndSkip", "NonDeterministicInts"):
    NotDifferentiable(_op_type)


def _alg_to_int(alg):
    """TF's algorithm ids: 1 Philox, 2 ThreeFry, 3 auto-select (Philox on the CPU)."""
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, str):
        names = {"philox": 1, "threefry": 2, "auto_select": 3}
        if alg.lower() not in names:
            raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values "
                             "are 'philox' for the Philox algorithm, 'threefry' for the "
                             "ThreeFry algorithm, and 'auto_select' for auto-selection.")
        return names[alg.lower()]
    return int(alg)


def _state_size(alg):
    if alg in (1, 3):
        return _PHILOX_STATE_SIZE
    if alg == 2:
        return 2
    raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                     "1 for the Philox algorithm, 2 for the ThreeFry algorithm, and 3 for "
                     "auto-selection.")


def _to_int64(n):
    return n - (1 << 64) if isinstance(n, int) and n > (1 << 63) - 1 else n


def _make_1d_state(state_size, seed):
    """The seed as `state_size` int64 words: an int cut into 64-bit words low first, any
    other seed flattened, cut to size and zero-padded on the left."""
    if isinstance(seed, int):
        words = []
        for _ in range(state_size):
            words.append(seed & _M64)
            seed >>= 64
        seed = words
    if isinstance(seed, (list, tuple)):
        seed = [_to_int64(s) for s in seed]
    seed = cast_op.cast(seed, dtypes.int64)
    seed = shape_ops.reshape(seed, [-1])[0:state_size]
    size = seed.shape[0] if seed.shape.rank else None
    if size is None:
        size = shape_ops.shape(seed)[0]
    padding = create.zeros([arith.maximum(state_size - size, 0)], seed.dtype)
    seed = join.concat([padding, seed], axis=0)
    seed.set_shape([state_size])
    return seed


def create_rng_state(seed, alg):
    """The initial state (an int64 tensor) of a Generator of algorithm `alg` from `seed`."""
    alg = _alg_to_int(alg)
    return _make_1d_state(_state_size(alg), seed)


def _state_tensor(t):
    if isinstance(t, (list, tuple)):
        t = [_to_int64(v) for v in t]
    elif isinstance(t, int):
        t = _to_int64(t)
    return cast_op.cast(t, dtypes.int64)


def _shape_tensor(shape):
    dtype = dtypes.int64 if isinstance(shape, (tuple, list)) and not shape else None
    return convert_to_tensor(shape, dtype=dtype, name="shape")


class Generator:
    """A random-number generator whose state is a resource variable
    (`random_generator/StateVar`); each draw reads a key and counter and skips the state."""

    @classmethod
    def from_state(cls, state, alg):
        """A generator with the given state (a tensor, value or Variable)."""
        return cls(alg=alg, state=state)

    @classmethod
    def from_seed(cls, seed, alg=None):
        """A generator whose state comes from an integer seed."""
        alg = _alg_to_int(1 if alg is None else alg)
        return cls(state=create_rng_state(seed, alg), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        """A generator with a state drawn from the operating system's randomness."""
        alg = _alg_to_int(1 if alg is None else alg)
        state = apply_op("NonDeterministicInts", shape=[_state_size(alg)],
                         dtype=dtypes.int64).outputs[0]
        return cls(state=state, alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        """A generator from a scalar key and a counter."""
        counter = _state_tensor(counter)
        key = _state_tensor(key)
        alg = _alg_to_int(alg)
        counter.shape.assert_is_compatible_with([_state_size(alg) - 1])
        key.shape.assert_is_compatible_with([])
        return cls(state=join.concat([counter, shape_ops.reshape(key, [1])], 0), alg=alg)

    def __init__(self, copy_from=None, state=None, alg=None):
        if copy_from is not None:
            if alg is not None or state is not None:
                raise ValueError("copy_from takes neither state nor alg")
            self._state_var = self._create_variable(copy_from.state.initialized_value())
            self._alg = copy_from.algorithm
            return
        if alg is None or state is None:
            raise ValueError("A Generator needs a state and an algorithm")
        alg = _alg_to_int(alg)
        if isinstance(state, ResourceVariable):
            state.shape.assert_is_compatible_with([_state_size(alg)])
            self._state_var = state
        else:
            state = _state_tensor(state)
            state.shape.assert_is_compatible_with([_state_size(alg)])
            self._state_var = self._create_variable(state)
        self._alg = alg

    @staticmethod
    def _create_variable(initial_value):
        with name_scope("random_generator"):
            return ResourceVariable(initial_value, dtype=dtypes.int64, trainable=False,
                                    name="StateVar")

    @property
    def state(self):
        """The state variable."""
        return self._state_var

    @property
    def algorithm(self):
        """The algorithm id (1 Philox, 2 ThreeFry, 3 auto-select)."""
        return self._alg

    @property
    def key(self):
        """The key: the last word of the state."""
        return self._state_var[-1]

    def reset(self, state):
        """An op setting the state."""
        state = _state_tensor(state)
        state.shape.assert_is_compatible_with([_state_size(self._alg)])
        return self._state_var.assign(state)

    def reset_from_seed(self, seed):
        """An op setting the state from a seed, as `from_seed` makes it."""
        return self._state_var.assign(create_rng_state(seed, self._alg))

    def reset_from_key_counter(self, key, counter):
        """An op setting the state from a key and counter."""
        counter = _state_tensor(counter)
        key = _state_tensor(key)
        counter.shape.assert_is_compatible_with([_state_size(self._alg) - 1])
        key.shape.assert_is_compatible_with([])
        return self._state_var.assign(
            join.concat([counter, shape_ops.reshape(key, [1])], 0))

    def skip(self, delta):
        """The state before skipping `delta` draws; the state moves past them."""
        return apply_op("RngReadAndSkip", resource=self._state_var.handle,
                        alg=cast_op.cast(self._alg, dtypes.int32),
                        delta=cast_op.cast(delta, dtypes.uint64)).outputs[0]

    def _prepare_key_counter(self, shape):
        counter_key = self.skip(reductions.reduce_prod(shape))
        counter = bitcast_op.bitcast(counter_key[:_PHILOX_COUNTER_SIZE], dtypes.uint64)
        key = bitcast_op.bitcast(counter_key[_PHILOX_COUNTER_SIZE:_PHILOX_COUNTER_SIZE + 1],
                                dtypes.uint64)
        return key, counter

    def _stateless(self, op_type, shape, dtype, name=None, **inputs):
        key, counter = self._prepare_key_counter(shape)
        out = apply_op(op_type, name=name, shape=shape, key=key, counter=counter,
                       alg=self._alg, dtype=dtype, **inputs).outputs[0]
        try:
            out.set_shape(constant_value_as_shape(shape))
        except (TypeError, ValueError):
            pass
        return out

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal values."""
        with name_scope(name, "stateful_normal", [shape, mean, stddev]) as name:
            shape = _shape_tensor(shape)
            mean = convert_to_tensor(mean, dtype=dtype, name="mean")
            stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            rnd = self._stateless("StatelessRandomNormalV2", shape, dtype)
            return arith.add(rnd * stddev, mean, name=name)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        """Normal values within two standard deviations."""
        with name_scope(name, "truncated_normal", [shape, mean, stddev]) as name:
            shape = _shape_tensor(shape)
            mean = convert_to_tensor(mean, dtype=dtype, name="mean")
            stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            rnd = self._stateless("StatelessTruncatedNormalV2", shape, dtype)
            return arith.add(rnd * stddev, mean, name=name)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        """Uniform values on [minval, maxval) (full-range integers when both are None)."""
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError(
                    "For integer dtype {}, minval and maxval must be both `None` or both "
                    "non-`None`; got minval={} and maxval={}".format(dtype, minval, maxval))
        elif maxval is None:
            maxval = 1
        with name_scope(name, "stateful_uniform", [shape, minval, maxval]) as name:
            shape = _shape_tensor(shape)
            if dtype.is_integer and minval is None:
                return self._stateless("StatelessRandomUniformFullIntV2", shape, dtype,
                                       name=name)
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
            if dtype.is_integer:
                return self._stateless("StatelessRandomUniformIntV2", shape, dtype, name=name,
                                       minval=minval, maxval=maxval)
            rnd = self._stateless("StatelessRandomUniformV2", shape, dtype)
            return arith.add(rnd * (maxval - minval), minval, name=name)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        """Integers over the whole range of `dtype`."""
        dtype = dtypes.as_dtype(dtype)
        with name_scope(name, "stateful_uniform_full_int", [shape]) as name:
            return self._stateless("StatelessRandomUniformFullIntV2", _shape_tensor(shape),
                                   dtype, name=name)

    def make_seeds(self, count=1):
        """[2, count] int64 seeds for the stateless ops."""
        keys = self.uniform_full_int(shape=[count], dtype=dtypes.int64)
        return join.stack([keys, create.zeros_like(keys)])

    def split(self, count=1):
        """`count` new generators, each keyed by a draw of this one."""
        keys = self.uniform_full_int(shape=[count], dtype=dtypes.int64)
        zeros = [0] * (_state_size(self._alg) - 1)
        return [Generator(state=join.concat([constant(zeros, dtypes.int64),
                                                  shape_ops.reshape(k, [1])], 0),
                          alg=self._alg)
                for k in join.unstack(keys, num=count)]


_global_generator = None


def get_global_generator():
    """The process's generator, made from a non-deterministic state on first use."""
    global _global_generator
    if _global_generator is None:
        _global_generator = Generator.from_non_deterministic_state()
    return _global_generator


def set_global_generator(generator):
    """Replaces the process's generator."""
    global _global_generator
    _global_generator = generator
