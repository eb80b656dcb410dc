"""Non-max suppression without TensorFlow: the greedy order (ties by index, zero-area
boxes overlapping nothing, flipped corners normalized), thresholds, soft-NMS scores,
shapes and errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

BOXES = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                  [0, 10.1, 1, 11.1], [0, 100, 1, 101], [1, 1, 0, 0], [0, 0, 0, 0]], np.float32)
SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.9, 0.99], np.float32)

CASES = [  # name, build, expected
    ("greedy", lambda: tf.image.non_max_suppression(BOXES, SCORES, 10), [7, 3, 0, 5]),
    ("max_output", lambda: tf.image.non_max_suppression(BOXES, SCORES, 3), [7, 3, 0]),
    ("score_threshold", lambda: tf.image.non_max_suppression(BOXES, SCORES, 10, 0.5, 0.92),
     [7, 3]),
    ("iou_one_keeps_all_but_zero_area_ties",
     lambda: tf.image.non_max_suppression(BOXES, SCORES, 10, 1.0), [7, 3, 0, 6, 1, 2, 4, 5]),
    ("overlaps", lambda: tf.image.non_max_suppression_overlaps(
        np.eye(3, dtype=np.float32) + 0.6 * (1 - np.eye(3, dtype=np.float32)),
        np.array([0.2, 0.9, 0.5], np.float32), 3), [1]),
]


@pytest.mark.parametrize("name, build, expected", CASES, ids=[c[0] for c in CASES])
def test_selection(name, build, expected):
    with tf.Graph().as_default():
        out = build()
        assert out.shape.as_list() == [None]
        with tf.Session() as sess:
            assert sess.run(out).tolist() == expected


def test_soft_nms_lowers_overlapping_scores():
    with tf.Graph().as_default():
        idx, sc = tf.image.non_max_suppression_with_scores(BOXES, SCORES, 10,
                                                           soft_nms_sigma=0.5)
        with tf.Session() as sess:
            idx, sc = sess.run([idx, sc])
    assert idx[:3].tolist() == [7, 3, 0]
    assert sorted(idx.tolist()) == list(range(8))
    assert np.all(np.diff(sc) <= 0) and sc[-1] < SCORES[idx[-1]]


def test_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            tf.image.non_max_suppression(BOXES[:, :3], SCORES, 3)
        with pytest.raises(ValueError):
            tf.image.non_max_suppression(BOXES, SCORES[:4], 3)
        bad = tf.image.non_max_suppression(BOXES, SCORES, 3, 1.5)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(bad)
