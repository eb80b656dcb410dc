"""The tf.image op table: each entry is (name, graph function, sample inputs, NumPy
reference, differentiable). Every entry runs forward against its reference; the
differentiable ones are the entries a gradient check can take from this table."""
import colorsys

import numpy as np
import pytest

import trainflow.compat.v1 as tf

_RNG = np.random.RandomState(42)
RGB = _RNG.uniform(0.05, 0.95, (4, 6, 3)).astype(np.float32)
BATCH = _RNG.uniform(0, 1, (2, 4, 6, 3)).astype(np.float32)
GRAY = _RNG.uniform(0, 1, (3, 5, 1)).astype(np.float32)
U8 = _RNG.randint(0, 256, (3, 4, 3)).astype(np.uint8)


def _hsv(x):
    return np.array([colorsys.rgb_to_hsv(*p) for p in x.reshape(-1, 3)]).reshape(x.shape)


def _rgb(x):
    return np.array([colorsys.hsv_to_rgb(*p) for p in x.reshape(-1, 3)]).reshape(x.shape)


def _pad(x, top, left, height, width):
    out = np.zeros((height, width, x.shape[2]), x.dtype)
    out[top:top + x.shape[0], left:left + x.shape[1]] = x
    return out


TABLE = [
    ("flip_left_right", tf.image.flip_left_right, (RGB,), lambda x: x[:, ::-1], True),
    ("flip_up_down", tf.image.flip_up_down, (BATCH,), lambda x: x[:, ::-1], True),
    ("transpose_image", tf.image.transpose_image, (RGB,), lambda x: x.transpose(1, 0, 2),
     True),
    ("rot90", lambda x: tf.image.rot90(x, 3), (BATCH,), lambda x: np.rot90(x, 3, (1, 2)),
     True),
    ("crop_to_bounding_box", lambda x: tf.image.crop_to_bounding_box(x, 1, 2, 2, 3), (RGB,),
     lambda x: x[1:3, 2:5], True),
    ("pad_to_bounding_box", lambda x: tf.image.pad_to_bounding_box(x, 1, 1, 6, 9), (RGB,),
     lambda x: _pad(x, 1, 1, 6, 9), True),
    ("central_crop", lambda x: tf.image.central_crop(x, 0.5), (RGB,), lambda x: x[1:3, 1:5],
     True),
    ("resize_image_with_crop_or_pad",
     lambda x: tf.image.resize_image_with_crop_or_pad(x, 6, 4), (RGB,),
     lambda x: _pad(x[:, 1:5], 1, 0, 6, 4), True),
    ("adjust_brightness", lambda x: tf.image.adjust_brightness(x, 0.1), (RGB,),
     lambda x: x + np.float32(0.1), True),
    ("adjust_gamma", lambda x: tf.image.adjust_gamma(x, 1.5, 2.0), (RGB,),
     lambda x: 2.0 * x ** 1.5, True),
    ("adjust_contrast", lambda x: tf.image.adjust_contrast(x, 1.5), (BATCH,),
     lambda x: (x - x.mean((1, 2), keepdims=True)) * 1.5 + x.mean((1, 2), keepdims=True),
     False),
    ("adjust_saturation_zero", lambda x: tf.image.adjust_saturation(x, 0.0), (RGB,),
     lambda x: np.repeat(x.max(-1, keepdims=True), 3, -1), False),
    ("adjust_hue_full_turn", lambda x: tf.image.adjust_hue(x, 1.0), (RGB,), lambda x: x,
     False),
    ("rgb_to_hsv", tf.image.rgb_to_hsv, (RGB,), _hsv, False),
    ("hsv_to_rgb", tf.image.hsv_to_rgb, (RGB,), _rgb, False),
    ("rgb_to_grayscale", tf.image.rgb_to_grayscale, (RGB,),
     lambda x: (x @ np.array([0.2989, 0.5870, 0.1140]))[..., None], True),
    ("grayscale_to_rgb", tf.image.grayscale_to_rgb, (GRAY,),
     lambda x: np.repeat(x, 3, -1), True),
    ("convert_image_dtype_to_float", lambda x: tf.image.convert_image_dtype(x, tf.float32),
     (U8,), lambda x: x / 255.0, False),
    ("convert_image_dtype_to_uint8", lambda x: tf.image.convert_image_dtype(x, tf.uint8),
     (RGB,), lambda x: (x * 255.5).astype(np.uint8), False),
    ("per_image_standardization", tf.image.per_image_standardization, (BATCH,),
     lambda x: (x - x.mean((1, 2, 3), keepdims=True)) / x.std((1, 2, 3), keepdims=True),
     True),
    ("resize_nearest_neighbor_2x", lambda x: tf.image.resize_nearest_neighbor(x, [8, 12]),
     (BATCH,), lambda x: x.repeat(2, 1).repeat(2, 2), True),
    ("resize_bilinear_half", lambda x: tf.image.resize_bilinear(x, [2, 3]), (BATCH,),
     lambda x: x[:, ::2, ::2], True),
    ("resize_bilinear_align_corners_identity",
     lambda x: tf.image.resize_bilinear(x, [4, 6], align_corners=True), (BATCH,),
     lambda x: x, True),
    ("resize_bicubic_same_grid", lambda x: tf.image.resize_bicubic(x, [2, 3]), (BATCH,),
     lambda x: x[:, ::2, ::2], True),
    ("resize_area_half", lambda x: tf.image.resize_area(x, [2, 3]), (BATCH,),
     lambda x: x.reshape(2, 2, 2, 3, 2, 3).mean((2, 4)), False),
    ("resize_images_bicubic", lambda x: tf.image.resize_images(
        x, [2, 3], method=tf.image.ResizeMethod.BICUBIC), (RGB,), lambda x: x[::2, ::2], True),
    ("crop_and_resize_full_box", lambda x: tf.image.crop_and_resize(
        x, [[0.0, 0.0, 1.0, 1.0]], [1], [4, 6]), (BATCH,), lambda x: x[1:2], False),
]


@pytest.mark.parametrize("name,fn,inputs,reference,differentiable", TABLE,
                         ids=[row[0] for row in TABLE])
def test_forward_matches_numpy(name, fn, inputs, reference, differentiable):
    with tf.Graph().as_default():
        out = fn(*[tf.constant(x) for x in inputs])
        with tf.Session() as sess:
            value = sess.run(out)
    want = reference(*inputs)
    assert value.shape == want.shape
    if value.dtype.kind in "ui":
        np.testing.assert_array_equal(value, want)
    else:
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=2e-6)
