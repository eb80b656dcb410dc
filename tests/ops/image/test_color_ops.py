"""Colour ops and functions against TensorFlow 2.21's numbers; seeded colour jitter."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.image import color_kernels as ck


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_kernels_bit_exact(tf_ref):
    ref = tf_ref["color"]
    rgb = ref["rgb"]
    np.testing.assert_array_equal(ck.rgb_to_hsv(rgb), ref["rgb_to_hsv"])
    np.testing.assert_array_equal(ck.hsv_to_rgb(rgb), ref["hsv_to_rgb"])
    for key, expected in ref.items():
        name, _, factor = key.partition("/")
        if not factor or "uint8" in name:
            continue
        fn = {"adjust_hue": ck.adjust_hue, "adjust_saturation": ck.adjust_saturation,
              "adjust_contrast": ck.adjust_contrast}[name]
        np.testing.assert_array_equal(fn(rgb, np.float32(factor)), expected, err_msg=key)


def test_functions_match_tensorflow(tf_ref):
    ref = tf_ref["color"]
    rgb, rgb8 = ref["rgb"], ref["rgb8"]
    with tf.Graph().as_default():
        outs = {
            "rgb_to_hsv": tf.image.rgb_to_hsv(rgb),
            "hsv_to_rgb": tf.image.hsv_to_rgb(rgb),
            "rgb_to_grayscale": tf.image.rgb_to_grayscale(rgb),
            "adjust_hue/0.1": tf.image.adjust_hue(rgb, 0.1),
            "adjust_saturation/1.7": tf.image.adjust_saturation(rgb, 1.7),
            "adjust_contrast/2.5": tf.image.adjust_contrast(rgb, 2.5),
            "adjust_contrast_uint8/1.8": tf.image.adjust_contrast(rgb8, 1.8),
            "adjust_hue_uint8/0.3": tf.image.adjust_hue(rgb8, 0.3),
            "adjust_saturation_uint8/1.5": tf.image.adjust_saturation(rgb8, 1.5),
            "rgb_to_grayscale_uint8": tf.image.rgb_to_grayscale(rgb8),
        }
        core = outs["adjust_contrast/2.5"].op.inputs[0].op  # then an Identity, as in TF
        assert (core.type, core.name) == ("AdjustContrastv2", "adjust_contrast")
        values = _run(outs)
    for key, value in values.items():
        assert value.dtype == ref[key].dtype, key
        if value.dtype == np.uint8:
            np.testing.assert_array_equal(value, ref[key], err_msg=key)
        else:
            np.testing.assert_allclose(value, ref[key], rtol=1e-6, atol=1e-7, err_msg=key)


def test_hsv_round_trip_and_grayscale_to_rgb():
    rgb = np.random.RandomState(3).uniform(0, 1, (2, 4, 5, 3)).astype(np.float32)
    with tf.Graph().as_default():
        back = tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(rgb))
        gray = tf.placeholder(tf.float32, [None, None, 1])
        color = tf.image.grayscale_to_rgb(gray)
        assert color.shape.as_list() == [None, None, 3]
        g = np.arange(6, dtype=np.float32).reshape(2, 3, 1)
        b, c = _run([back, color], {gray: g})
    np.testing.assert_allclose(b, rgb, atol=1e-6)
    np.testing.assert_array_equal(c, np.repeat(g, 3, axis=-1))


def test_hue_of_half_images_and_saturation_zero_is_gray():
    rgb = np.random.RandomState(4).uniform(0, 1, (3, 3, 3)).astype(np.float32)
    with tf.Graph().as_default():
        half = tf.image.adjust_hue(rgb.astype(np.float16), 0.25)
        gray = tf.image.adjust_saturation(rgb, 0.0)
        h, g = _run([half, gray])
    assert h.dtype == np.float16
    np.testing.assert_allclose(h, ck.adjust_hue(rgb, np.float32(0.25)), atol=2e-3)
    np.testing.assert_allclose(g, np.repeat(rgb.max(-1, keepdims=True), 3, -1), atol=1e-6)


def test_random_colour_jitter_is_reproducible_with_a_seed():
    rgb = np.random.RandomState(5).uniform(0, 1, (4, 4, 3)).astype(np.float32)

    def build():
        with tf.Graph().as_default() as g:
            tf.set_random_seed(11)
            outs = [tf.image.random_hue(rgb, 0.2, seed=1),
                    tf.image.random_saturation(rgb, 0.5, 1.5, seed=2),
                    tf.image.random_contrast(rgb, 0.2, 1.8, seed=3)]
            with tf.Session(graph=g) as sess:
                return [sess.run(outs) for _ in range(3)]

    first, second = build(), build()
    for a, b in zip(first, second):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    assert not np.array_equal(first[0][0], first[1][0])  # new draws each run
    for hue, sat, con in first:
        assert hue.shape == sat.shape == con.shape == rgb.shape


@pytest.mark.parametrize("build,message", [
    (lambda x: tf.image.random_hue(x, 0.6), "max_delta must be <= 0.5."),
    (lambda x: tf.image.random_hue(x, -0.1), "max_delta must be non-negative."),
    (lambda x: tf.image.random_saturation(x, 1.0, 0.5), "upper must be > lower."),
    (lambda x: tf.image.random_saturation(x, -1.0, 0.5), "lower must be non-negative."),
    (lambda x: tf.image.random_contrast(x, 0.5, 0.2), "upper must be > lower."),
    (lambda x: tf.image.grayscale_to_rgb(x), "Last dimension of a grayscale image should "
                                             "be size 1."),
    (lambda x: tf.image.rgb_to_hsv(tf.zeros([2, 4])), "Dimension must be 3 but is 4"),
    (lambda x: tf.image.adjust_hue(tf.zeros([4, 3]), 0.1), "Shape must be at least rank 3"),
])
def test_argument_errors(build, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as info:
            build(tf.zeros([2, 2, 3]))
    assert message in str(info.value)


def test_runtime_channel_error():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None, None])
        y = tf.image.adjust_saturation(x, 2.0)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="input must have 3 channels but instead has 4"):
                sess.run(y, {x: np.zeros((2, 2, 4), np.float32)})


# Pixels with every channel ordering, ties, zeros and a negative value: the gradient's
# piecewise cases and TensorFlow's tie-breaking.
HSV_GRAD_RGB = np.array([[[0.9, 0.5, 0.2], [0.2, 0.9, 0.5], [0.5, 0.2, 0.9], [0.3, 0.7, 0.1],
                          [0.1, 0.3, 0.7], [0.7, 0.1, 0.3]],
                         [[0.4, 0.4, 0.4], [0.6, 0.6, 0.2], [0.0, 0.0, 0.0], [0.0, 0.5, 0.0],
                          [0.5, 0.2, 0.5], [-0.2, 0.6, 0.3]]])
HSV_GRAD_W = np.cos(np.arange(36.0)).reshape(2, 6, 3)


def _hsv_grad(dtype, rgb):
    with tf.Graph().as_default():
        x = tf.constant(rgb, dtype)
        return _run(tf.gradients(tf.image.rgb_to_hsv(x), x, grad_ys=tf.constant(HSV_GRAD_W,
                                                                                dtype))[0])


def test_rgb_to_hsv_gradient_matches_finite_differences():
    from op_checks import gradient_error
    rgb = HSV_GRAD_RGB[0]  # distinct channels: the smooth pieces
    assert gradient_error(tf.image.rgb_to_hsv, [(6, 3)], [rgb]) < 1e-5


_TF_HSV_GRAD = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
x = tf.constant(np.array(spec["rgb"], np.float32))
g = tf.gradients(tf.image.rgb_to_hsv(x), x, grad_ys=tf.constant(np.array(spec["w"],
                                                                         np.float32)))[0]
with tf.Session() as sess:
    print(json.dumps(sess.run(g).tolist()))
"""


def test_rgb_to_hsv_gradient_matches_tensorflow():
    from tf_interop import TF_PYTHON, run_json
    if not TF_PYTHON:
        pytest.skip("TRAINFLOW_TF_PYTHON is not set")
    want = run_json(_TF_HSV_GRAD, spec={"rgb": HSV_GRAD_RGB.tolist(),
                                        "w": HSV_GRAD_W.tolist()})
    np.testing.assert_allclose(_hsv_grad(tf.float32, HSV_GRAD_RGB.astype(np.float32)), want,
                               rtol=1e-5, atol=1e-6)
