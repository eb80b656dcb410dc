"""ConditionalAccumulator / SparseConditionalAccumulator: means, stale gradients, blocking."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.data_flow.accumulators import (
    ConditionalAccumulator, SparseConditionalAccumulator)

# Every blocking run in these tests ends within the deadline.
_CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)


def test_dense_mean_sum_and_stale_gradients():
    with tf.Graph().as_default():
        a = ConditionalAccumulator(tf.float32, shape=[2])
        s = ConditionalAccumulator(tf.float32, shape=[2], reduction_type="SUM", name="s")
        g = tf.placeholder(tf.float32, [2])
        step = tf.placeholder(tf.int64, [])
        ap, aps = a.apply_grad(g, local_step=step), s.apply_grad(g, local_step=step)
        take, takes = a.take_grad(2), s.take_grad(2)
        n = a.num_accumulated()
        assert a.accumulator_ref.op.type == "ResourceConditionalAccumulator"
        assert take.op.type == "ResourceAccumulatorTakeGradient" and take.shape.as_list() == [2]
        assert n.op.name == "conditional_accumulator_NumAccumulated"
        with tf.Session(config=_CONFIG) as sess:
            for v in ([1., 2.], [3., 4.]):
                sess.run([ap, aps], {g: v, step: 0})
            assert sess.run(n) == 2
            np.testing.assert_allclose(sess.run(take), [2., 3.])
            np.testing.assert_allclose(sess.run(takes), [4., 6.])
            sess.run(ap, {g: [1., 1.], step: 0})  # global step is 1 now: stale, dropped
            assert sess.run(n) == 0
            sess.run(a.set_global_step(5))
            sess.run(ap, {g: [1., 1.], step: 5})
            assert sess.run(n) == 1
            with pytest.raises(tf.errors.DeadlineExceededError):
                sess.run(take, options=tf.RunOptions(timeout_in_ms=30))
            with pytest.raises(tf.errors.InvalidArgumentError, match="Shape mismatch"):
                sess.run(a.apply_grad(tf.placeholder_with_default([1., 2., 3.], [None]),
                                      local_step=9))
            with pytest.raises(tf.errors.InvalidArgumentError, match="must be positive"):
                sess.run(a.take_grad(0))


def test_sparse_mean_per_row():
    with tf.Graph().as_default():
        a = SparseConditionalAccumulator(tf.float32, shape=[3, 2])
        s1 = a.apply_grad([0, 2], [[1., 2.], [3., 4.]])
        s2 = a.apply_indexed_slices_grad(
            tf.IndexedSlices(tf.constant([[3., 4.]]), tf.constant([0], tf.int64),
                             tf.constant([3, 2], tf.int64)))
        take = a.take_indexed_slices_grad(2)
        assert a.accumulator_ref.op.type == "SparseConditionalAccumulator"
        with tf.Session(config=_CONFIG) as sess:
            sess.run(s1)
            sess.run(s2)
            assert sess.run(a.num_accumulated()) == 2
            v = sess.run(take)
            assert v.indices.tolist() == [0, 2]
            np.testing.assert_allclose(v.values, [[2., 3.], [3., 4.]])
            assert v.dense_shape.tolist() == [3, 2]


def test_base_class_over_either_ref():
    """tf.ConditionalAccumulatorBase wraps a handle of either kind; tf.sparse shows the
    sparse accumulator."""
    assert tf.sparse.SparseConditionalAccumulator is SparseConditionalAccumulator
    assert issubclass(ConditionalAccumulator, tf.ConditionalAccumulatorBase)
    assert issubclass(SparseConditionalAccumulator, tf.ConditionalAccumulatorBase)
    with tf.Graph().as_default():
        dense = ConditionalAccumulator(tf.float32, shape=[2], name="d")
        sparse = SparseConditionalAccumulator(tf.float32, shape=[3, 2], name="sp")
        bd = tf.ConditionalAccumulatorBase(tf.float32, [2], dense.accumulator_ref)
        bs = tf.ConditionalAccumulatorBase(tf.float32, [3, 2], sparse.accumulator_ref)
        assert (bd.name, bs.name, bd.dtype) == ("d", "sp", tf.float32)
        nd, ns = bd.num_accumulated(), bs.num_accumulated(name="count")
        assert (nd.op.type, nd.op.name) == ("ResourceAccumulatorNumAccumulated",
                                            "d_NumAccumulated")
        assert (ns.op.type, ns.op.name) == ("AccumulatorNumAccumulated", "count")
        step = bs.set_global_step(3)
        assert step.type == "AccumulatorSetGlobalStep"
        with tf.Session(config=_CONFIG) as sess:
            sess.run(dense.apply_grad([1., 2.]))
            sess.run(sparse.apply_grad([0], [[1., 2.]]))
            sess.run(step)
            assert sess.run([nd, ns]) == [1, 1]
