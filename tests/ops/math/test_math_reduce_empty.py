"""Reductions over empty tensors give the reduction's identity, as TensorFlow does
(sum 0, prod 1, max -inf / the type's lowest, min +inf / highest, mean NaN)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

F32_EMPTY = {"reduce_sum": 0.0, "reduce_prod": 1.0, "reduce_max": -np.inf,
             "reduce_min": np.inf, "reduce_mean": np.nan, "reduce_logsumexp": -np.inf}
I32 = np.iinfo(np.int32)
I32_EMPTY = {"reduce_sum": 0, "reduce_prod": 1, "reduce_max": I32.min, "reduce_min": I32.max}


@pytest.mark.parametrize("fn,want", sorted(F32_EMPTY.items()))
@pytest.mark.parametrize("axis", [None, 0])
def test_float_reductions_of_empty_give_identity(fn, want, axis):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        out = getattr(tf, fn)(x, axis=axis)
        with tf.Session() as sess:
            got = sess.run(out, {x: np.zeros((0, 3), np.float32)})
    np.testing.assert_array_equal(got, np.full(() if axis is None else (3,), want, np.float32))


@pytest.mark.parametrize("fn,want", sorted(I32_EMPTY.items()))
def test_int_reductions_of_empty_give_identity(fn, want):
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(getattr(tf, fn)(tf.zeros([2, 0], tf.int32), axis=1))
    np.testing.assert_array_equal(got, [want, want])


def test_bool_reductions_and_empty_constants():
    with tf.Graph().as_default(), tf.Session() as sess:
        empty = tf.zeros([0], tf.bool)
        assert sess.run(tf.reduce_all(empty)) and not sess.run(tf.reduce_any(empty))
        assert sess.run(tf.constant(5.0, shape=[0, 3])).shape == (0, 3)
        assert sess.run(tf.reduce_sum(tf.ones([0, 3]), axis=0)).tolist() == [0.0, 0.0, 0.0]
