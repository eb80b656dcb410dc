"""Segment reductions (math_segment): semantics and errors as in TF."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors

DATA = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], np.float32)


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_unsorted_segment_reductions():
    with tf.Graph().as_default():
        ids = [2, -1, 2, 0]
        outs = [tf.unsorted_segment_sum(DATA, ids, 3), tf.unsorted_segment_max(DATA, ids, 3),
                tf.unsorted_segment_min(DATA, ids, 3), tf.unsorted_segment_prod(DATA, ids, 3)]
        assert outs[0].op.name == "UnsortedSegmentSum" and outs[0].shape.as_list() == [3, 2]
        got = _run(outs)
    np.testing.assert_array_equal(got[0], [[7, 8], [0, 0], [6, 8]])
    lowest, highest = np.finfo(np.float32).min, np.finfo(np.float32).max
    np.testing.assert_array_equal(got[1], [[7, 8], [lowest, lowest], [5, 6]])
    np.testing.assert_array_equal(got[2], [[7, 8], [highest, highest], [1, 2]])
    np.testing.assert_array_equal(got[3], [[7, 8], [1, 1], [5, 12]])
    assert lowest < 0 < highest


def test_unsorted_segment_sum_multi_dim_ids_and_ints():
    with tf.Graph().as_default():
        data = tf.constant([[1, 2, 3], [4, 5, 6]])
        t = tf.unsorted_segment_sum(data, [[0, 1, 1], [0, 2, 1]], 3)
        assert t.shape.as_list() == [3] and t.dtype == tf.int32
        assert _run(t).tolist() == [5, 11, 5]
        m = tf.unsorted_segment_max(data, [[0, 1, 1], [0, 0, 0]], 3)
        assert _run(m).tolist() == [6, 3, np.iinfo(np.int32).min]


def test_unsorted_segment_id_out_of_range():
    with tf.Graph().as_default():
        t = tf.unsorted_segment_sum(DATA, [0, 1, 5, 0], 3)
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"segment_ids\[2\] = 5 is out of range \[0, 3\)"):
            _run(t)


def test_sorted_segment_reductions():
    with tf.Graph().as_default():
        ids = [0, 0, 2, 2]
        outs = [tf.segment_sum(DATA, ids), tf.segment_mean(DATA, ids),
                tf.segment_max(DATA, ids), tf.segment_min(DATA, ids),
                tf.segment_prod(DATA, ids), tf.segment_mean(tf.constant([-3, -4, 5]), [0, 0, 1])]
        assert outs[0].shape.as_list() == [None, 2]
        got = _run(outs)
    np.testing.assert_array_equal(got[0], [[4, 6], [0, 0], [12, 14]])
    np.testing.assert_array_equal(got[1], [[2, 3], [0, 0], [6, 7]])
    np.testing.assert_array_equal(got[2], [[3, 4], [0, 0], [7, 8]])
    np.testing.assert_array_equal(got[3], [[1, 2], [0, 0], [5, 6]])
    np.testing.assert_array_equal(got[4], [[3, 8], [1, 1], [35, 48]])
    assert got[5].tolist() == [-3, 5]


@pytest.mark.parametrize("ids,message", [([1, 0, 2, 2], "segment ids are not increasing"),
                                         ([-1, 0, 0, 0], "segment ids must be >= 0")])
def test_sorted_segment_id_errors(ids, message):
    with tf.Graph().as_default():
        t = tf.segment_sum(DATA, ids)
        with pytest.raises(errors.InvalidArgumentError, match=message):
            _run(t)


def test_segment_shape_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
            tf.segment_sum(DATA, [[0, 0, 1, 1]])
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 4 and 3"):
            tf.unsorted_segment_sum(DATA, [0, 0, 1], 2)
