"""PartitionedCall / StatefulPartitionedCall: a call of a function graph runs it, gives its
static shapes, differentiates through it, survives a GraphDef round trip, and reads and
writes the resource variables passed in (as TF2 SavedModels' functions do)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.ops.state import resource_variable_ops as rv

OP_TYPES = ["PartitionedCall", "StatefulPartitionedCall"]


def _function(outer, fn, name="f"):
    fg = FuncGraph(name, outer)
    with fg.as_default():
        a = fg.add_input(tf.float32, tf.TensorShape([2]), "a")
        b = fg.add_input(tf.float32, tf.TensorShape([]), "b")
        fg.outputs = list(fn(a, b))
    return fg


def _call(g, op_type, fg, inputs):
    return g.create_op(op_type, inputs, attrs={
        "Tin": [t.dtype for t in inputs], "Tout": [t.dtype for t in fg.outputs], "f": fg})


@pytest.mark.parametrize("op_type", OP_TYPES)
def test_call_runs_the_function(op_type):
    g = tf.Graph()
    with g.as_default():
        fg = _function(g, lambda a, b: (a * b, tf.reduce_sum(a)))
        a = tf.placeholder(tf.float32, [2])
        b = tf.constant(3.0)
        op = _call(g, op_type, fg, [a, b])
        assert [o.shape.as_list() for o in op.outputs] == [[2], []]
        with tf.Session() as sess:
            prod, total = sess.run(op.outputs, {a: [1.0, 2.0]})
    np.testing.assert_array_equal(prod, [3.0, 6.0])
    assert total == 3.0


@pytest.mark.parametrize("op_type", OP_TYPES)
def test_gradient_through_a_call(op_type):
    g = tf.Graph()
    with g.as_default():
        fg = _function(g, lambda a, b: (a * a * b,))
        a = tf.constant([1.0, 2.0])
        b = tf.constant(3.0)
        y = tf.reduce_sum(_call(g, op_type, fg, [a, b]).outputs[0])
        ga, gb = tf.gradients(y, [a, b])
        with tf.Session() as sess:
            ga, gb = sess.run([ga, gb])
    np.testing.assert_allclose(ga, [6.0, 12.0])  # 2ab
    np.testing.assert_allclose(gb, 5.0)  # sum(a^2)


def test_call_survives_a_graph_def_round_trip():
    g = tf.Graph()
    with g.as_default():
        fg = _function(g, lambda a, b: (a + b,))
        _call(g, "StatefulPartitionedCall", fg, [tf.constant([1.0, 2.0]), tf.constant(0.5)])
    graph_def = g.as_graph_def()
    assert [f.signature.name for f in graph_def.library.function] == ["f"]
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run("StatefulPartitionedCall:0"), [1.5, 2.5])


def test_call_reads_and_writes_resource_variables():
    g = tf.Graph()
    with g.as_default():
        v = tf.get_variable("v", initializer=[1.0, 2.0], use_resource=True)
        fg = FuncGraph("bump", g)
        with fg.as_default():
            handle = fg.add_input(tf.resource, tf.TensorShape([]), "handle")
            with tf.control_dependencies([rv.assign_add_variable_op(handle, [1.0, 1.0])]):
                fg.outputs = [rv.read_variable_op(handle, tf.float32)]
        op = _call(g, "StatefulPartitionedCall", fg, [v.handle])
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(op.outputs[0]), [2.0, 3.0])
            np.testing.assert_array_equal(sess.run(v), [2.0, 3.0])


def test_call_needs_a_function_graph():
    g = tf.Graph()
    with g.as_default():
        op = g.create_op("PartitionedCall", [tf.constant(1.0)], attrs={
            "Tin": [tf.float32], "Tout": [tf.float32], "f": "missing_fn"})
        with tf.Session() as sess:
            with pytest.raises(errors.UnimplementedError, match="missing_fn"):
                sess.run(op.outputs[0])
