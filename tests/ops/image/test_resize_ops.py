"""tf.image resize functions in graphs: shapes, dtypes, TF1 semantics, errors, gradients."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.image import resize_kernels as rk


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_resize_images_3d_and_4d_all_methods(tf_ref):
    image = tf_ref["resize_input"]
    expected = tf_ref["resize"]
    names = {tf.image.ResizeMethod.BILINEAR: "bilinear",
             tf.image.ResizeMethod.NEAREST_NEIGHBOR: "nearest",
             tf.image.ResizeMethod.BICUBIC: "bicubic", tf.image.ResizeMethod.AREA: "area"}
    with tf.Graph().as_default():
        outs = {}
        for method, name in names.items():
            outs[name, 4] = tf.image.resize_images(image, [5, 7], method=method)
            outs[name, 3] = tf.image.resize_images(image[0], [5, 7], method=method)
            outs[name, "ac"] = tf.image.resize_images(image, [2, 3], method=method,
                                                      align_corners=True)
        values = _run(outs)
    for (name, kind), value in values.items():
        if kind == "ac":
            np.testing.assert_array_equal(value, expected[f"{name}/2x3/10"])
        else:
            want = expected[f"{name}/5x7/00"]
            np.testing.assert_array_equal(value, want if kind == 4 else want[0])
    assert outs["bilinear", 3].shape.as_list() == [5, 7, 2]
    assert outs["area", 4].shape.as_list() == [1, 5, 7, 2]


def test_tf1_functions_and_op_names():
    img = np.random.RandomState(1).uniform(0, 1, (2, 4, 6, 3)).astype(np.float32)
    with tf.Graph().as_default():
        bl = tf.image.resize_bilinear(img, [3, 5])
        nn = tf.image.resize_nearest_neighbor(img, [8, 12], align_corners=True)
        bc = tf.image.resize_bicubic(img, [3, 3], half_pixel_centers=True)
        ar = tf.image.resize_area(img, [2, 3])
        plain = tf.image.resize_images(img, [3, 5])
        assert bl.op.type == "ResizeBilinear" and bl.op.name == "ResizeBilinear"
        assert not bl.op.get_attr("half_pixel_centers")
        assert plain.op.type == "ResizeBilinear" and plain.op.name.startswith("resize")
        assert bc.op.get_attr("half_pixel_centers")
        got = _run([bl, nn, bc, ar])
    size = lambda *s: np.array(s, np.int32)  # noqa: E731
    np.testing.assert_array_equal(got[0], rk.resize_bilinear(
        img, size(3, 5), align_corners=False, half_pixel_centers=False))
    np.testing.assert_array_equal(got[1], rk.resize_nearest_neighbor(
        img, size(8, 12), align_corners=True, half_pixel_centers=False))
    np.testing.assert_array_equal(got[2], rk.resize_bicubic(
        img, size(3, 3), align_corners=False, half_pixel_centers=True))
    # area 4x6 -> 2x3 averages 2x2 blocks exactly.
    np.testing.assert_allclose(got[3], img.reshape(2, 2, 2, 3, 2, 3).mean(axis=(2, 4)),
                               rtol=1e-6)


def test_dtypes_nearest_keeps_others_become_float():
    img = np.arange(32, dtype=np.uint8).reshape(4, 4, 2)
    with tf.Graph().as_default():
        nn = tf.image.resize_images(img, [2, 2], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
        bl = tf.image.resize_images(img, [2, 2])
        same = tf.image.resize_images(img, [4, 4])
        assert (nn.dtype, bl.dtype, same.dtype) == (tf.uint8, tf.float32, tf.uint8)
        nn_v, bl_v = _run([nn, bl])
    np.testing.assert_array_equal(nn_v, img[::2, ::2])
    np.testing.assert_array_equal(bl_v, img[::2, ::2].astype(np.float32))


def test_unknown_dimensions_and_dynamic_size():
    img = np.random.RandomState(2).uniform(0, 1, (5, 6, 3)).astype(np.float32)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, None, 3])
        size = tf.placeholder(tf.int32, [2])
        fixed = tf.image.resize_images(p, [4, 4])
        dynamic = tf.image.resize_images(p, size)
        assert fixed.shape.as_list() == [4, 4, 3]
        assert dynamic.shape.as_list() == [None, None, 3]
        a, b = _run([fixed, dynamic], {p: img, size: [2, 9]})
    assert a.shape == (4, 4, 3) and b.shape == (2, 9, 3)


def test_preserve_aspect_ratio_static_and_dynamic():
    with tf.Graph().as_default():
        x = tf.zeros([1, 4, 6, 3])
        static = tf.image.resize_images(x, [2, 2], preserve_aspect_ratio=True)
        assert static.shape.as_list() == [1, 1, 2, 3]  # as TensorFlow infers it
        p = tf.placeholder(tf.float32, [None, None, 3])
        dyn = tf.image.resize_images(p, [10, 10], preserve_aspect_ratio=True)
        value = _run(dyn, {p: np.ones((4, 8, 3), np.float32)})
    assert value.shape == (5, 10, 3)


def test_resize_image_with_pad():
    img = np.ones((4, 6, 3), np.float32)
    with tf.Graph().as_default():
        out = tf.image.resize_image_with_pad(img, 8, 8)
        assert out.shape.as_list() == [8, 8, 3]
        p = tf.placeholder(tf.float32, [None, None, 3])
        dyn = tf.image.resize_image_with_pad(p, 8, 8)
        a, b = _run([out, dyn], {p: img})
    want = np.zeros((8, 8, 3), np.float32)
    want[1:6] = 1  # resized to 5x8, padded by 1 row on top
    np.testing.assert_array_equal(a, want)
    np.testing.assert_array_equal(b, want)


def test_crop_and_resize_graph(tf_ref):
    ref = tf_ref["crop_and_resize"]
    with tf.Graph().as_default():
        out = tf.image.crop_and_resize(ref["image"], ref["boxes"], ref["box_ind"], [3, 2],
                                       extrapolation_value=-1.0)
        near = tf.image.crop_and_resize(ref["image"], ref["boxes"], crop_size=[3, 2],
                                        method="nearest", extrapolation_value=-1.0,
                                        box_indices=ref["box_ind"])
        assert out.shape.as_list() == [4, 3, 2, 2]
        a, b = _run([out, near])
    np.testing.assert_array_equal(a, ref["bilinear/3x2"])
    np.testing.assert_array_equal(b, ref["nearest/3x2"])


@pytest.mark.parametrize("build,message", [
    (lambda: tf.image.resize_images(tf.zeros([4, 4]), [2, 2]),
     "'images' must have either 3 or 4 dimensions."),
    (lambda: tf.image.resize_images(tf.zeros([1, 4, 4, 1]), [2, 2, 2]),
     "'size' must be a 1-D Tensor of 2 elements: new_height, new_width"),
    (lambda: tf.image.resize_images(tf.zeros([1, 4, 4, 1]), [2.5, 2]),
     "'size' must be a 1-D int32 Tensor"),
    (lambda: tf.image.resize_images(tf.placeholder(tf.float32), [2, 2]),
     "'images' contains no shape."),
    (lambda: tf.image.resize_images(tf.zeros([4, 4, 1]), [2, 2], method=7),
     "Resize method is not implemented: 7"),
    (lambda: tf.image.resize_bilinear(tf.zeros([4, 4, 3]), [2, 2]),
     "Shape must be rank 4 but is rank 3"),
    (lambda: tf.image.resize_bilinear(tf.zeros([1, 4, 4, 3]), [2, 2, 3]),
     "Dimension must be 2 but is 3"),
])
def test_graph_construction_errors(build, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as info:
            build()
    assert message in str(info.value)


def test_runtime_error_names_the_op():
    with tf.Graph().as_default():
        size = tf.placeholder(tf.int32, [2])
        out = tf.image.resize_bilinear(tf.zeros([1, 4, 4, 1]), size)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="output dimensions must be positive"):
                sess.run(out, {size: [0, 3]})


@pytest.mark.parametrize("fn,kwargs", [
    (tf.image.resize_bilinear, {}),
    (tf.image.resize_bilinear, {"align_corners": True}),
    (tf.image.resize_bilinear, {"half_pixel_centers": True}),
    (tf.image.resize_nearest_neighbor, {}),
    (tf.image.resize_nearest_neighbor, {"half_pixel_centers": True}),
    (tf.image.resize_bicubic, {}),
])
def test_gradients_match_finite_differences(fn, kwargs):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 3, 4, 2])
        y = fn(x, [5, 3], **kwargs)
        with tf.Session():
            # Nearest neighbour is piecewise constant: its Jacobian is exact with any delta.
            err = tf.test.compute_gradient_error(x, [1, 3, 4, 2], y, [1, 5, 3, 2])
    assert err < 2e-3


def test_gradient_op_types_and_unknown_shape():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None, None, 1])
        y = tf.image.resize_nearest_neighbor(x, [4, 4])
        z = tf.image.resize_bilinear(x, [4, 4])
        ones = np.ones((1, 4, 4, 1), np.float32)
        gx = tf.gradients([y, z], x, grad_ys=[ones, ones])[0]
        types = {op.type for op in tf.get_default_graph().get_operations()}
        assert {"ResizeNearestNeighborGrad", "ResizeBilinearGrad"} <= types
        value = _run(gx, {x: np.ones((1, 2, 2, 1), np.float32)})
    # Each input feeds 4 nearest-neighbour outputs; TF1's legacy bilinear mapping gives
    # the sources weights 1.5 and 2.5 per axis (the last pixel absorbs the clamped taps).
    bilinear = np.outer([1.5, 2.5], [1.5, 2.5])
    np.testing.assert_allclose(value[0, :, :, 0], 4.0 + bilinear)


CROP_IMAGE = np.sin(np.arange(2 * 5 * 6 * 2, dtype=np.float32) * 0.7).reshape(2, 5, 6, 2)
# A box inside, one reaching outside the image (extrapolated samples), a flipped one and a
# one-row crop centre; crops of 3x4.
CROP_BOXES = np.array([[0.1, 0.15, 0.8, 0.7], [-0.2, 0.3, 0.6, 1.3], [0.9, 0.8, 0.2, 0.1],
                       [0.33, 0.2, 0.33, 0.9]], np.float32)
CROP_BOX_IND = np.array([0, 1, 1, 0], np.int32)
CROP_W = np.cos(np.arange(4 * 3 * 4 * 2, dtype=np.float32)).reshape(4, 3, 4, 2)


def _crop_grads(method, image=CROP_IMAGE, boxes=CROP_BOXES):
    with tf.Graph().as_default():
        x, b = tf.constant(image), tf.constant(boxes)
        y = tf.image.crop_and_resize(x, b, CROP_BOX_IND, [3, 4], method=method)
        grads = tf.gradients(y, [x, b], grad_ys=tf.constant(CROP_W))
        types = {op.type for op in tf.get_default_graph().get_operations()}
        assert {"CropAndResizeGradImage", "CropAndResizeGradBoxes"} <= types
        return _run(grads)


def test_crop_and_resize_gradients_match_finite_differences():
    # Shifted so that no sample lands on a pixel centre (a kink of the interpolation).
    boxes = CROP_BOXES + np.float32(0.013)
    got_image, got_boxes = _crop_grads("bilinear", boxes=boxes)
    with tf.Graph().as_default():
        image_ph = tf.placeholder(tf.float32, CROP_IMAGE.shape)
        boxes_ph = tf.placeholder(tf.float32, boxes.shape)
        loss = tf.reduce_sum(tf.image.crop_and_resize(image_ph, boxes_ph, CROP_BOX_IND, [3, 4])
                             * CROP_W)
        with tf.Session() as sess:
            def f(image, bxs):
                return float(sess.run(loss, {image_ph: image, boxes_ph: bxs}))
            # The crops are linear in the image: a difference along any direction is exact.
            rng = np.random.RandomState(5)
            for _ in range(3):
                d = rng.normal(size=CROP_IMAGE.shape).astype(np.float32)
                np.testing.assert_allclose(np.sum(got_image * d),
                                           f(CROP_IMAGE + d, boxes) - f(CROP_IMAGE, boxes),
                                           rtol=1e-4, atol=1e-4)
            want_boxes = np.zeros(boxes.shape)
            for i in np.ndindex(boxes.shape):
                step = np.zeros_like(boxes)
                step[i] = 1e-3
                want_boxes[i] = (f(CROP_IMAGE, boxes + step)
                                 - f(CROP_IMAGE, boxes - step)) / 2e-3
    np.testing.assert_allclose(got_boxes, want_boxes, rtol=2e-2, atol=2e-2)


_TF_CROP_GRADS = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
x = tf.constant(np.array(spec["image"], np.float32))
b = tf.constant(np.array(spec["boxes"], np.float32))
out = {}
with tf.Session() as sess:
    for method in ("bilinear", "nearest"):
        y = tf.image.crop_and_resize(x, b, spec["box_ind"], [3, 4], method=method)
        g = tf.gradients(y, [x, b], grad_ys=tf.constant(np.array(spec["w"], np.float32)))
        out[method] = [v.tolist() for v in sess.run(g)]
print(json.dumps(out))
"""


def test_crop_and_resize_gradients_match_tensorflow():
    from tf_interop import TF_PYTHON, run_json
    if not TF_PYTHON:
        pytest.skip("TRAINFLOW_TF_PYTHON is not set")
    want = run_json(_TF_CROP_GRADS, spec={"image": CROP_IMAGE.tolist(),
                                          "boxes": CROP_BOXES.tolist(),
                                          "box_ind": CROP_BOX_IND.tolist(),
                                          "w": CROP_W.tolist()})
    for method in ("bilinear", "nearest"):
        got = _crop_grads(method)
        np.testing.assert_allclose(got[0], want[method][0], rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(got[1], want[method][1], rtol=1e-4, atol=1e-4)
