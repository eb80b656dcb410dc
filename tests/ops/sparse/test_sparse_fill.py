"""SparseFillEmptyRows and its gradient, with TensorFlow 2.21's values."""
import pytest

import trainflow.compat.v1 as tf


def test_fill_empty_rows_and_gradient():
    with tf.Graph().as_default(), tf.Session() as sess:
        vals = tf.constant([5.0, 6.0, 7.0])
        dv = tf.constant(-1.0)
        sp = tf.SparseTensor([[1, 0], [1, 2], [3, 1]], vals, [5, 3])
        filled, empty = tf.sparse.fill_empty_rows(sp, dv)
        assert empty.shape.as_list() == [5] and filled.values.shape.as_list() == [None]
        grads = tf.gradients(tf.reduce_sum(filled.values * filled.values * 3.0), [vals, dv])
        got = sess.run([filled.indices, filled.values, empty, grads])
    # TensorFlow 2.21's values for the same program.
    assert got[0].tolist() == [[0, 0], [1, 0], [1, 2], [2, 0], [3, 1], [4, 0]]
    assert got[1].tolist() == [-1.0, 5.0, 6.0, -1.0, 7.0, -1.0]
    assert got[2].tolist() == [True, False, True, False, True]
    assert got[3][0].tolist() == [30.0, 36.0, 42.0] and got[3][1] == -18.0


def test_fill_empty_rows_keeps_row_order_of_unsorted_input():
    with tf.Graph().as_default(), tf.Session() as sess:
        sp = tf.SparseTensor([[2, 0], [0, 1], [2, 1]], tf.constant([1, 2, 3], tf.int64),
                             [3, 2])
        filled, empty = sess.run(tf.sparse_fill_empty_rows(sp, 9))
    assert filled.indices.tolist() == [[0, 1], [1, 0], [2, 0], [2, 1]]
    assert filled.values.tolist() == [2, 9, 1, 3] and empty.tolist() == [False, True, False]


def test_fill_empty_rows_rejects_out_of_range_rows():
    with tf.Graph().as_default(), tf.Session() as sess:
        sp = tf.SparseTensor([[4, 0]], [1.0], [3, 2])
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(tf.sparse.fill_empty_rows(sp, 0.0)[1])

