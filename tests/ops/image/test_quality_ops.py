"""tf.image.psnr, ssim, image_gradients, sobel_edges and YIQ / YUV without TensorFlow:
values against NumPy references and the defining identities, shapes and errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

R = np.random.RandomState(3)
A = R.rand(2, 12, 12, 3).astype(np.float32)
B = np.clip(A + R.randn(*A.shape).astype(np.float32) * 0.05, 0, 1)


def _run(fetch):
    with tf.Session() as sess:
        return sess.run(fetch)


def _sobel_ref(x):
    p = np.pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float32)
    out = np.zeros(x.shape + (2,), np.float32)
    h, w = x.shape[1:3]
    for i in range(3):
        for j in range(3):
            win = p[:, i:i + h, j:j + w, :]
            out[..., 0] += ky[i, j] * win
            out[..., 1] += ky.T[i, j] * win
    return out


CASES = [  # name, build, reference
    ("psnr", lambda: tf.image.psnr(A, B, 1.0),
     lambda: 10 * np.log10(1.0 / ((A - B) ** 2).mean(axis=(1, 2, 3)))),
    ("ssim_identical", lambda: tf.image.ssim(A, A, 1.0), lambda: np.ones(2)),
    ("ssim_range", lambda: tf.cast(tf.image.ssim(A, B, 1.0) < 1.0, tf.float32),
     lambda: np.ones(2)),
    ("gradients", lambda: tf.image.image_gradients(A),
     lambda: (np.concatenate([np.diff(A, axis=1), np.zeros_like(A[:, :1])], 1),
              np.concatenate([np.diff(A, axis=2), np.zeros_like(A[:, :, :1])], 2))),
    ("sobel", lambda: tf.image.sobel_edges(A), lambda: _sobel_ref(A)),
    ("yiq_round_trip", lambda: tf.image.yiq_to_rgb(tf.image.rgb_to_yiq(A)), lambda: A),
    ("yuv_round_trip", lambda: tf.image.yuv_to_rgb(tf.image.rgb_to_yuv(A)), lambda: A),
    ("yuv_luma", lambda: tf.image.rgb_to_yuv(A)[..., 0],
     lambda: A @ np.array([0.299, 0.587, 0.114], np.float32)),
]


@pytest.mark.parametrize("name, build, reference", CASES, ids=[c[0] for c in CASES])
def test_values(name, build, reference):
    with tf.Graph().as_default():
        got = _run(build())
    np.testing.assert_allclose(got, reference(), rtol=1e-4, atol=1e-4)


def test_shapes_and_errors():
    with tf.Graph().as_default():
        assert tf.image.sobel_edges(tf.placeholder(tf.float32, [None, 5, 6, 2])).shape \
            .as_list() == [None, 5, 6, 2, 2]
        assert tf.image.ssim(A, B, 1.0, return_index_map=True).shape.as_list() == [2, 2, 2]
        assert tf.image.psnr(A[0], B[0], 1.0).shape.as_list() == []
        with pytest.raises(ValueError):
            tf.image.image_gradients(A[0])
        with pytest.raises(ValueError):
            tf.image.psnr(A, B[:, :5], 1.0)


def test_ssim_multiscale_of_an_image_with_itself_is_one():
    big = np.random.RandomState(5).rand(1, 170, 181, 2).astype(np.float32)
    with tf.Graph().as_default():
        same = tf.image.ssim_multiscale(big, big, 1.0)
        worse = tf.image.ssim_multiscale(big, big * 0.5, 1.0)
        assert same.shape.as_list() == [1]
        got_same, got_worse = _run([same, worse])
    np.testing.assert_allclose(got_same, [1.0], rtol=1e-5)
    assert got_worse[0] < 0.99
