"""to_numpy / fit_to_shape: Python and NumPy values under TF's constant rules.

Expected dtypes, values and messages were recorded from tf.constant in TF 2.21.
"""
import ml_dtypes
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.numpy_conversion import fit_to_shape, to_numpy


@pytest.mark.parametrize("value, dtype, expected", [
    (1, np.int32, 1), (1.0, np.float32, 1.0), (2 ** 31, np.int64, 2 ** 31),
    (-2 ** 31, np.int32, -2 ** 31), (2 ** 31 - 1, np.int32, 2 ** 31 - 1),
    (2 ** 63, np.uint64, 2 ** 63), (-2 ** 63, np.int64, -2 ** 63), (True, np.bool_, True),
    ([1, 2.0], np.float32, [1, 2]), ([1, 2 ** 40], np.int64, [1, 2 ** 40]),
    ([True, 1], np.int32, [1, 1]), ([], np.float32, []), ([[]], np.float32, [[]]),
    (1j, np.complex128, 1j), ([1, 1j], np.complex128, [1, 1j]),
    (np.float64(1), np.float64, 1), (np.array([1, 2], np.int64), np.int64, [1, 2]),
    (np.array(1.5), np.float64, 1.5), (np.array([1], np.uint8), np.uint8, [1]),
    (np.array([1], np.float16), np.float16, [1]), ([1, np.float64(2)], np.float32, [1, 2]),
    ([np.int64(1), 2], np.int32, [1, 2]), ([np.int32(1), 2 ** 40], np.int64, [1, 2 ** 40]),
    (float("nan"), np.float32, np.nan), (1e40, np.float32, np.inf),
])
def test_inferred_dtypes(value, dtype, expected):
    arr = to_numpy(value)
    assert arr.dtype.type is dtype
    np.testing.assert_array_equal(arr, np.asarray(expected, dtype))


def test_strings_become_bytes_objects():
    for value in ("a", b"a", np.array(["a"]), np.array([b"a"]), ["a", b"b"]):
        arr = to_numpy(value)
        assert arr.dtype == object and all(isinstance(x, bytes) for x in arr.reshape(-1))
    assert to_numpy("\u00e9")[()] == b"\xc3\xa9"


@pytest.mark.parametrize("value, dtype, expected_type, expected", [
    (1, tf.float32, np.float32, 1.0), (2 ** 40, tf.int32, np.int32, 0),
    (-1, tf.uint8, np.uint8, 255), (300, tf.uint8, np.uint8, 44),
    (True, tf.int32, np.int32, 1), (np.array([1.5]), tf.int32, np.int32, [1]),
    (np.array([1.5]), tf.float16, np.float16, [1.5]), (1, tf.complex64, np.complex64, 1),
    (np.float32(1.5), tf.int32, np.int32, 1), (np.array(2 ** 40), tf.int32, np.int32, 0),
    (1.0, tf.bfloat16, ml_dtypes.bfloat16, 1.0), (1e40, tf.float32, np.float32, np.inf),
    (np.array(2 ** 40), tf.float32, np.float32, 2 ** 40),
])
def test_requested_dtypes(value, dtype, expected_type, expected):
    arr = to_numpy(value, dtype)
    assert arr.dtype.type is expected_type
    np.testing.assert_array_equal(arr.astype(np.float64) if expected_type is
                                  ml_dtypes.bfloat16 else arr, expected)


@pytest.mark.parametrize("value, dtype, exc, message", [
    (1.5, tf.int32, TypeError, "Expected int32, but got 1.5 of type 'float'."),
    ("a", tf.int32, TypeError, "Expected int32, but got a of type 'str'."),
    (1, tf.string, TypeError, "Expected string, but got 1 of type 'int'."),
    (1, tf.bool, TypeError, "Expected bool, but got 1 of type 'int'."),
    ([1.0, 2.5], tf.int64, TypeError, "Expected int64, but got 1.0 of type 'float'."),
    (1j, tf.float32, TypeError, "Expected float32, but got 1j of type 'complex'."),
    (float("inf"), tf.int32, TypeError, "Expected int32, but got inf of type 'float'."),
    (2 ** 64, None, TypeError, "Failed to convert elements of 18446744073709551616 to Tensor"),
    ([None], None, TypeError, "Failed to convert elements of [None] to Tensor"),
    ([1, "a"], None, TypeError, "Failed to convert elements of [1, 'a'] to Tensor"),
    ({"a": 1}, None, TypeError, "Failed to convert elements of {'a': 1} to Tensor"),
    (np.array([1], dtype=object), None, TypeError, "Expected binary or unicode string, got "
                                                   "1"),
    (None, None, ValueError, "None values not supported."),
    ([[1], [2, 3]], None, ValueError, "Can't convert non-rectangular Python sequence to "
                                      "Tensor"),
])
def test_errors(value, dtype, exc, message):
    with pytest.raises(exc) as info:
        to_numpy(value, dtype)
    assert str(info.value).startswith(message), str(info.value)


def test_tensors_are_refused():
    with tf.Graph().as_default():
        t = tf.constant(1)
    with pytest.raises(TypeError, match="Expected any non-tensor type, but got a tensor "
                       "instead."):
        to_numpy(t)


def test_array_likes_and_copies():
    class ArrayLike:
        def __array__(self, dtype=None, copy=None):
            return np.array([1, 2], np.int16)
    assert to_numpy(ArrayLike()).dtype == np.int16
    src = np.array([1.0, 2.0], np.float32)
    out = to_numpy(src)
    out[0] = 5
    assert src[0] == 1.0


@pytest.mark.parametrize("value, shape, expected", [
    (7, [2, 2], [[7, 7], [7, 7]]), ([1, 2], [2, 2], [[1, 2], [2, 2]]),
    ([], [2], [0, 0]), (np.ones([2, 2]), [4], [1, 1, 1, 1]), (1.0, [], 1.0),
])
def test_fit_to_shape(value, shape, expected):
    arr = to_numpy(value)
    np.testing.assert_array_equal(fit_to_shape(arr, shape), expected)


def test_fit_to_shape_errors():
    with pytest.raises(ValueError, match="Too many elements provided. Takes at most 4, but "
                       "got 5."):
        fit_to_shape(to_numpy([1, 2, 3, 4, 5]), [2, 2])
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(1, 2\), but got "
                       r"\(2,\)."):
        fit_to_shape(to_numpy([1, 2]), [1, 2], verify_shape=True)
