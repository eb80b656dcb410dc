"""DynamicPartition / DynamicStitch / ParallelDynamicStitch: kernels, static shapes,
errors and gradients."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.data_flow import partition as P


def test_partition_and_stitch_round_trip():
    data = np.arange(12, dtype=np.float32).reshape(6, 2)
    parts = np.array([1, 0, 2, 1, 1, 0], np.int32)
    with tf.Graph().as_default():
        pieces = P.dynamic_partition(data, parts, 3)
        positions = P.dynamic_partition(tf.range(6), parts, 3)
        assert [p.shape.as_list() for p in pieces] == [[None, 2]] * 3
        merged = P.dynamic_stitch(positions, pieces)
        parallel = P.parallel_dynamic_stitch(positions, pieces)
        assert merged.op.type == "DynamicStitch" and parallel.op.type == "ParallelDynamicStitch"
        with tf.Session() as sess:
            got_pieces, m, p = sess.run([pieces, merged, parallel])
    np.testing.assert_array_equal(got_pieces[0], data[[1, 5]])
    np.testing.assert_array_equal(got_pieces[1], data[[0, 3, 4]])
    np.testing.assert_array_equal(got_pieces[2], data[[2]])
    np.testing.assert_array_equal(m, data)
    np.testing.assert_array_equal(p, data)


def test_partition_by_a_matrix_and_stitch_with_constant_indices():
    with tf.Graph().as_default():
        pieces = P.dynamic_partition([[1, 2], [3, 4]], [[0, 1], [1, 0]], 2)
        stitched = P.dynamic_stitch([[0, 2], [1]], [[[1.0], [2.0]], [[3.0]]])
        assert stitched.shape.as_list() == [3, 1]  # static size from the constant indices
        later_wins = P.dynamic_stitch([[0, 1], [1]], [[10, 20], [30]])
        with tf.Session() as sess:
            a, b, c = sess.run([pieces, stitched, later_wins])
    assert a[0].tolist() == [1, 4] and a[1].tolist() == [2, 3]
    assert b.tolist() == [[1.0], [3.0], [2.0]]
    assert c.tolist() == [10, 30]


def test_partition_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
            P.dynamic_partition(tf.ones([3, 2]), tf.constant([0, 1]), 2)
        parts = tf.placeholder(tf.int32, [None])
        out = P.dynamic_partition(tf.ones([3]), parts, 2)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"partitions\[1\] = 4 is not in \[0, 2\)"):
                sess.run(out, {parts: [0, 4, 1]})


def test_gradients_route_rows_back():
    data = np.arange(8, dtype=np.float64).reshape(4, 2)
    with tf.Graph().as_default():
        x = tf.constant(data)
        pieces = P.dynamic_partition(x, [1, 0, 1, 1], 2)
        y = P.dynamic_stitch(P.dynamic_partition(tf.range(4), [1, 0, 1, 1], 2),
                             pieces)
        up = np.arange(8, dtype=np.float64).reshape(4, 2) + 1
        (dx,) = tf.gradients(y, x, grad_ys=tf.constant(up))
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(dx), up)


def test_stitch_gradient_without_other_ops():
    with tf.Graph().as_default():
        a, b = tf.constant([[1.0, 2.0]]), tf.constant([[3.0, 4.0], [5.0, 6.0]])
        y = P.dynamic_stitch([tf.constant([2]), tf.constant([0, 1])], [a, b])
        da, db = tf.gradients(y, [a, b], grad_ys=tf.constant([[1.0, 1.0], [2.0, 2.0],
                                                              [3.0, 3.0]]))
        with tf.Session() as sess:
            ga, gb = sess.run([da, db])
    assert ga.tolist() == [[3.0, 3.0]] and gb.tolist() == [[1.0, 1.0], [2.0, 2.0]]
