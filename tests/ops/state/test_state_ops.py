"""State ops (ops/state_ops.py): in-place updates of ref variables."""
import threading

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.framework.dtypes import float32_ref


def _session_with(value, name="v", dtype=None):
    v = tf.Variable(np.array(value, dtype=dtype) if dtype else value, name=name)
    sess = tf.Session()
    sess.run(v.initializer)
    return v, sess


def test_assign_add_sub_update_in_place():
    with tf.Graph().as_default():
        v, sess = _session_with([1.0, 2.0])
        buffer_before = sess._resources.variable("v").value
        add = tf.assign_add(v, [10.0, 20.0])
        sub = tf.assign_sub(v, [1.0, 1.0])
        assert add.op.type == "AssignAdd" and add.op.name == "AssignAdd"
        assert not add.op.get_attr("use_locking")
        assert add.dtype == float32_ref
        np.testing.assert_array_equal(sess.run(add), [11.0, 22.0])
        np.testing.assert_array_equal(sess.run(sub), [10.0, 21.0])
        assert sess._resources.variable("v").value is buffer_before
        assert sess.run(v).dtype == np.float32


def test_read_after_update_in_same_step_sees_new_value():
    with tf.Graph().as_default():
        v, sess = _session_with([1.0, 2.0])
        read = v.value()  # `v/read`, created before the update
        _, got = sess.run([v.assign_add([1.0, 1.0]), read])
        np.testing.assert_array_equal(got, [2.0, 3.0])
        out = sess.run(read)
        out[0] = 100.0  # fetched values never alias the variable
        np.testing.assert_array_equal(sess.run(read), [2.0, 3.0])


def test_assign_shape_rules():
    with tf.Graph().as_default():
        v, sess = _session_with([1.0, 2.0, 3.0, 4.0])
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but "
                                             "are 4 and 2"):
            tf.assign(v, [1.0, 2.0])
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
            tf.assign_add(v, [1.0, 2.0])
        grow = tf.assign(v, [1.0, 2.0], validate_shape=False)
        np.testing.assert_array_equal(sess.run(grow), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])


def test_uninitialized_variable_is_failed_precondition():
    with tf.Graph().as_default():
        u = tf.Variable([1.0], name="u")
        with tf.Session() as sess:
            for fetch in (tf.assign_add(u, [1.0]), tf.scatter_add(u, [0], [1.0]), u.value()):
                with pytest.raises(errors.FailedPreconditionError,
                                   match="Attempting to use uninitialized value u"):
                    sess.run(fetch)


@pytest.mark.parametrize("fn, expected", [
    (tf.scatter_update, [8.0, 2.0, 7.0, 4.0]),   # repeated index: the last update wins
    (tf.scatter_add, [16.0, 2.0, 10.0, 4.0]),
    (tf.scatter_sub, [-14.0, 2.0, -4.0, 4.0]),
    (tf.scatter_mul, [56.0, 2.0, 21.0, 4.0]),
    (tf.scatter_div, [1.0 / 56.0, 2.0, 3.0 / 7.0, 4.0]),
    (tf.scatter_min, [1.0, 2.0, 3.0, 4.0]),
    (tf.scatter_max, [8.0, 2.0, 7.0, 4.0]),
])
def test_scatter_ops_with_repeated_indices(fn, expected):
    with tf.Graph().as_default():
        v, sess = _session_with([1.0, 2.0, 3.0, 4.0])
        out = sess.run(fn(v, [0, 2, 0], [7.0, 7.0, 8.0]))
        np.testing.assert_allclose(out, expected, rtol=1e-6)
        assert out.dtype == np.float32


def test_scatter_div_integers_round_toward_zero():
    with tf.Graph().as_default():
        v, sess = _session_with([1, 2, 3, -7], dtype=np.int32)
        np.testing.assert_array_equal(
            sess.run(tf.scatter_div(v, [0, 0, 1, 3], [2, -1, 3, 2])), [0, 0, 3, -3])


def test_scatter_rows_and_scalar_updates():
    with tf.Graph().as_default():
        v, sess = _session_with(np.zeros((3, 2), np.float32))
        np.testing.assert_array_equal(
            sess.run(tf.scatter_add(v, [[2], [2]], [[[1.0, 2.0]], [[3.0, 4.0]]])),
            [[0, 0], [0, 0], [4, 6]])
        np.testing.assert_array_equal(sess.run(tf.scatter_update(v, [0, 1], 5.0)),
                                      [[5, 5], [5, 5], [4, 6]])


def test_scatter_errors():
    with tf.Graph().as_default():
        v, sess = _session_with([1.0, 2.0, 3.0, 4.0])
        with pytest.raises(errors.InvalidArgumentError, match=r"indices\[1\] = 5 is not in "
                                                              r"\[0, 4\)"):
            sess.run(tf.scatter_add(v, [0, 5], [1.0, 1.0]))
        with pytest.raises(errors.InvalidArgumentError, match=r"indices\[0\] = -1"):
            sess.run(tf.scatter_update(v, [-1], [1.0]))
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are "
                                             "3 and 2"):
            tf.scatter_add(v, [0, 0], [7.0, 8.0, 9.0])
        idx = tf.placeholder(tf.int32)
        upd = tf.placeholder(tf.float32)
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"Must have updates.shape = indices.shape \+ params.shape\[1:\] "
                                 r"or updates.shape = \[\], got updates.shape \[3\], "
                                 r"indices.shape \[2\], params.shape \[4\]"):
            sess.run(tf.scatter_add(v, idx, upd), {idx: [0, 1], upd: [1.0, 2.0, 3.0]})
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0, 3.0, 4.0])


def test_scatter_nd_ops():
    with tf.Graph().as_default():
        v, sess = _session_with(np.zeros((2, 3), np.float32))
        np.testing.assert_array_equal(
            sess.run(tf.scatter_nd_update(v, [[0, 1], [1, 2]], [5.0, 6.0])),
            [[0, 5, 0], [0, 0, 6]])
        np.testing.assert_array_equal(
            sess.run(tf.scatter_nd_add(v, [[1], [1]], [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])),
            [[0, 5, 0], [3, 3, 9]])
        np.testing.assert_array_equal(sess.run(tf.scatter_nd_sub(v, [[0, 1]], [5.0])),
                                      [[0, 0, 0], [3, 3, 9]])
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"indices\[1\] = \[9\] does not index into shape \[2,3\]"):
            sess.run(tf.scatter_nd_add(v, [[0], [9]], np.ones((2, 3), np.float32)))


def test_count_up_to():
    with tf.Graph().as_default():
        c, sess = _session_with(0, name="c")
        up = tf.count_up_to(c, 2)
        assert up.op.type == "CountUpTo" and up.dtype == tf.int32
        assert [sess.run(up), sess.run(up)] == [0, 1]
        with pytest.raises(errors.OutOfRangeError, match="Reached limit of 2"):
            sess.run(up)
        assert sess.run(c) == 2
        with pytest.raises(ValueError, match="rank 0"):
            tf.count_up_to(tf.Variable([1, 2]), 3)


def test_is_variable_initialized():
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        flag = tf.is_variable_initialized(v)
        with tf.Session() as sess:
            assert not sess.run(flag)
            sess.run(v.initializer)
            assert sess.run(flag)


def test_locked_assign_add_from_many_threads():
    with tf.Graph().as_default():
        v, sess = _session_with(np.zeros(64, np.float64), name="counter")
        add = tf.assign_add(v, np.ones(64), use_locking=True)
        n_threads, n_steps = 8, 200

        def work():
            for _ in range(n_steps):
                sess.run(add.op)

        threads = [threading.Thread(target=work) for _ in range(n_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        np.testing.assert_array_equal(sess.run(v), np.full(64, n_threads * n_steps))
