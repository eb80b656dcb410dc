"""ExtractImagePatches / ExtractVolumePatches: shapes, argument errors, dtypes and a
small hand-checked case (TF's values are in test_patches_tf_interop.py)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def test_hand_checked_patches_and_names():
    image = np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1)
    with tf.Graph().as_default():
        p = tf.image.extract_patches(image, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
        q = tf.extract_image_patches(image, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
        assert p.op.type == "ExtractImagePatches" and p.op.name == "ExtractImagePatches"
        assert p.shape.as_list() == [1, 2, 2, 4] and q.shape.as_list() == [1, 2, 2, 4]
        with tf.Session() as sess:
            pv, qv = sess.run([p, q])
    np.testing.assert_array_equal(pv[0, 0, 0], [1, 2, 4, 5])
    np.testing.assert_array_equal(pv[0, 1, 1], [5, 6, 8, 9])
    np.testing.assert_array_equal(qv[0, 1, 1], [9, 0, 0, 0])


@pytest.mark.parametrize("shape,args,want", [
    ([2, 7, 6, 3], ([1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "SAME"), [2, 4, 2, 18]),
    ([2, 7, 6, 3], ([1, 3, 2, 1], [1, 2, 3, 1], [1, 2, 1, 1], "VALID"), [2, 2, 2, 18]),
    ([None, None, 6, 3], ([1, 3, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
     [None, None, 5, 18]),
    ([2, 2, 2, None], ([1, 3, 3, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
     [2, 0, 0, None]),
])
def test_static_shapes(shape, args, want):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape)
        assert tf.image.extract_patches(x, *args).shape.as_list() == want


@pytest.mark.parametrize("build,match", [
    (lambda x: tf.image.extract_patches(x, [1, 2, 2], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
     "ksizes"),
    (lambda x: tf.image.extract_patches(x, [2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
     "only supported across spatial"),
    (lambda x: tf.image.extract_patches(x, [1, 2, 2, 1], [1, 1, 1, 2], [1, 1, 1, 1], "SAME"),
     "only supported across spatial"),
    (lambda x: tf.image.extract_patches(x[0], [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1],
                                        "SAME"), "rank"),
    (lambda x: tf.extract_volume_patches(x, [1, 2, 2, 1, 1], [1, 1, 1, 1, 1], "SAME"),
     "rank"),
])
def test_bad_arguments_raise_value_error(build, match):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=match):
            build(tf.zeros([1, 4, 4, 2]))


@pytest.mark.parametrize("dtype", [tf.float16, tf.float64, tf.int32, tf.uint8, tf.int64,
                                   tf.bool, tf.complex64])
def test_dtypes_pass_through(dtype):
    value = (np.arange(32).reshape(1, 4, 4, 2) % 3).astype(dtype.as_numpy_dtype)
    with tf.Graph().as_default():
        p = tf.image.extract_patches(tf.constant(value), [1, 2, 2, 1], [1, 2, 2, 1],
                                     [1, 1, 1, 1], "VALID")
        with tf.Session() as sess:
            got = sess.run(p)
    assert got.dtype == value.dtype
    np.testing.assert_array_equal(got[0, 0, 0], value[0, :2, :2].reshape(-1))


def test_volume_patches_gradient_with_unknown_batch():
    value = np.random.RandomState(0).uniform(size=(2, 3, 4, 5, 2)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3, 4, 5, 2])
        p = tf.extract_volume_patches(x, [1, 2, 2, 2, 1], [1, 1, 2, 2, 1], "SAME")
        g = tf.gradients(tf.reduce_sum(p), x)[0]
        with tf.Session() as sess:
            counts = sess.run(g, {x: value})
    # Each cell is counted once per window covering it; with stride 2 = size 2 along
    # rows and cols, and stride 1 along planes, a cell sits in 2 windows (1 at plane 0).
    np.testing.assert_array_equal(counts[:, 0], 1)
    np.testing.assert_array_equal(counts[:, 1:], 2)
