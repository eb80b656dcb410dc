"""The planner: partition into segments, backend choice, constant folding."""
import numpy as np

import trainflow.compat.v1 as tf
from trainflow.framework import registry
from trainflow.framework.op_builder import apply_op
from trainflow.framework.shape_inference import unchanged_shape
from trainflow.runtime import planner

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


def test_input_groups_follow_the_signature():
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        n = tf.add_n([a, a, a])
        i = tf.identity(a)
    assert planner.input_groups(n.op) == [3]
    assert planner.input_groups(i.op) == [None]
