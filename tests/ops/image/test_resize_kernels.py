"""The resize kernels against TensorFlow 2.21's outputs (bit-exact) and their errors."""
import numpy as np
import pytest

from trainflow._src.framework import errors
from trainflow._src.ops.image import resize_kernels as rk

_FORWARD = {"bilinear": rk.resize_bilinear, "nearest": rk.resize_nearest_neighbor,
            "bicubic": rk.resize_bicubic}


def _flags(key):
    ac, hpc = key.split("/")[-1]
    return ac == "1", hpc == "1"


def test_forward_kernels_match_tensorflow_bit_for_bit(tf_ref):
    image = tf_ref["resize_input"]
    assert len(tf_ref["resize"]) == 22
    for key, expected in tf_ref["resize"].items():
        method, size, _ = key.split("/")
        size = np.array([int(s) for s in size.split("x")], np.int32)
        ac, hpc = _flags(key)
        if method == "area":
            out = rk.resize_area(image, size, align_corners=ac)
        else:
            out = _FORWARD[method](image, size, align_corners=ac, half_pixel_centers=hpc)
        assert out.dtype == np.float32, key
        np.testing.assert_array_equal(out, expected, err_msg=key)


def test_gradient_kernels_match_tensorflow(tf_ref):
    image = tf_ref["resize_input"]
    for key, case in tf_ref["resize_grads"].items():
        ac, hpc = _flags(key)
        g = case["grads"]
        np.testing.assert_array_equal(
            rk.resize_bilinear_grad(g, image, align_corners=ac, half_pixel_centers=hpc),
            case["bilinear"], err_msg=key)
        np.testing.assert_array_equal(
            rk.resize_bicubic_grad(g, image, align_corners=ac, half_pixel_centers=hpc),
            case["bicubic"], err_msg=key)
        np.testing.assert_array_equal(
            rk.resize_nearest_neighbor_grad(g, np.array([3, 4]), align_corners=ac,
                                            half_pixel_centers=hpc),
            case["nearest"], err_msg=key)


def test_crop_and_resize_matches_tensorflow(tf_ref):
    ref = tf_ref["crop_and_resize"]
    for method in ("bilinear", "nearest"):
        for crop in [(3, 2), (1, 1)]:
            out = rk.crop_and_resize(ref["image"], ref["boxes"], np.array(ref["box_ind"]),
                                     np.array(crop), method=method.encode(),
                                     extrapolation_value=-1.0)
            np.testing.assert_array_equal(out, ref[f"{method}/{crop[0]}x{crop[1]}"])


def _bilinear_reference(img, out_h, out_w):
    """TF1's legacy bilinear mapping written plainly in float64."""
    _, in_h, in_w, _ = img.shape
    out = np.zeros((img.shape[0], out_h, out_w, img.shape[3]))
    for y in range(out_h):
        sy = y * in_h / out_h
        y0, y1, fy = int(np.floor(sy)), min(int(np.ceil(sy)), in_h - 1), sy - np.floor(sy)
        for x in range(out_w):
            sx = x * in_w / out_w
            x0, x1, fx = int(np.floor(sx)), min(int(np.ceil(sx)), in_w - 1), sx - np.floor(sx)
            top = img[:, y0, x0] * (1 - fx) + img[:, y0, x1] * fx
            bottom = img[:, y1, x0] * (1 - fx) + img[:, y1, x1] * fx
            out[:, y, x] = top * (1 - fy) + bottom * fy
    return out


def test_bilinear_agrees_with_a_plain_reference_on_a_larger_image():
    img = np.random.RandomState(0).uniform(0, 255, (2, 9, 13, 3)).astype(np.float32)
    for size in [(4, 5), (17, 30)]:
        out = rk.resize_bilinear(img, np.array(size), align_corners=False,
                                 half_pixel_centers=False)
        np.testing.assert_allclose(out, _bilinear_reference(img, *size), rtol=1e-5, atol=1e-3)


def test_nearest_keeps_dtype_and_legacy_mapping():
    img = np.arange(2 * 4 * 6 * 1, dtype=np.uint8).reshape(2, 4, 6, 1)
    out = rk.resize_nearest_neighbor(img, np.array([2, 3]), align_corners=False,
                                     half_pixel_centers=False)
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out, img[:, ::2, ::2])
    up = rk.resize_nearest_neighbor(img[:, :2, :2], np.array([4, 4]), align_corners=False,
                                    half_pixel_centers=False)
    np.testing.assert_array_equal(up, img[:, :2, :2].repeat(2, 1).repeat(2, 2))


def test_nearest_gradient_of_integers_sums_exactly():
    grads = np.ones((1, 4, 6, 2), np.int32)
    out = rk.resize_nearest_neighbor_grad(grads, np.array([2, 3]), align_corners=False,
                                          half_pixel_centers=False)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.full((1, 2, 3, 2), 4))


def test_same_size_bilinear_is_a_float_copy():
    img = np.arange(12, dtype=np.int32).reshape(1, 2, 3, 2)
    out = rk.resize_bilinear(img, np.array([2, 3]), align_corners=True,
                             half_pixel_centers=False)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, img)


def test_integer_and_double_inputs():
    img = (np.arange(48) % 7).reshape(1, 4, 4, 3)
    for dtype in (np.uint8, np.int16, np.int64, np.float64):
        out = rk.resize_bicubic(img.astype(dtype), np.array([3, 5]), align_corners=False,
                                half_pixel_centers=True)
        ref = rk.resize_bicubic(img.astype(np.float32), np.array([3, 5]),
                                align_corners=False, half_pixel_centers=True)
        np.testing.assert_array_equal(out, ref)
    grad = rk.resize_bilinear_grad(np.ones((1, 3, 5, 3), np.float32), img.astype(np.float64),
                                   align_corners=False, half_pixel_centers=False)
    assert grad.dtype == np.float64
    assert grad.sum() == pytest.approx(45.0)


@pytest.mark.parametrize("images,size,message", [
    (np.zeros((2, 3, 1)), [2, 2], "input must be 4-dimensional[2,3,1]"),
    (np.zeros((1, 2, 3, 1)), [2], "shape_t must have two elements[1]"),
    (np.zeros((1, 2, 3, 1)), [[2, 2]], "shape_t must be 1-dimensional[1,2]"),
    (np.zeros((1, 2, 3, 1)), [0, 2], "output dimensions must be positive"),
    (np.zeros((1, 0, 3, 1)), [2, 2], "input image must be of non-zero size"),
    (np.zeros((1, 2, 3, 0)), [2, 2], "image must have at least one channel"),
])
def test_bad_resize_arguments(images, size, message):
    with pytest.raises(errors.InvalidArgumentError, match=message.replace("[", r"\[")):
        rk.resize_bilinear(images, np.array(size, np.int32), align_corners=False,
                           half_pixel_centers=False)


def test_half_pixel_centers_excludes_align_corners():
    with pytest.raises(errors.InvalidArgumentError, match="align_corners must be False"):
        rk.resize_nearest_neighbor(np.zeros((1, 2, 2, 1)), np.array([3, 3]),
                                   align_corners=True, half_pixel_centers=True)


def test_crop_and_resize_errors():
    img = np.zeros((1, 4, 4, 1), np.float32)
    boxes = np.zeros((1, 4), np.float32)
    with pytest.raises(errors.OutOfRangeError, match="box_index has values outside"):
        rk.crop_and_resize(img, boxes, np.array([1]), np.array([2, 2]), method=b"bilinear",
                           extrapolation_value=0.0)
    with pytest.raises(errors.InvalidArgumentError, match="not finite"):
        rk.crop_and_resize(img, np.full((1, 4), np.nan, np.float32), np.array([0]),
                           np.array([2, 2]), method=b"bilinear", extrapolation_value=0.0)
    with pytest.raises(errors.InvalidArgumentError, match="crop dimensions must be positive"):
        rk.crop_and_resize(img, boxes, np.array([0]), np.array([0, 2]), method=b"nearest",
                           extrapolation_value=0.0)
