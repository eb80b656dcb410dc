"""convert_to_tensor and the conversion-function registry (TF 2.21 behaviour)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.tensor_conversion import (
    convert_n_to_tensor, convert_to_tensor, convert_to_tensor_or_indexed_slices, is_tensor,
    register_tensor_conversion_function)
from trainflow._src.ops.state import state_ops


@pytest.fixture
def g():
    with tf.Graph().as_default() as g:
        yield g


@pytest.mark.parametrize("value, kwargs, dtype", [
    (np.array([1.5]), {"dtype": tf.int32}, tf.int32),
    (np.array([1.5]), {"dtype": tf.float32}, tf.float32),
    (np.array([1]), {"dtype": tf.float32}, tf.float32),
    (np.array([1], np.int32), {"dtype": tf.int64}, tf.int64),
    (np.float64(1.5), {"dtype": tf.float32}, tf.float32),
    (np.array([1.5]), {"preferred_dtype": tf.float32}, tf.float32),
    (1.5, {"preferred_dtype": tf.int32}, tf.float32),
    (1, {"preferred_dtype": tf.float32}, tf.float32),
    (1, {"preferred_dtype": tf.string}, tf.int32),
    (1, {"dtype_hint": tf.int64}, tf.int64),
    (2 ** 31, {}, tf.int64),
    (np.float32(2), {}, tf.float32),
])
def test_values(g, value, kwargs, dtype):
    t = convert_to_tensor(value, **kwargs)
    assert t.dtype is dtype and t.op.type == "Const"


def test_tensors_pass_through(g):
    f = tf.constant(1.0)
    assert convert_to_tensor(f) is f
    assert convert_to_tensor(f, dtype="float32") is f
    assert convert_to_tensor(f, preferred_dtype=tf.int32) is f
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32 for Tensor "
                       "with dtype float32"):
        convert_to_tensor(f, dtype=tf.int32)
    v = state_ops.variable_op_v2([], tf.float32)
    assert convert_to_tensor(v) is v and convert_to_tensor(v, dtype=tf.float32) is v


def test_names(g):
    assert convert_to_tensor(1, name="named").name == "named:0"
    assert convert_to_tensor(1, name="named").name == "named_1:0"
    assert [t.name for t in convert_n_to_tensor([1, 2], name="n")] == ["n_0:0", "n_1:0"]
    assert [t.dtype for t in convert_n_to_tensor([1, 2.0])] == [tf.int32, tf.float32]
    with pytest.raises(TypeError, match="values must be a sequence."):
        convert_n_to_tensor(1)


def test_errors(g):
    with pytest.raises(ValueError, match="None values not supported."):
        convert_to_tensor(None)
    with pytest.raises(TypeError, match="Failed to convert elements of <object object"):
        convert_to_tensor(object())
    with pytest.raises(TypeError, match="Failed to convert elements of tf.float32"):
        convert_to_tensor(tf.float32)


def test_shapes(g):
    t = convert_to_tensor(tf.TensorShape([1, 2]))
    assert (t.op.name, t.dtype, t.shape.as_list()) == ("shape_as_tensor", tf.int32, [2])
    assert convert_to_tensor(tf.TensorShape([1, 2]), dtype=tf.int64).dtype is tf.int64
    assert convert_to_tensor(tf.TensorShape([1, 2])[0]).shape.as_list() == []
    assert convert_to_tensor(tf.TensorShape([2 ** 33])).dtype is tf.int64
    with pytest.raises(ValueError, match=r"Cannot convert a partially known TensorShape "
                       r"\(1, \?\) to a Tensor."):
        convert_to_tensor(tf.TensorShape([1, None]))
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(t), [1, 2])


def test_registered_conversion_functions(g):
    class Celsius:
        def __init__(self, degrees):
            self.degrees = degrees

    class Kelvin(Celsius):
        pass

    calls = []

    def convert(value, dtype=None, name=None, as_ref=False):
        calls.append((dtype, as_ref))
        return tf.constant(value.degrees, dtype=dtype, name=name or "celsius")

    def decline(value, dtype=None, name=None, as_ref=False):
        return NotImplemented

    register_tensor_conversion_function(Celsius, convert)
    register_tensor_conversion_function(Kelvin, decline, priority=10)
    t = convert_to_tensor(Celsius(21.5))
    assert t.op.name == "celsius" and t.dtype is tf.float32
    assert convert_to_tensor(Kelvin(3.0), dtype=tf.float64).dtype is tf.float64
    assert calls == [(None, False), (tf.float64, False)]
    with pytest.raises(TypeError, match="conversion_func must be callable."):
        register_tensor_conversion_function(Celsius, 5)


def test_bad_conversion_function_results(g):
    class Odd:
        pass
    register_tensor_conversion_function(Odd, lambda v, dtype=None, name=None, as_ref=False: 5)
    with pytest.raises(RuntimeError, match="conversion function returned 5, not a Tensor."):
        convert_to_tensor(Odd())


def test_is_tensor_and_indexed_slices(g):
    f = tf.constant(1.0)
    assert is_tensor(f) and not is_tensor(1)

    class Slices:
        values, indices, dtype = f, f, tf.float32
    s = Slices()
    assert convert_to_tensor_or_indexed_slices(s) is s
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int32"):
        convert_to_tensor_or_indexed_slices(s, dtype=tf.int32)
    assert convert_to_tensor_or_indexed_slices(f) is f
