"""tensordot: static-shape graphs as TF builds them, partially known shapes, errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


A = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10
B = np.arange(60, dtype=np.float32).reshape(4, 3, 5) / 10


def _ops(g, start):
    return [(op.name, op.type) for op in g.get_operations()[start:]]


def test_matrix_contraction_is_a_single_matmul():
    with tf.Graph().as_default() as g:
        a, b = tf.constant(A[0]), tf.constant(B[:, 0, :])
        n = len(g.get_operations())
        t = tf.tensordot(a, b, 1)
        assert _ops(g, n) == [("Tensordot/MatMul", "MatMul")]
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(t), A[0] @ B[:, 0, :], rtol=1e-5)


def test_transposes_and_reshapes_only_when_needed():
    with tf.Graph().as_default() as g:
        a, b = tf.constant(A), tf.constant(B)
        n = len(g.get_operations())
        t = tf.tensordot(a, b, [[1, 2], [1, 0]])
        assert [name for name, _ in _ops(g, n)] == [
            "Tensordot/Reshape/shape", "Tensordot/Reshape", "Tensordot/transpose/perm",
            "Tensordot/transpose", "Tensordot/Reshape_1/shape", "Tensordot/Reshape_1",
            "Tensordot/MatMul"]
        assert t.shape.as_list() == [2, 5]
        outer = tf.tensordot(a, b, 0)
        assert outer.op.name == "Tensordot_1" and outer.shape.as_list() == [2, 3, 4, 4, 3, 5]
        with tf.Session() as sess:
            got, got_outer = sess.run([t, outer])
    np.testing.assert_allclose(got, np.tensordot(A, B, [[1, 2], [1, 0]]), rtol=1e-5)
    np.testing.assert_allclose(got_outer, np.tensordot(A, B, 0), rtol=1e-5)


def test_partially_known_shapes_compute_sizes_in_graph():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [None, 3, 4])
        t = tf.tensordot(a, tf.constant(B), [[2], [0]])
        assert t.op.name == "Tensordot" and t.shape.as_list() == [None, 3, 3, 5]
        with tf.Session() as sess:
            got = sess.run(t, {a: A})
    np.testing.assert_allclose(got, np.tensordot(A, B, [[2], [0]]), rtol=1e-5)


def test_axes_errors():
    with tf.Graph().as_default():
        a, b = tf.constant(A), tf.constant(B)
        with pytest.raises(ValueError, match="`axes` must be at least 0. Received: -1."):
            tf.tensordot(a, b, -1)
        with pytest.raises(ValueError, match="`axes` must not be larger than the number of "
                                             "dimensions"):
            tf.tensordot(a, b, 4)
        with pytest.raises(ValueError, match="Different number of contraction axes `a` and "
                                             "`b`, 2 != 1."):
            tf.tensordot(a, b, [[1, 2], [0]])
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
            tf.tensordot(a, b, [[1], [0]])
        with pytest.raises(ValueError, match="known rank"):
            tf.tensordot(tf.placeholder(tf.float32), b, 1)
