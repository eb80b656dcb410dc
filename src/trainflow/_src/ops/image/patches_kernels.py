"""NumPy kernels of ExtractImagePatches and ExtractVolumePatches: every (dilated)
window of the spatial dims laid out along the depth, kernel offsets major and channels
minor, zeros where a window hangs over SAME padding."""
import numpy as np

from trainflow._src.framework import errors


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def window_geometry(size, k, stride, rate, padding):
    """(output size, padding before) of one spatial dim, as TF's GetWindowedOutputSize
    with the kernel dilated to k + (k - 1)(rate - 1)."""
    span = k + (k - 1) * (rate - 1)
    if _text(padding) == "VALID":
        return max(-(-(size - span + 1) // stride), 0), 0
    out = -(-size // stride)
    return out, max((out - 1) * stride + span - size, 0) // 2


def _check(name, values, n):
    values = [int(v) for v in values]
    if len(values) != n + 2:
        raise errors.InvalidArgumentError(
            None, None, f"{name} input must be a list of length {n + 2}")
    if values[0] != 1 or values[-1] != 1:
        raise errors.InvalidArgumentError(
            None, None, f"{name} is only supported across spatial dims.")
    return values[1:-1]


def extract_patches(x, ksizes, strides, rates, padding):
    """Patches of x [batch, *spatial, depth]: [batch, *out, prod(k) * depth]."""
    x = np.asarray(x)
    n = x.ndim - 2
    k, s, r = (_check(nm, v, n) for nm, v in (("ksizes", ksizes), ("strides", strides),
                                               ("rates", rates)))
    geo = [window_geometry(x.shape[1 + i], k[i], s[i], r[i], padding) for i in range(n)]
    out = [g[0] for g in geo]
    pads = [(0, 0)]
    for i, (o, before) in enumerate(geo):
        span = k[i] + (k[i] - 1) * (r[i] - 1)
        after = max((o - 1) * s[i] + span - x.shape[1 + i] - before, 0)
        pads.append((before, after))
    padded = np.pad(x, pads + [(0, 0)])
    result = np.zeros([x.shape[0]] + out + [int(np.prod(k))] + [x.shape[-1]], x.dtype)
    for j, offset in enumerate(np.ndindex(*k)):
        index = [slice(None)]
        for i in range(n):
            start = offset[i] * r[i]
            index.append(slice(start, start + (out[i] - 1) * s[i] + 1, s[i]) if out[i]
                         else slice(0, 0))
        result[(Ellipsis, j, slice(None))] = padded[tuple(index)]
    return result.reshape([x.shape[0]] + out + [-1])


def extract_image_patches_kernel(images, *, ksizes, strides, rates, padding):
    """ExtractImagePatches: images [batch, rows, cols, depth]."""
    if np.ndim(images) != 4:
        raise errors.InvalidArgumentError(None, None, "input must be 4-dimensional")
    return extract_patches(images, ksizes, strides, rates, padding)


def extract_volume_patches_kernel(input, *, ksizes, strides, padding):  # noqa: A002
    """ExtractVolumePatches: input [batch, planes, rows, cols, depth], no dilation."""
    if np.ndim(input) != 5:
        raise errors.InvalidArgumentError(None, None, "input must be 5-dimensional")
    return extract_patches(input, ksizes, strides, [1] * 5, padding)
