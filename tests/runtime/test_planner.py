"""The planner: partition into segments, backend choice, constant folding."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.shape_inference import unchanged_shape
from trainflow._src.runtime import planner

if not registry.is_registered("TestPlannerOther"):
    registry.register_op("TestPlannerOther", inputs=["x: T"], outputs=["y: T"],
                         attrs=["T: type"], shape_fn=unchanged_shape,
                         kernel=lambda x: x.copy())
    registry.register_kernel("TestPlannerOther", lambda x: x, backend="test_backend")


def test_partition_cuts_maximal_runs_in_order():
    items = [(1, "a"), (2, "a"), (3, "b"), (4, "a"), (5, "a"), (6, "a")]
    segments = planner.partition(items, lambda item: item[1])
    assert [(s.key, [i for i, _ in s.ops]) for s in segments] == [
        ("a", [1, 2]), ("b", [3]), ("a", [4, 5, 6])]
    assert planner.partition([], lambda item: item) == []


def test_partition_by_backend_of_a_plan():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2], name="p")
        x = tf.identity(p, name="x")
        y = apply_op("TestPlannerOther", x=x, name="y").outputs[0]
        z = tf.identity(y, name="z")
    ops = planner.needed_ops([z.op], set())
    # Today's plans: everything on the NumPy backend, one segment.
    [segment] = planner.partition(ops, planner.backend_for)
    assert segment.key == "numpy" and segment.ops == ops
    # With another backend preferred, its ops form their own segment.
    prefer = ("test_backend", "numpy")
    segments = planner.partition(ops, lambda op: planner.backend_for(op, prefer))
    assert [(s.key, [op.name for op in s.ops]) for s in segments] == [
        ("numpy", ["p", "x"]), ("test_backend", ["y"]), ("numpy", ["z"])]


def test_fold_constants_computes_pure_ops_of_constants_once():
    with tf.Graph().as_default():
        a = tf.constant([1.0, 2.0], name="a")
        b = tf.add(a, a, name="b")
        p = tf.placeholder(tf.float32, [2], name="p")
        c = tf.add(b, p, name="c")
        s = tf.shape(p, name="s")
    ops = planner.needed_ops([c.op, s.op], set())
    folded = planner.fold_constants(ops, set())
    assert set(op.name for op in folded) == {"a", "b", "s"}
    np.testing.assert_array_equal(folded[b.op], [2.0, 4.0])
    np.testing.assert_array_equal(folded[s.op], [2])
    assert not folded[b.op].flags.writeable
    assert planner.fold_constants(ops, {b}).get(b.op) is None


def _run_or_error(sess, fetch, feed):
    try:
        return sess.run(fetch, feed)
    except tf.errors.OpError as e:
        return type(e).__name__


def test_pure_ops_asked_for_only_by_control_edges_are_skipped_as_in_tf():
    # As TensorFlow's dependency optimizer: the Reshape would fail, but nothing reads it.
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, None)
        bad = tf.reshape(p, [7])
        with tf.control_dependencies([bad]):
            out = tf.identity(p)
        checked = tf.check_numerics(p, "bad value")
        with tf.control_dependencies([checked]):
            out_checked = tf.identity(p)
        v = tf.Variable(0.0)
        bump = tf.assign_add(v, 1.0)
        with tf.control_dependencies([bump]):
            out_bumped = tf.identity(p)
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(out, {p: [1.0, 2.0]}), [1.0, 2.0])
            assert _run_or_error(sess, bad, {p: [1.0, 2.0]}) == "InvalidArgumentError"
            assert _run_or_error(sess, out_checked, {p: [np.nan]}) == "InvalidArgumentError"
            sess.run(out_bumped, {p: [1.0]})
            assert sess.run(v) == 1.0


def test_skip_unread_keeps_roots_and_plans_with_control_flow():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2])
        unread = tf.square(p)
        with tf.control_dependencies([unread]):
            out = tf.identity(p)
        ops = planner.needed_ops([out.op], {p})
        assert unread.op in ops
        assert unread.op not in planner.skip_unread(ops, [out.op])
        assert unread.op in planner.skip_unread(ops, [out.op, unread.op])
        switch = apply_op("Switch", data=p, pred=tf.constant(True))
        with tf.control_dependencies([unread, switch]):
            out_cf = tf.identity(p)
        ops_cf = planner.needed_ops([out_cf.op], {p})
        assert planner.skip_unread(ops_cf, [out_cf.op]) == ops_cf


@pytest.mark.xla_differs("step stats list one entry per compiled segment, not per op")
def test_training_step_skips_the_gradient_of_a_fed_input():
    # TF runs 8 of the 9 MatMuls of a 3-layer MLP step: the input's gradient is unread.
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, 3])
        h = x
        for n in [5, 2]:
            h = tf.matmul(h, tf.Variable(np.ones((int(h.shape[1]), n), np.float32)))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(h))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            meta = tf.RunMetadata()
            sess.run(train, {x: np.ones((4, 3), np.float32)},
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=meta)
    ran = {n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats}
    assert "gradients/MatMul_grad/MatMul_1" in ran and "gradients/MatMul_1_grad/MatMul" in ran
    assert "gradients/MatMul_grad/MatMul" not in ran
