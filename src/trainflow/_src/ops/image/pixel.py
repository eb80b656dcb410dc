"""tf.image value transforms built from math ops: convert_image_dtype (TF's scaling and
saturation rules), adjust_brightness, adjust_gamma, random_brightness and
per_image_standardization."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.image import image_util as _ops
from trainflow._src.ops.random import random_ops

__all__ = ["adjust_brightness", "adjust_gamma", "convert_image_dtype",
           "per_image_standardization", "random_brightness"]


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts an image between integer and floating dtypes, rescaling values.

    Floating images hold values in [0, 1]; integer images in [0, MAX]. Integer to
    integer conversions shift by the ratio of the ranges; float to int multiplies by
    MAX + 0.5 and truncates.

    Args:
      image: a tensor of a real dtype.
      dtype: the target DType.
      saturate: clamp to the target range before casting (set it when values may lie
        outside [0, 1] / [0, MAX], e.g. after arithmetic).
      name: name scope (default "convert_image").

    Raises:
      AttributeError: if either dtype is neither floating nor integer.
    """
    image = convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype).base_dtype
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    src = image.dtype.base_dtype
    if not src.is_floating and not src.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == src:
        return _ops.op("Identity", input=image, name=name)
    with name_scope(name, "convert_image", [image]) as scope:
        to_dtype = _ops.saturate_cast if saturate else _ops.cast
        if src.is_integer and dtype.is_integer:
            if src.max > dtype.max:
                scale = (src.max + 1) // (dtype.max + 1)
                scaled = _ops.op("FloorDiv", x=image, y=scale)
                return to_dtype(scaled, dtype, name=scope)
            cast = to_dtype(image, dtype)
            scale = (dtype.max + 1) // (src.max + 1)
            return _ops.op("Mul", x=cast, y=scale, name=scope)
        if src.is_floating and dtype.is_floating:
            return _ops.cast(image, dtype, name=scope)
        if src.is_integer:
            cast = _ops.cast(image, dtype)
            return _ops.op("Mul", x=cast, y=1.0 / src.max, name=scope)
        scaled = _ops.op("Mul", x=image, y=dtype.max + 0.5)
        return to_dtype(scaled, dtype, name=scope)


def _float_image(image):
    """(image as float16/32 for arithmetic, original dtype)."""
    orig = image.dtype.base_dtype
    if orig in (dtypes.float16, dtypes.float32):
        return image, orig
    return convert_image_dtype(image, dtypes.float32), orig


def adjust_brightness(image, delta):
    """Adds `delta` to every pixel value (on the [0, 1] scale for integer images, whose
    result is saturated back to their range)."""
    with name_scope(None, "adjust_brightness", [image, delta]) as scope:
        image = convert_to_tensor(image, name="image")
        flt, orig = _float_image(image)
        adjusted = _ops.op("AddV2", x=flt, y=_ops.cast(delta, flt.dtype), name=scope)
        return convert_image_dtype(adjusted, orig, saturate=True)


def random_brightness(image, max_delta, seed=None):
    """`adjust_brightness` by a delta drawn uniformly from [-max_delta, max_delta).

    Raises:
      ValueError: if max_delta is negative.
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def adjust_gamma(image, gamma=1, gain=1):
    """Gamma correction: gain * image ** gamma (on the [0, 1] scale for integer images).

    Raises:
      ValueError: if a Python `gamma` is negative (a tensor gamma is checked at run time).
    """
    with name_scope(None, "adjust_gamma", [image, gamma, gain]):
        image = convert_to_tensor(image, name="image")
        flt, orig = _float_image(image)
        checks = _ops.check(
            _ops.op("GreaterEqual", x=gamma, y=0) if _ops.is_tensor(gamma) else gamma >= 0,
            ValueError, "Gamma should be a non-negative real number.")
        if checks:
            gamma = _ops.with_dependencies(checks, gamma)
        gamma = convert_to_tensor(gamma, dtype=flt.dtype, name="gamma") \
            if not _ops.is_tensor(gamma) else gamma
        gain = convert_to_tensor(gain, dtype=flt.dtype, name="gain") \
            if not _ops.is_tensor(gain) else gain
        adjusted = _ops.op("Mul", x=gain, y=_ops.op("Pow", x=flt, y=gamma))
        return convert_image_dtype(adjusted, orig, saturate=True)


def per_image_standardization(image):
    """Scales each image to zero mean and unit variance: (x - mean) / max(stddev,
    1 / sqrt(num_pixels)), computed in float32 over the last three dimensions."""
    with name_scope(None, "per_image_standardization", [image]) as scope:
        image = convert_to_tensor(image, name="image")
        image = _ops.assert_at_least_3d(image)
        image = _ops.cast(image, dtypes.float32)
        num_pixels = _ops.reduce("Prod", _ops.tail(_ops.shape(image), 3), [0])
        axes = [-1, -2, -3]
        mean = _ops.reduce("Mean", image, axes, keepdims=True)
        diff = _ops.op("Sub", x=image, y=mean)
        variance = _ops.reduce("Mean", _ops.op("Square", x=diff), axes, keepdims=True)
        stddev = _ops.op("Sqrt", x=variance)
        min_stddev = _ops.op("Rsqrt", x=_ops.cast(num_pixels, dtypes.float32))
        adjusted = _ops.op("Maximum", x=stddev, y=min_stddev)
        centered = _ops.op("Sub", x=image, y=mean)
        return _ops.op("RealDiv", x=centered, y=adjusted, name=scope)
