"""NumPy kernels of TensorFlow's colour ops: RGBToHSV, HSVToRGB, AdjustHue,
AdjustSaturation and AdjustContrastv2.

Each kernel repeats the float32 arithmetic of TF's CPU kernel (its branch order for
ties, its double-precision constants, its pairwise mean for contrast), so results
are bit-identical to TensorFlow for float32 images. half/bfloat16 images are
computed in float32 and rounded back.
"""
import numpy as np

from trainflow._src.framework import errors

_F32 = np.float32


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _work(images):
    """(float array to compute in, dtype to return)."""
    if images.dtype == np.float64:
        return images, images.dtype
    return images.astype(_F32, copy=False), images.dtype


def _check_rgb(images, what):
    if images.ndim < 3:
        raise _invalid(f"input must be at least 3-D, got shape{_shape_str(images.shape)}")
    if images.shape[-1] != 3:
        raise _invalid(f"input must have 3 channels but instead has {images.shape[-1]} "
                       "channels.")


def _check_scalar(value, what):
    value = np.asarray(value)
    if value.ndim != 0:
        raise _invalid(f"{what} must be scalar: {_shape_str(value.shape)}")
    return _F32(value)


def _check_3_channels(images):
    """RGBToHSV / HSVToRGB's check: the last axis holds the 3 channels."""
    if images.ndim < 1 or images.shape[-1] != 3:
        raise _invalid(f"input must have 3 channels but input only has "
                       f"{images.shape[-1] if images.ndim else 0} channels.")


def rgb_to_hsv(images):
    """RGBToHSV: [..., 3] RGB in [0, 1] -> HSV with hue in [0, 1)."""
    _check_3_channels(images)
    x, out_dtype = _work(images)
    t = x.dtype.type
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = np.maximum(np.maximum(r, g), b)
    rng = v - np.minimum(np.minimum(r, g), b)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, t(0))
        norm = (t(1) / rng) * (t(1) / t(6))
        h = np.where(r == v, norm * (g - b),
                     np.where(g == v, norm * (b - r) + t(2) / t(6), norm * (r - g) + t(4) / t(6)))
    h = np.where(rng > 0, h, t(0))
    h = np.where(h < 0, h + t(1), h)
    return np.stack([h, s, v], axis=-1).astype(out_dtype, copy=False)


def hsv_to_rgb(images):
    """HSVToRGB: the inverse of `rgb_to_hsv`."""
    _check_3_channels(images)
    x, out_dtype = _work(images)
    t = x.dtype.type
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    dh = h * t(6)
    dr = np.clip(np.abs(dh - t(3)) - t(1), t(0), t(1))
    dg = np.clip(-np.abs(dh - t(2)) + t(2), t(0), t(1))
    db = np.clip(-np.abs(dh - t(4)) + t(2), t(0), t(1))
    one_s = -s + t(1)
    rgb = [(one_s + s * d) * v for d in (dr, dg, db)]
    return np.stack(rgb, axis=-1).astype(out_dtype, copy=False)


def _hue_range(r, g, b):
    """TF's rgb_to_hv_range: hue in [0, 6), and the min and max channel values."""
    r_lt_g = r < g
    cases = [r_lt_g & (b < r), r_lt_g & (b > g), r_lt_g,
             ~r_lt_g & (b < g), ~r_lt_g & (b > r), ~r_lt_g]
    v_max = np.select(cases, [g, b, g, r, b, r])
    v_mid = np.select(cases, [r, g, b, g, r, b])
    v_min = np.select(cases, [b, r, r, b, g, g])
    category = np.select(cases, [1, 3, 2, 0, 4, 5])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (v_mid - v_min) / (v_max - v_min)
    even = (category & 1) == 0
    h = category.astype(_F32) + np.where(even, ratio, _F32(1) - ratio)
    h = np.where(v_max == v_min, _F32(0), h).astype(_F32)
    return h, v_min, v_max


def _rgb_from_hue_range(h, v_min, v_max):
    """TF's hv_range_to_rgb."""
    category = h.astype(np.int64)
    ratio = h - category.astype(_F32)
    ratio = np.where((category & 1) == 0, ratio, _F32(1) - ratio)
    v_mid = v_min + ratio * (v_max - v_min)
    cases = [category == k for k in range(5)]
    r = np.select(cases, [v_max, v_mid, v_min, v_min, v_mid], v_max)
    g = np.select(cases, [v_mid, v_max, v_max, v_mid, v_min], v_min)
    b = np.select(cases, [v_min, v_min, v_mid, v_max, v_max], v_mid)
    return np.stack([r, g, b], axis=-1).astype(_F32, copy=False)


def adjust_hue(images, delta):
    """AdjustHue: rotates the hue of RGB images by `delta` (a fraction of the circle)."""
    _check_rgb(images, "images")
    delta = _check_scalar(delta, "delta")
    out_dtype = images.dtype
    x = images.astype(_F32, copy=False)
    h, v_min, v_max = _hue_range(x[..., 0], x[..., 1], x[..., 2])
    h = h + delta * _F32(6)
    while np.any(h < 0):
        h = np.where(h < 0, h + _F32(6), h)
    while np.any(h >= 6):
        h = np.where(h >= 6, h - _F32(6), h)
    return _rgb_from_hue_range(h, v_min, v_max).astype(out_dtype, copy=False)


def _hsv_internal(r, g, b):
    """AdjustSaturation's own rgb_to_hsv (its 2/6 and 4/6 offsets are doubles)."""
    v = np.maximum(r, np.maximum(g, b))
    rng = v - np.minimum(r, np.minimum(g, b))
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, _F32(0)).astype(_F32)
        norm = _F32(1) / (_F32(6) * rng)
        h = np.where(r == v, norm * (g - b),
                     np.where(g == v, (norm * (b - r)).astype(np.float64) + 2.0 / 6.0,
                              (norm * (r - g)).astype(np.float64) + 4.0 / 6.0)).astype(_F32)
    h = np.where(rng <= 0, _F32(0), h)
    h = np.where(h < 0, h + _F32(1), h).astype(_F32)
    return h, s, v


def adjust_saturation(images, scale):
    """AdjustSaturation: multiplies the HSV saturation of RGB images by `scale`."""
    _check_rgb(images, "images")
    scale = _check_scalar(scale, "scale")
    out_dtype = images.dtype
    x = images.astype(_F32, copy=False)
    h, s, v = _hsv_internal(x[..., 0], x[..., 1], x[..., 2])
    s = np.minimum(_F32(1), np.maximum(_F32(0), s * scale))
    c = s * v
    m = v - c
    dh = h * _F32(6)
    category = dh.astype(np.int64)
    fmodu = dh
    while np.any(fmodu <= 0):
        fmodu = np.where(fmodu <= 0, fmodu + _F32(2), fmodu)
    while np.any(fmodu >= 2):
        fmodu = np.where(fmodu >= 2, fmodu - _F32(2), fmodu)
    xx = c * (_F32(1) - np.abs(fmodu - _F32(1)))
    zero = np.zeros_like(c)
    cases = [category == k for k in range(6)]
    rr = np.select(cases, [c, xx, zero, zero, xx, c], zero)
    gg = np.select(cases, [xx, c, c, xx, zero, zero], zero)
    bb = np.select(cases, [zero, zero, xx, c, c, xx], zero)
    return np.stack([rr + m, gg + m, bb + m], axis=-1).astype(out_dtype, copy=False)


def _pairwise_plane_sum(planes):
    """Sums [N, S, C] over S by repeated halving, as TF's AdjustContrastv2 does."""
    acc = planes
    remaining = planes.shape[1]
    first = True
    while True:
        right = remaining // 2
        left = remaining - right
        if first:
            head = acc[:, left:left + right] + acc[:, :right]
            acc = np.concatenate([head, acc[:, right:left]], axis=1) if left > right else head
            first = False
        else:
            acc = acc.copy()
            acc[:, :right] += acc[:, left:left + right]
        remaining = left
        acc = acc[:, :remaining]
        if remaining <= 1:
            return acc[:, 0]


def adjust_contrast(images, contrast_factor):
    """AdjustContrastv2: (x - mean) * factor + mean, per image and channel."""
    if images.ndim < 3:
        raise _invalid(f"input must be at least 3-D, got shape{_shape_str(images.shape)}")
    factor = _check_scalar(contrast_factor, "contrast_factor")
    out_dtype = images.dtype
    if images.size == 0:
        return images.copy()
    h, w, c = images.shape[-3:]
    x = images.astype(_F32, copy=False).reshape(-1, h * w, c)
    mean = _pairwise_plane_sum(x) * _F32(_F32(1.0) / _F32(h * w))
    mean = mean[:, None, :]
    out = mean + factor * (x - mean)
    return out.reshape(images.shape).astype(out_dtype, copy=False)
