"""Bucketize, with TensorFlow 2.21's values."""
import numpy as np

import trainflow.compat.v1 as tf
from trainflow._src.ops.math.histogram_ops import bucketize


def test_bucketize_matches_tensorflow():
    with tf.Graph().as_default(), tf.Session() as sess:
        out = bucketize(tf.constant([[-1, 0, 3], [7, 100, 5]]), [0.0, 3.0, 5.5, 100.0])
        assert out.dtype == tf.int32 and out.shape.as_list() == [2, 3]
        np.testing.assert_array_equal(sess.run(out), [[0, 1, 2], [3, 4, 2]])
