"""tf.image.draw_bounding_boxes without TensorFlow: outlines at the truncated corners,
clamping, skipped boxes, the default colour table (red channel 1 for one channel)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def _draw(images, boxes, colors=None):
    with tf.Graph().as_default():
        out = tf.image.draw_bounding_boxes(images, boxes, colors=colors)
        with tf.Session() as sess:
            return sess.run(out)


def test_outline_of_one_box():
    got = _draw(np.zeros([1, 5, 5, 3], np.float32), [[[0.25, 0.25, 0.75, 0.75]]])
    want = np.zeros([5, 5, 3], np.float32)
    for i, j in [(1, 1), (1, 2), (1, 3), (3, 1), (3, 2), (3, 3), (2, 1), (2, 3)]:
        want[i, j] = [1, 1, 0]  # yellow, the first default colour
    np.testing.assert_array_equal(got[0], want)


@pytest.mark.parametrize("box", [[0.75, 0.1, 0.25, 0.9], [1.5, 0.0, 2.0, 1.0]],
                         ids=["inverted", "outside"])
def test_skipped_boxes(box):
    images = np.full([1, 4, 4, 1], 0.5, np.float32)
    np.testing.assert_array_equal(_draw(images, [[box]]), images)


def test_clamped_box_and_given_colours():
    got = _draw(np.zeros([1, 4, 4, 1], np.float32), [[[-0.5, -0.5, 0.34, 2.0]]],
                colors=[[0.25, 0, 0, 1]])
    assert got[0, 1, :, 0].tolist() == [0.25] * 4  # bottom line; top and sides are outside
    assert got[0, 0, :, 0].tolist() == [0.0] * 4
