"""Sliced assignment to variables (`var[0:2].assign(...)`, StridedSliceAssign)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_slice_assign_writes_in_place(graph):
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4), name="v")
    a = v[0:2, 1].assign([10.0, 20.0])
    assert a.op.type == "StridedSliceAssign"
    assert a.op.name == "strided_slice/_assign"  # as TF names it
    assert a.op.inputs[4].name == "strided_slice/_assign/value:0"
    b = v[1:, ::2].assign(tf.zeros([2, 2]), name="zero_corner")
    c = tf.assign(v[-1], [7.0, 7.0, 7.0, 7.0])
    d = v[..., 3].assign([1.0, 2.0, 3.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(a)
        want = np.arange(12, dtype=np.float32).reshape(3, 4)
        want[0:2, 1] = [10, 20]
        np.testing.assert_array_equal(sess.run(v), want)
        assert b.op.name == "zero_corner"
        sess.run(b)
        want[1:, ::2] = 0
        np.testing.assert_array_equal(sess.run(v), want)
        sess.run(c)
        want[-1] = 7
        sess.run(d)
        want[..., 3] = [1, 2, 3]
        np.testing.assert_array_equal(sess.run(v), want)


def test_slices_read_like_tensors_and_plain_tensors_have_no_assign(graph):
    v = tf.Variable([1.0, 2.0, 3.0])
    s = v[1:]
    assert s.op.type == "StridedSlice" and s.shape.as_list() == [2]
    assert not hasattr(tf.constant([1.0])[0:], "assign")
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(s * 2).tolist() == [4.0, 6.0]


def test_shape_mismatch_and_uninitialized(graph):
    v = tf.Variable(np.zeros((3, 4), np.float32))
    bad = v[0:2].assign(tf.placeholder(tf.float32))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(v[0].assign(tf.ones([4])))
        sess.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError, match="does not match r-value"):
            sess.run(bad, {bad.op.inputs[4]: np.ones((3, 4), np.float32)})
