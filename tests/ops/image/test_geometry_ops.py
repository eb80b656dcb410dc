"""Flips, rotations, transposes, crops and pads vs NumPy; static and run-time checks."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

IMG = np.arange(4 * 6 * 3, dtype=np.float32).reshape(4, 6, 3)
BATCH = np.stack([IMG, IMG * 2 + 1])


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_flips_transpose_and_rot90_3d_4d():
    with tf.Graph().as_default():
        outs = {
            "lr": (tf.image.flip_left_right(IMG), IMG[:, ::-1]),
            "ud": (tf.image.flip_up_down(IMG), IMG[::-1]),
            "lr4": (tf.image.flip_left_right(BATCH), BATCH[:, :, ::-1]),
            "ud4": (tf.image.flip_up_down(BATCH), BATCH[:, ::-1]),
            "t": (tf.image.transpose_image(IMG), IMG.transpose(1, 0, 2)),
            "t4": (tf.image.transpose(BATCH), BATCH.transpose(0, 2, 1, 3)),
        }
        for k in range(-1, 6):
            outs[f"rot{k}"] = (tf.image.rot90(IMG, k), np.rot90(IMG, k, axes=(0, 1)))
            outs[f"rot4_{k}"] = (tf.image.rot90(BATCH, k), np.rot90(BATCH, k, axes=(1, 2)))
        assert outs["rot1"][0].shape.as_list() == [6, 4, 3]
        values = _run({k: v[0] for k, v in outs.items()})
    for key, value in values.items():
        np.testing.assert_array_equal(value, outs[key][1], err_msg=key)


def test_rot90_with_a_tensor_k_and_unknown_shapes():
    with tf.Graph().as_default():
        k = tf.placeholder(tf.int32, [])
        p = tf.placeholder(tf.float32, [None, None, 3])
        rot = tf.image.rot90(p, k)
        flip = tf.image.flip_left_right(p)
        assert rot.shape.as_list() == [None, None, 3]
        assert flip.shape.as_list() == [None, None, 3]
        with tf.Session() as sess:
            for kv in range(4):
                np.testing.assert_array_equal(sess.run(rot, {p: IMG, k: kv}),
                                              np.rot90(IMG, kv, axes=(0, 1)))
            np.testing.assert_array_equal(sess.run(flip, {p: IMG}), IMG[:, ::-1])


def test_unknown_rank_images_use_a_cond():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32)
        flipped = tf.image.flip_up_down(p)
        transposed = tf.image.transpose_image(p)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(flipped, {p: IMG}), IMG[::-1])
            np.testing.assert_array_equal(sess.run(flipped, {p: BATCH}), BATCH[:, ::-1])
            np.testing.assert_array_equal(sess.run(transposed, {p: BATCH}),
                                          BATCH.transpose(0, 2, 1, 3))


def test_random_flips_are_seeded_and_per_image():
    batch = np.stack([IMG + i for i in range(16)])

    def draws():
        with tf.Graph().as_default() as g:
            tf.set_random_seed(3)
            single = tf.image.random_flip_left_right(IMG, seed=5)
            many = tf.image.random_flip_up_down(batch, seed=6)
            with tf.Session(graph=g) as sess:
                return [sess.run([single, many]) for _ in range(8)]

    first, second = draws(), draws()
    for (a, b), (c, d) in zip(first, second):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    singles = [a for a, _ in first]
    assert all(np.array_equal(s, IMG) or np.array_equal(s, IMG[:, ::-1]) for s in singles)
    assert any(np.array_equal(s, IMG) for s in singles)
    assert any(np.array_equal(s, IMG[:, ::-1]) for s in singles)
    flipped = [np.array_equal(m, (batch[i])[::-1]) for _, many in first
               for i, m in enumerate(many)]
    kept = [np.array_equal(m, batch[i]) for _, many in first for i, m in enumerate(many)]
    assert all(f or k for f, k in zip(flipped, kept)) and any(flipped) and any(kept)


def test_crop_pad_and_central_crop():
    with tf.Graph().as_default():
        crop = tf.image.crop_to_bounding_box(IMG, 1, 2, 2, 3)
        crop4 = tf.image.crop_to_bounding_box(BATCH, 0, 1, 4, 5)
        pad = tf.image.pad_to_bounding_box(IMG, 1, 2, 7, 9)
        pad4 = tf.image.pad_to_bounding_box(BATCH, 0, 0, 5, 6)
        cc = tf.image.central_crop(IMG, 0.5)
        cc4 = tf.image.central_crop(BATCH, 0.34)
        same = tf.image.central_crop(IMG, 1.0)
        assert pad.shape.as_list() == [7, 9, 3] and cc.shape.as_list() == [2, 4, 3]
        values = _run([crop, crop4, pad, pad4, cc, cc4, same])
    want_pad = np.zeros((7, 9, 3), np.float32)
    want_pad[1:5, 2:8] = IMG
    want_pad4 = np.zeros((2, 5, 6, 3), np.float32)
    want_pad4[:, :4] = BATCH
    expected = [IMG[1:3, 2:5], BATCH[:, 0:4, 1:6], want_pad, want_pad4, IMG[1:3, 1:5],
                BATCH[:, 1:3, 1:5], IMG]
    for got, want in zip(values, expected):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape,target,slices", [
    ((4, 6), (2, 2), (slice(1, 3), slice(2, 4))),     # crop both
    ((4, 6), (4, 6), (slice(0, 4), slice(0, 6))),     # unchanged
    ((4, 6), (3, 5), (slice(0, 3), slice(0, 5))),     # odd crop keeps the top-left extra
])
def test_resize_image_with_crop_or_pad_crops(shape, target, slices):
    with tf.Graph().as_default():
        out = tf.image.resize_image_with_crop_or_pad(IMG, *target)
        p = tf.placeholder(tf.float32, [None, None, 3])
        dyn = tf.image.resize_image_with_crop_or_pad(p, *target)
        assert dyn.shape.as_list() == [target[0], target[1], 3]
        a, b = _run([out, dyn], {p: IMG})
    np.testing.assert_array_equal(a, IMG[slices])
    np.testing.assert_array_equal(b, IMG[slices])


def test_resize_image_with_crop_or_pad_pads_and_mixes():
    with tf.Graph().as_default():
        out = tf.image.resize_image_with_crop_or_pad(BATCH, 7, 4)
        value = _run(out)
    want = np.zeros((2, 7, 4, 3), np.float32)
    want[:, 1:5] = BATCH[:, :, 1:5]
    np.testing.assert_array_equal(value, want)


def test_dynamic_shapes_are_checked_at_run_time():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, None, 3])
        top = tf.placeholder(tf.int32, [])
        crop = tf.image.crop_to_bounding_box(p, 1, 1, 3, 3)
        moved = tf.image.crop_to_bounding_box(IMG, top, 2, 2, 3)
        pad = tf.image.pad_to_bounding_box(p, 1, 1, 4, 4)
        assert moved.shape.as_list() == [2, 3, 3]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(crop, {p: IMG}), IMG[1:4, 1:4])
            np.testing.assert_array_equal(sess.run(moved, {top: 2}), IMG[2:4, 2:5])
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="offset_height must be >= 0."):
                sess.run(moved, {top: -1})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="height must be >= target \\+ offset."):
                sess.run(crop, {p: IMG[:3]})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="width must be <= target - offset"):
                sess.run(pad, {p: IMG})


@pytest.mark.parametrize("build,message", [
    (lambda: tf.image.flip_left_right(tf.zeros([4, 4])),
     "'image' (shape (4, 4)) must be at least three-dimensional."),
    (lambda: tf.image.flip_left_right(tf.zeros([1, 1, 4, 4, 3])),
     "must have either 3 or 4 dimensions"),
    (lambda: tf.image.rot90(tf.zeros([2, 2])), "must be at least three-dimensional"),
    (lambda: tf.image.crop_to_bounding_box(tf.zeros([1, 4, 6, 3]), 0, 0, 5, 5),
     "height must be >= target + offset."),
    (lambda: tf.image.crop_to_bounding_box(tf.zeros([4, 6, 3]), -1, 0, 2, 2),
     "offset_height must be >= 0."),
    (lambda: tf.image.pad_to_bounding_box(tf.zeros([1, 4, 6, 3]), 1, 1, 4, 4),
     "width must be <= target - offset"),
    (lambda: tf.image.central_crop(tf.zeros([4, 6, 3]), 0.0),
     "central_fraction must be within (0, 1]"),
    (lambda: tf.image.resize_image_with_crop_or_pad(tf.zeros([1, 4, 6, 3]), 0, 2),
     "target_height must be > 0."),
    (lambda: tf.image.flip_up_down(tf.placeholder(tf.float32, [0, 4, 3])),
     "inner 3 dims of 'image.shape' must be > 0"),
])
def test_static_errors(build, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as info:
            build()
    assert message in str(info.value)


def test_random_crop_reexport():
    with tf.Graph().as_default():
        out = tf.image.random_crop(IMG, [2, 3, 3], seed=1)
        value = _run(out)
    found = [(i, j) for i in range(3) for j in range(4)
             if np.array_equal(IMG[i:i + 2, j:j + 3], value)]
    assert len(found) == 1
