"""Image measures and filters built from other ops: `psnr`, `ssim`, `ssim_multiscale`,
`image_gradients`, `sobel_edges`, and the YIQ / YUV colour conversions."""
import numpy as np

from trainflow._src.framework import constant_op
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import cast as cast_ops
from trainflow._src.ops.array import create
from trainflow._src.ops.array import identity as identity_ops
from trainflow._src.ops.array import join
from trainflow._src.ops.array import layout
from trainflow._src.ops.array import shape as shape_ops
from trainflow._src.ops.image.pixel import convert_image_dtype
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions
from trainflow._src.ops.math import tensordot as tensordot_ops
from trainflow._src.ops.nn import activation
from trainflow._src.ops.nn import conv_composite
from trainflow._src.ops.nn import pool
from trainflow._src.ops.nn import softmax as softmax_ops

__all__ = ["psnr", "ssim", "ssim_multiscale", "image_gradients", "sobel_edges", "rgb_to_yiq",
           "yiq_to_rgb",
           "rgb_to_yuv", "yuv_to_rgb"]

_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _colour(matrix, fn_name):
    def fn(images):
        images = convert_to_tensor(images, name="images")
        kernel = convert_to_tensor(matrix, dtype=images.dtype, name="kernel")
        ndims = images.shape.ndims
        return tensordot_ops.tensordot(images, kernel, axes=[[ndims - 1], [0]])
    fn.__name__ = fn_name
    fn.__doc__ = f"`{fn_name}` of [..., 3] float images (a product with TF's 3x3 matrix)."
    return fn


rgb_to_yiq = _colour(_RGB_TO_YIQ, "rgb_to_yiq")
yiq_to_rgb = _colour(_YIQ_TO_RGB, "yiq_to_rgb")
rgb_to_yuv = _colour(_RGB_TO_YUV, "rgb_to_yuv")
yuv_to_rgb = _colour(_YUV_TO_RGB, "yuv_to_rgb")


def image_gradients(image):
    """(dy, dx): the forward differences of a [batch, h, w, d] image, zero in the last
    row / column.

    Raises:
      ValueError: if image is not 4-D.
    """
    image = convert_to_tensor(image)
    if image.shape.ndims != 4:
        raise ValueError("image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{image.shape}.")
    image_shape = shape_ops.shape(image)
    batch, height, width, depth = join.unstack(image_shape)
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = join.concat([dy, create.zeros(join.stack([batch, 1, width, depth]), image.dtype)], 1)
    dy = shape_ops.reshape(dy, image_shape)
    dx = join.concat([dx, create.zeros(join.stack([batch, height, 1, depth]), image.dtype)], 2)
    dx = shape_ops.reshape(dx, image_shape)
    return dy, dx


def sobel_edges(image):
    """[batch, h, w, d, 2]: the vertical and horizontal Sobel responses of each channel
    (reflect-padded, so the size is kept)."""
    image = convert_to_tensor(image)
    static_shape = image.shape
    image_shape = shape_ops.shape(image)
    kernels = [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]]
    num_kernels = len(kernels)
    kernels = np.expand_dims(np.transpose(np.asarray(kernels), (1, 2, 0)), -2)
    kernels_tf = constant_op.constant(kernels, dtype=image.dtype)
    kernels_tf = layout.tile(kernels_tf, [1, 1, image_shape[-1], 1], name="sobel_filters")
    padded = layout.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    output = conv_composite.depthwise_conv2d(padded, kernels_tf, [1, 1, 1, 1], "VALID")
    output = shape_ops.reshape(output, join.concat([image_shape, [num_kernels]], 0))
    output.set_shape(static_shape.concatenate([num_kernels]))
    return output


def _check_shapes(a, b):
    """TF's static part of `_verify_compatible_image_shapes`."""
    a.shape.with_rank_at_least(3)
    b.shape.with_rank_at_least(3)
    a.shape[-3:].assert_is_compatible_with(b.shape[-3:])


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio of two batches of [..., h, w, c] images, per image."""
    with name_scope(name, "PSNR", [a, b]):
        a = convert_to_tensor(a)
        b = convert_to_tensor(b)
        max_val = cast_ops.cast(max_val, a.dtype)
        max_val = convert_image_dtype(max_val, dtypes.float32)
        a = convert_image_dtype(a, dtypes.float32)
        b = convert_image_dtype(b, dtypes.float32)
        mse = reductions.reduce_mean(arith.squared_difference(a, b), [-3, -2, -1])
        value = arith.subtract(20 * arith.log(max_val) / arith.log(10.0),
                               np.float32(10 / np.log(10)) * arith.log(mse), name="psnr")
        _check_shapes(a, b)
        return identity_ops.identity(value)


def _fspecial_gauss(size, sigma):
    size = convert_to_tensor(size, dtypes.int32)
    sigma = convert_to_tensor(sigma)
    coords = cast_ops.cast(create.range(size), sigma.dtype)
    coords -= cast_ops.cast(size - 1, sigma.dtype) / 2.0
    g = arith.square(coords)
    g *= -0.5 / arith.square(sigma)
    g = shape_ops.reshape(g, [1, -1]) + shape_ops.reshape(g, [-1, 1])
    g = softmax_ops.softmax(shape_ops.reshape(g, [1, -1]))
    return shape_ops.reshape(g, [size, size, 1, 1])


def _ssim_helper(x, y, reducer, max_val, k1, k2):
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0, mean1 = reducer(x), reducer(y)
    num0 = mean0 * mean1 * 2.0
    den0 = arith.square(mean0) + arith.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(arith.square(x) + arith.square(y))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return luminance, cs


def _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                      return_index_map=False):
    filter_size = constant_op.constant(filter_size, dtype=dtypes.int32)
    filter_sigma = constant_op.constant(filter_sigma, dtype=img1.dtype)
    shape1 = shape_ops.shape(img1)
    kernel = _fspecial_gauss(filter_size, filter_sigma)
    kernel = layout.tile(kernel, multiples=[1, 1, shape1[-1], 1])

    def reducer(x):
        shape = shape_ops.shape(x)
        x = shape_ops.reshape(x, join.concat([[-1], shape[-3:]], 0))
        y = conv_composite.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return shape_ops.reshape(y, join.concat([shape[:-3], shape_ops.shape(y)[1:]], 0))

    luminance, cs = _ssim_helper(img1, img2, reducer, max_val, k1, k2)
    if return_index_map:
        return luminance * cs, cs
    axes = constant_op.constant([-3, -2], dtype=dtypes.int32)
    return (reductions.reduce_mean(luminance * cs, axes), reductions.reduce_mean(cs, axes))


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
    """The structural similarity of two batches of [..., h, w, c] images (Gaussian
    window filter_size x filter_size, sigma filter_sigma), averaged over the channels."""
    with name_scope(None, "SSIM", [img1, img2]):
        img1 = convert_to_tensor(img1, name="img1")
        img2 = convert_to_tensor(img2, name="img2")
        _check_shapes(img1, img2)
        max_val = cast_ops.cast(max_val, img1.dtype)
        max_val = convert_image_dtype(max_val, dtypes.float32)
        img1 = convert_image_dtype(img1, dtypes.float32)
        img2 = convert_image_dtype(img2, dtypes.float32)
        per_channel, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma,
                                           k1, k2, return_index_map)
        return reductions.reduce_mean(per_channel, [-1])


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _downscale(imgs, tails, heads):
    """Each image symmetric-padded to even height and width (a zero pad when already
    even: the same values as TF's cond), 2x2 average-pooled, reshaped back to its
    batch dimensions."""
    divisor = [1, 2, 2, 1]
    divisor_tensor = constant_op.constant(divisor[1:], dtype=dtypes.int32)
    remainder = tails[0] % divisor_tensor
    padding = layout.pad(shape_ops.expand_dims(remainder, -1), [[1, 0], [1, 0]])
    flat = [shape_ops.reshape(x, join.concat([[-1], t], 0)) for x, t in zip(imgs, tails)]
    padded = [layout.pad(x, padding, mode="SYMMETRIC") for x in flat]
    down = [pool.avg_pool(x, ksize=divisor, strides=divisor, padding="VALID") for x in padded]
    tails = [shape_ops.shape(x)[1:] for x in down]
    return [shape_ops.reshape(x, join.concat([h, t], 0)) for x, h, t in zip(down, heads, tails)]


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
    """Multi-scale SSIM: the contrast-structure terms of len(power_factors) - 1 halvings
    and the SSIM of the last, raised to power_factors and multiplied; averaged over the
    channels."""
    with name_scope(None, "MS-SSIM", [img1, img2]):
        img1 = convert_to_tensor(img1, name="img1")
        img2 = convert_to_tensor(img2, name="img2")
        _check_shapes(img1, img2)
        shapes = [shape_ops.shape(img1), shape_ops.shape(img2)]
        max_val = cast_ops.cast(max_val, img1.dtype)
        max_val = convert_image_dtype(max_val, dtypes.float32)
        imgs = [convert_image_dtype(img1, dtypes.float32),
                convert_image_dtype(img2, dtypes.float32)]
        heads = [s[:-3] for s in shapes]
        tails = [s[-3:] for s in shapes]
        mcs = []
        for k in range(len(power_factors)):
            with name_scope(None, f"Scale{k}", imgs):
                if k > 0:
                    imgs = _downscale(imgs, tails, heads)
                    tails = [shape_ops.shape(x)[-3:] for x in imgs]
                per_channel, cs = _ssim_per_channel(imgs[0], imgs[1], max_val, filter_size,
                                                    filter_sigma, k1, k2)
                mcs.append(activation.relu(cs))
        mcs.pop()
        stacked = join.stack(mcs + [activation.relu(per_channel)], axis=-1)
        ms_ssim = reductions.reduce_prod(arith.pow(stacked, power_factors), [-1])
        return reductions.reduce_mean(ms_ssim, [-1])
