"""Colour ops: RGBToHSV, HSVToRGB, AdjustContrastv2, AdjustHue, AdjustSaturation
(registered with their kernels from `color_kernels`) and the tf.image functions
around them: rgb/hsv/grayscale conversions, adjust_* and random_* colour jitter."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import dimension_value
from trainflow._src.ops.image import image_util as _ops
from trainflow._src.ops.image import color_kernels as kernels
from trainflow._src.ops.image.pixel import convert_image_dtype
from trainflow._src.ops.array import cast, join
from trainflow._src.ops.math import arith, tensordot
from trainflow._src.ops.random import random_ops

__all__ = ["adjust_contrast", "adjust_hue", "adjust_saturation", "grayscale_to_rgb",
           "hsv_to_rgb", "random_contrast", "random_hue", "random_saturation",
           "rgb_to_grayscale", "rgb_to_hsv"]


def _colorspace_shape(op):
    shape = op.inputs[0].get_shape()
    if shape.ndims == 0:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    if shape.ndims is not None and dimension_value(shape[-1]) not in (None, 3):
        raise ValueError(f"Dimension must be 3 but is {dimension_value(shape[-1])}")
    return [shape]


def _adjust_shape(op):
    shape = op.inputs[0].get_shape()
    if shape.ndims is not None and shape.ndims < 3:
        raise ValueError(f"Shape must be at least rank 3 but is rank {shape.ndims}")
    factor = op.inputs[1].get_shape()
    if factor.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {factor.ndims}")
    return [shape]


_FLOAT_TYPES = "T: {half, bfloat16, float, double} = DT_FLOAT"
register_op("RGBToHSV", inputs=["images: T"], outputs=["output: T"], attrs=[_FLOAT_TYPES],
            shape_fn=_colorspace_shape, kernel=kernels.rgb_to_hsv)
register_op("HSVToRGB", inputs=["images: T"], outputs=["output: T"], attrs=[_FLOAT_TYPES],
            shape_fn=_colorspace_shape, kernel=kernels.hsv_to_rgb)
NotDifferentiable("HSVToRGB")  # as in TensorFlow


@RegisterGradient("RGBToHSV")
def _rgb_to_hsv_grad(op, grad):
    """d(h, s, v)/d(r, g, b) of each pixel, piecewise as TensorFlow differentiates it.

    With max channel M (ties to r, then g) and min channel m (ties to b, then g):
    v = max, so dv = e_M; s = 1 - min/max, so ds = min/max^2 e_M - 1/max e_m (each
    term kept only where its channel is positive, as TF does); h = (k + N/R) / 6 with
    R = max - min and N the difference of the other two channels, so
    dh = (R dN - N dR) / (6 R^2), kept where max > 0; divisions by zero give zero.
    """
    x = op.inputs[0]
    dtype = x.dtype.base_dtype
    r, g, b = x[..., 0], x[..., 1], x[..., 2]

    def mask(*conds):
        out = conds[0]
        for c in conds[1:]:
            out = arith.logical_and(out, c)
        return cast.cast(out, dtype)
    ge, gt, le, lt = (arith.greater_equal, arith.greater, arith.less_equal,
                      arith.less)
    big = [mask(ge(r, b), ge(r, g)), mask(gt(g, r), ge(g, b)), mask(gt(b, r), gt(b, g))]
    small = [mask(lt(r, b), lt(r, g)), mask(le(g, r), lt(g, b)), mask(le(b, r), le(b, g))]
    v = big[0] * r + big[1] * g + big[2] * b
    lo = small[0] * r + small[1] * g + small[2] * b
    spread = v - lo
    numer = big[0] * (g - b) + big[1] * (b - r) + big[2] * (r - g)
    d_numer = [big[2] - big[1], big[0] - big[2], big[1] - big[0]]
    hue_on = cast.cast(gt(v, 0), dtype) / 6
    inv_v = arith.div_no_nan(1, v)
    out = []
    for c, chan in enumerate((r, g, b)):
        d_spread = big[c] - small[c]
        dh = hue_on * arith.div_no_nan(d_numer[c] * spread - numer * d_spread,
                                           arith.square(spread))
        ds = cast.cast(gt(chan, 0), dtype) * (big[c] * lo * arith.square(inv_v)
                                                  - small[c] * inv_v)
        out.append(grad[..., 0] * dh + grad[..., 1] * ds + grad[..., 2] * big[c])
    return join.stack(out, axis=-1)
register_op("AdjustContrastv2", inputs=["images: T", "contrast_factor: float"],
            outputs=["output: T"], attrs=["T: {half, float} = DT_FLOAT"],
            shape_fn=_adjust_shape, kernel=kernels.adjust_contrast)
register_op("AdjustHue", inputs=["images: T", "delta: float"], outputs=["output: T"],
            attrs=["T: {half, float} = DT_FLOAT"], shape_fn=_adjust_shape,
            kernel=kernels.adjust_hue)
register_op("AdjustSaturation", inputs=["images: T", "scale: float"], outputs=["output: T"],
            attrs=["T: {half, float} = DT_FLOAT"], shape_fn=_adjust_shape,
            kernel=kernels.adjust_saturation)


def rgb_to_hsv(images, name=None):
    """RGB images ([..., 3], values in [0, 1]) to HSV, hue in [0, 1)."""
    return _ops.op("RGBToHSV", images=images, name=name)


def hsv_to_rgb(images, name=None):
    """HSV images ([..., 3]) back to RGB."""
    return _ops.op("HSVToRGB", images=images, name=name)


def rgb_to_grayscale(images, name=None):
    """RGB images [..., 3] to greyscale [..., 1] with weights (0.2989, 0.5870, 0.1140),
    computed in float32 and converted back to the input dtype."""
    with name_scope(name, "rgb_to_grayscale", [images]) as scope:
        images = convert_to_tensor(images, name="images")
        orig = images.dtype.base_dtype
        flt = convert_image_dtype(images, dtypes.float32)
        weights = convert_to_tensor([0.2989, 0.5870, 0.1140], dtype=dtypes.float32)
        if flt.get_shape().ndims is not None:
            gray = tensordot.tensordot(flt, weights, [[-1], [-1]])
        else:
            gray = _ops.reduce("Sum", _ops.op("Mul", x=flt, y=weights), [-1])
        gray = _ops.expand_dims(gray, -1)
        return convert_image_dtype(gray, orig, name=scope)


def grayscale_to_rgb(images, name=None):
    """Greyscale images [..., 1] to RGB [..., 3] by repeating the channel.

    Raises:
      ValueError: if the last dimension is statically not 1 or the rank is below 2.
    """
    with name_scope(name, "grayscale_to_rgb", [images]) as scope:
        images = convert_to_tensor(images, name="images")
        shape = images.get_shape()
        try:
            shape = shape.with_rank(2) if shape.ndims is None else shape.with_rank_at_least(2)
        except ValueError:
            raise ValueError(f"A grayscale image (shape {images.shape}) must be at least "
                             "two-dimensional.") from None
        checks = []
        if shape.is_fully_defined():
            if shape[-1] != 1:
                raise ValueError("Last dimension of a grayscale image should be size 1.")
        else:
            last = _ops.tail(_ops.shape(images), 1)
            checks.append(_ops.assert_op(
                _ops.reduce("All", _ops.op("Equal", x=last, y=1), [0]),
                "Last dimension of a grayscale image should be size 1."))
        images = _ops.with_dependencies(checks, images)
        ndims = images.get_shape().ndims
        if ndims is not None:
            multiples = convert_to_tensor([1] * (ndims - 1) + [3], dtype=dtypes.int32)
        else:
            ones = _ops.op("Fill", dims=_ops.expand_dims(_ops.sub(_ops.rank(images), 1), 0),
                           value=convert_to_tensor(1, dtype=dtypes.int32))
            multiples = _ops.op("ConcatV2", values=[ones, convert_to_tensor(
                [3], dtype=dtypes.int32)], axis=convert_to_tensor(0, dtype=dtypes.int32))
        rgb = _ops.op("Tile", input=images, multiples=multiples, name=scope)
        if ndims is not None:
            rgb.set_shape(images.get_shape()[:-1].concatenate([3]))
        return rgb


def _adjust(op_type, input_name, image, factor, name, default_name, saturate):
    with name_scope(name, default_name, [image]) as scope:
        image = convert_to_tensor(image, name="image")
        orig = image.dtype.base_dtype
        flt = image if orig in (dtypes.float16, dtypes.float32) else \
            convert_image_dtype(image, dtypes.float32)
        adjusted = _ops.op(op_type, images=flt, **{input_name: factor},
                           name=scope if op_type == "AdjustContrastv2" else None)
        return convert_image_dtype(adjusted, orig, saturate=saturate)


def adjust_contrast(images, contrast_factor):
    """(x - mean) * contrast_factor + mean, with the mean per image and channel over the
    last three dimensions [H, W, C]; integer images are saturated back to their range."""
    return _adjust("AdjustContrastv2", "contrast_factor", images, contrast_factor, None,
                   "adjust_contrast", True)


def adjust_hue(image, delta, name=None):
    """Rotates the hue of RGB images by `delta` (a fraction of the colour circle,
    in [-1, 1])."""
    return _adjust("AdjustHue", "delta", image, delta, name, "adjust_hue", False)


def adjust_saturation(image, saturation_factor, name=None):
    """Multiplies the HSV saturation of RGB images by `saturation_factor` (clamped to
    [0, 1])."""
    return _adjust("AdjustSaturation", "scale", image, saturation_factor, name,
                   "adjust_saturation", False)


def _uniform(lower, upper, seed):
    return random_ops.random_uniform([], lower, upper, seed=seed)


def _uniform_factor(lower, upper, seed):
    """A factor drawn uniformly from [lower, upper), after TF's checks of the range.

    Raises:
      ValueError: if upper <= lower or lower < 0.
    """
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return _uniform(lower, upper, seed)


def random_contrast(image, lower, upper, seed=None):
    """`adjust_contrast` by a factor drawn uniformly from [lower, upper).

    Raises:
      ValueError: if upper <= lower or lower < 0.
    """
    return adjust_contrast(image, _uniform_factor(lower, upper, seed))


def random_saturation(image, lower, upper, seed=None):
    """`adjust_saturation` by a factor drawn uniformly from [lower, upper).

    Raises:
      ValueError: if upper <= lower or lower < 0.
    """
    return adjust_saturation(image, _uniform_factor(lower, upper, seed))


def random_hue(image, max_delta, seed=None):
    """`adjust_hue` by a delta drawn uniformly from [-max_delta, max_delta).

    Raises:
      ValueError: if max_delta is not in [0, 0.5].
    """
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, _uniform(-max_delta, max_delta, seed))
