"""The windows of tf.signal: hann, hamming, vorbis, kaiser and Kaiser-Bessel-derived."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework import constant_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array import cast as cast_ops
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather as gather_ops
from trainflow._src.ops.array import join
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import argmax_scan
from trainflow._src.ops.math import bessel

__all__ = ["hann_window", "hamming_window", "vorbis_window", "kaiser_window",
           "kaiser_bessel_derived_window"]


def _check_params(window_length, dtype):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    window_length = convert_to_tensor(window_length, dtype=dtypes.int32,
                                      name="window_length")
    window_length.shape.assert_has_rank(0)
    return window_length, dtype


def _raised_cosine_window(name, default_name, window_length, periodic, dtype, a, b):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype}")
    with name_scope(name, default_name, [window_length, periodic]):
        window_length = convert_to_tensor(window_length, dtype=dtypes.int32,
                                          name="window_length")
        window_length.shape.assert_has_rank(0)
        static = constant_value(window_length)
        if static == 1:
            return create.ones([1], dtype=dtype)
        periodic = cast_ops.cast(convert_to_tensor(periodic, dtype=dtypes.bool,
                                                   name="periodic"), dtypes.int32)
        periodic.shape.assert_has_rank(0)
        even = 1 - arith.mod(window_length, 2)
        n = cast_ops.cast(window_length + periodic * even - 1, dtype=dtype)
        count = cast_ops.cast(create.range(window_length), dtype)
        cos_arg = constant_op.constant(2 * np.pi, dtype=dtype) * count / n
        window = cast_ops.cast(a - b * arith.cos(cos_arg), dtype=dtype)
        if static is not None:
            return window
        return gather_ops.where(arith.equal(window_length, 1),
                                create.ones([window_length], dtype=dtype), window)


def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """The Hann window 0.5 - 0.5 cos(2 pi n / N) (N = length, or length - 1 unless
    `periodic`)."""
    return _raised_cosine_window(name, "hann_window", window_length, periodic, dtype,
                                 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """The Hamming window 0.54 - 0.46 cos(2 pi n / N)."""
    return _raised_cosine_window(name, "hamming_window", window_length, periodic, dtype,
                                 0.54, 0.46)


def vorbis_window(window_length, dtype=dtypes.float32, name=None):
    """The Vorbis power-complementary window sin(pi/2 sin^2(pi (n + 0.5) / N))."""
    with name_scope(name, "vorbis_window"):
        window_length, dtype = _check_params(window_length, dtype)
        arg = cast_ops.cast(create.range(window_length), dtype=dtype)
        inner = arith.sin(np.pi / cast_ops.cast(window_length, dtype=dtype) * (arg + 0.5))
        return arith.sin(np.pi / 2.0 * arith.pow(inner, 2.0))


def kaiser_window(window_length, beta=12., dtype=dtypes.float32, name=None):
    """The Kaiser window exp(num - beta) i0e(num) / i0e(beta),
    num = beta sqrt(1 - (n / h)^2) over n in [-h, h], h = (length - 1) / 2."""
    with name_scope(name, "kaiser_window"):
        window_length, dtype = _check_params(window_length, dtype)
        if constant_value(window_length) == 1:
            return create.ones([1], dtype=dtype)
        halflen = (cast_ops.cast(window_length, dtype=dtypes.float32) - 1.0) / 2.0
        arg = cast_ops.cast(create.range(-halflen, halflen + 0.1, dtype=dtypes.float32), dtype)
        beta = cast_ops.cast(beta, dtype=dtype)
        one = cast_ops.cast(1.0, dtype=dtype)
        halflen = cast_ops.cast(halflen, dtype=dtype)
        num = beta * arith.sqrt(arith.maximum(one - arith.square(arg / halflen), 0))
        window = arith.exp(num - beta) * (bessel.bessel_i0e(num) / bessel.bessel_i0e(beta))
        static = constant_value(window_length)
        if static is not None:
            window.set_shape([int(static)])
        return window


def kaiser_bessel_derived_window(window_length, beta=12., dtype=dtypes.float32, name=None):
    """The Kaiser-Bessel-derived window (from the running sum of a Kaiser window of
    length // 2 + 1), for MDCTs."""
    with name_scope(name, "kaiser_bessel_derived_window"):
        window_length, dtype = _check_params(window_length, dtype)
        halflen = window_length // 2
        kaiserw = kaiser_window(halflen + 1, beta, dtype=dtype)
        csum = argmax_scan.cumsum(kaiserw)
        halfw = arith.sqrt(csum[:-1] / csum[-1])
        window = join.concat((halfw, halfw[::-1]), axis=0)
        static = constant_value(window_length)
        if static is not None:
            window.set_shape([int(static) // 2 * 2])
        return window
