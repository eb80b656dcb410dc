"""`tf.image.extract_glimpse`: the ExtractGlimpse / ExtractGlimpseV2 ops (windows of
[height, width] cut from each image at an offset; TF's centred / normalised offset rules,
v1's always-subtracted half window; parts outside the image filled with uniform noise
between the image's min and max, Gaussian noise of each channel's mean and deviation,
or zeros; kernels/image/attention_ops.cc with Eigen's ExtractGlimpses). No gradient, as
in TF."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value

__all__ = ["extract_glimpse"]

_F = np.float32


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _start(x, y, width, height, in_w, in_h, centered, normalized, version):
    """Top-left corner (as TF truncates it) of a glimpse at offset (x, y)."""
    x, y = _F(x), _F(y)
    if normalized:
        x, y = x * _F(in_w), y * _F(in_h)
    if version == 1 or normalized:
        if centered:
            x = x / _F(2) + _F(in_w / 2.0)
            y = y / _F(2) + _F(in_h / 2.0)
        if version == 1 or centered:
            x, y = x - _F(width / 2.0), y - _F(height / 2.0)
    elif centered:
        x, y = x + _F(in_w / 2.0), y + _F(in_h / 2.0)
    return int(x), int(y)


def _window(start, extent, size):
    """(source start, count, destination start) of a window along one axis, and whether
    it overlaps the edge."""
    if start < 0:
        count = max(0, extent + start)
        return 0, min(count, size), extent - count, True
    if start + extent >= size:
        return start, max(0, size - start), 0, True
    return start, extent, 0, False


def _noise(image, shape, noise):
    if noise == "zero":
        return np.zeros(shape, _F)
    if noise == "gaussian":
        mean = image.mean(axis=(0, 1))
        sigma = np.sqrt(((image - mean) ** 2).mean(axis=(0, 1)))
        return (mean + sigma * np.random.standard_normal(shape)).astype(_F)
    low = image.min() if image.size else _F(0)
    span = _F(image.max() - low) if image.size else _F(0)
    return (low + np.random.random_sample(shape).astype(_F) * span).astype(_F)


def _kernel(version):
    def kernel(input, size, offsets, *, centered, normalized, uniform_noise, noise):  # noqa: A002
        images = np.asarray(input, _F)
        size, offsets = np.asarray(size), np.asarray(offsets, _F)
        noise = noise.decode() if isinstance(noise, bytes) else noise
        if images.ndim != 4:
            raise _invalid("input must be 4-dimensional"
                           f"[{','.join(map(str, images.shape))}]")
        if size.shape != (2,):
            raise _invalid("input must be a vector of size 2 (height, width)")
        if offsets.ndim != 2:
            raise _invalid("input must be a matrix")
        if offsets.shape[0] != images.shape[0]:
            raise _invalid("first dimension should be batch")
        if offsets.shape[1] != 2:
            raise _invalid("second dimension of offsets must be 2")
        if uniform_noise and noise not in ("", "uniform"):
            raise _invalid("The uniform_noise and noise should not be specified at the "
                           "same time")
        height, width = int(size[0]), int(size[1])
        batch, in_h, in_w, channels = images.shape
        out = np.zeros((batch, height, width, channels), _F)
        mode = "uniform" if uniform_noise else (noise or "uniform")
        for b in range(batch):
            x0, y0 = _start(offsets[b, 1], offsets[b, 0], width, height, in_w, in_h,
                            centered, normalized, version)
            sx, nx, dx, edge_x = _window(x0, width, in_w)
            sy, ny, dy, edge_y = _window(y0, height, in_h)
            if edge_x or edge_y:
                out[b] = _noise(images[b], out[b].shape, mode)
            if nx > 0 and ny > 0:
                out[b, dy:dy + ny, dx:dx + nx] = images[b, sy:sy + ny, sx:sx + nx]
        return out
    return kernel


def _shape_fn(op):
    noise = op._attrs["noise"]
    noise = noise.decode() if isinstance(noise, bytes) else noise
    if op._attrs["uniform_noise"] and noise not in ("", "uniform"):
        raise ValueError("The uniform_noise should not be True when noise is not uniform")
    images = op._inputs[0]._shape.with_rank(4)
    op._inputs[1]._shape.with_rank(1)
    offsets = op._inputs[2]._shape.with_rank(2)
    size = constant_value(op._inputs[1])
    if size is not None and np.size(size) != 2:
        raise ValueError("input must be a vector of size 2 (height, width)")
    h, w = (None, None) if size is None else (int(size[0]), int(size[1]))
    dims = images._dims or [None] * 4
    batch = TensorShape([dims[0]]).merge_with(
        TensorShape([None if offsets._dims is None else offsets._dims[0]]))._dims[0]
    if offsets._dims is not None and offsets._dims[1] not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {offsets._dims[1]}")
    return [TensorShape([batch, h, w, dims[3]])]


for _name, _version in (("ExtractGlimpse", 1), ("ExtractGlimpseV2", 2)):
    register_op(_name, inputs=["input: float", "size: int32", "offsets: float"],
                outputs=["glimpse: float"],
                attrs=["centered: bool = true", "normalized: bool = true",
                       "uniform_noise: bool = true", "noise: string = 'uniform'"],
                shape_fn=_shape_fn, kernel=_kernel(_version))
# TF marks only the v1 op not differentiable; V2 has no gradient entry.
NotDifferentiable("ExtractGlimpse")


def extract_glimpse(input, size, offsets, centered=True, normalized=True,  # noqa: A002
                    uniform_noise=True, name=None):
    """Glimpses of [height, width] = size from a [batch, h, w, c] batch at the [batch, 2]
    (y, x) offsets: centred on the image centre (centered) and in [-1, 1] (normalized),
    else from the top-left corner in pixels; outside the image, noise (the
    ExtractGlimpse op)."""
    return apply_op("ExtractGlimpse", input=input, size=size, offsets=offsets,
                    centered=centered, normalized=normalized, uniform_noise=uniform_noise,
                    name=name).outputs[0]
