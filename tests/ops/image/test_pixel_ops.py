"""convert_image_dtype, brightness, gamma and standardization against TF 2.21 / NumPy."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_convert_image_dtype_matches_tensorflow(tf_ref):
    cases = tf_ref["convert_image_dtype"]
    assert len(cases) == 72
    with tf.Graph().as_default():
        outs = {}
        for key, case in cases.items():
            _, target, sat = key.split("/")
            outs[key] = tf.image.convert_image_dtype(case["input"], tf.as_dtype(target),
                                                     saturate=sat == "1")
        values = _run(outs)
    for key, value in values.items():
        want = cases[key]["output"]
        assert value.dtype == want.dtype, key
        if key.startswith("float32/") and not key.endswith("/1") and \
                key.split("/")[1] not in ("float32", "float64"):
            # Out-of-range floats cast without saturation are undefined in C++; compare
            # only the values that are in range.
            ok = (cases[key]["input"] >= 0) & (cases[key]["input"] <= 1)
            np.testing.assert_array_equal(value[ok], want[ok], err_msg=key)
        else:
            np.testing.assert_array_equal(value, want, err_msg=key)


def test_convert_image_dtype_rules_and_names():
    img = np.array([0, 128, 255], np.uint8)
    with tf.Graph().as_default():
        same = tf.image.convert_image_dtype(img, tf.uint8, name="same")
        f = tf.image.convert_image_dtype(img, tf.float32)
        assert same.op.type == "Identity" and same.op.name == "same"
        assert f.op.name == "convert_image" and f.op.type == "Mul"
        with pytest.raises(AttributeError, match="dtype must be either floating point or "
                                                 "integer"):
            tf.image.convert_image_dtype(img, tf.string)
        values = _run(f)
    np.testing.assert_array_equal(values, img.astype(np.float32) * np.float32(1 / 255))


def test_brightness_and_gamma_match_tensorflow(tf_ref):
    ref = tf_ref["color"]
    with tf.Graph().as_default():
        b = tf.image.adjust_brightness(ref["rgb8"], 0.2)
        g = tf.image.adjust_gamma(ref["rgb8"], 0.5, 1.2)
        std = tf.image.per_image_standardization(ref["rgb"])
        std8 = tf.image.per_image_standardization(ref["rgb8"])
        bv, gv, sv, s8 = _run([b, g, std, std8])
    np.testing.assert_array_equal(bv, ref["adjust_brightness_uint8/0.2"])
    np.testing.assert_array_equal(gv, ref["adjust_gamma_uint8/0.5"])
    np.testing.assert_allclose(sv, ref["per_image_standardization"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s8, ref["per_image_standardization_uint8"], rtol=1e-5,
                               atol=1e-6)


def test_float_brightness_gamma_and_standardization_vs_numpy():
    x = np.random.RandomState(6).uniform(0, 1, (2, 3, 4, 3)).astype(np.float32)
    flat = np.ones((2, 2, 1), np.float32)
    with tf.Graph().as_default():
        b = tf.image.adjust_brightness(x, -0.25)
        g = tf.image.adjust_gamma(x, gamma=2.0, gain=0.5)
        s = tf.image.per_image_standardization(x)
        s_flat = tf.image.per_image_standardization(flat)
        p = tf.placeholder(tf.float32, [None, None, None, 3])
        s_dyn = tf.image.per_image_standardization(p)
        bv, gv, sv, fv, dv = _run([b, g, s, s_flat, s_dyn], {p: x})
    np.testing.assert_allclose(bv, x - 0.25, rtol=1e-6)
    np.testing.assert_allclose(gv, 0.5 * x ** 2, rtol=1e-6)
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = np.maximum(x.std(axis=(1, 2, 3), keepdims=True), 1 / np.sqrt(36))
    np.testing.assert_allclose(sv, (x - mean) / std, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dv, sv, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(fv, np.zeros_like(flat))


def test_random_brightness_range_and_seed():
    x = np.full((3, 3, 3), 0.5, np.float32)
    with tf.Graph().as_default():
        out = tf.image.random_brightness(x, 0.2, seed=7)
        with tf.Session() as sess:
            draws = [sess.run(out) for _ in range(20)]
        with pytest.raises(ValueError, match="max_delta must be non-negative."):
            tf.image.random_brightness(x, -0.1)
    deltas = np.array([d[0, 0, 0] for d in draws]) - 0.5
    assert np.all((deltas >= -0.2) & (deltas < 0.2)) and len(set(deltas)) > 1
    for d in draws:
        assert np.all(d == d[0, 0, 0])


def test_negative_python_gamma_raises():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Gamma should be a non-negative real number."):
            tf.image.adjust_gamma(np.ones((2, 2, 3), np.float32), -1.0)
