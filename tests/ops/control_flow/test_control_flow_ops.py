"""no_op, group, tuple and with_dependencies."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.control_flow import control_flow_ops


def test_group_is_a_noop_with_control_inputs_in_order():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.bool, [], name="p")
        x = tf.constant(1.0, name="x")
        grp = tf.group(x, p, name="grp")
        assert grp.type == "NoOp" and grp.name == "grp"
        assert [c.name for c in grp.control_inputs] == ["x", "p"]
        empty = tf.group()
        assert empty.name == "group_deps" and empty.control_inputs == []
        nested = tf.group([x, [p]])
        assert {c.name for c in nested.control_inputs} == {"x", "p"}
        with pytest.raises(ValueError, match="Unknown keyword arguments: bad"):
            tf.group(x, bad=1)
        with pytest.raises(TypeError, match="should be zero or more"):
            tf.group(3)


def test_group_splits_by_device():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(1.0, name="x")
        with tf.device("/cpu:0"):
            y = tf.constant(2.0, name="y")
        grp = tf.group(x, y)
        deps = sorted(c.name for c in grp.control_inputs)
        assert deps == ["group_deps/NoOp", "group_deps/NoOp_1"]
        devices = {c.name: c.device for c in grp.control_inputs}
        assert devices["group_deps/NoOp"] == ""
        assert devices["group_deps/NoOp_1"].endswith("CPU:0")


def test_group_runs_its_inputs():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(0, name="v")
        w = tf.Variable(0, name="w")
        step = tf.group(tf.assign(v, 1), tf.assign(w, 2))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(step) is None
            assert sess.run([v, w]) == [1, 2]


def test_tuple_gates_every_output_on_all_inputs():
    g = tf.Graph()
    with g.as_default():
        p = tf.constant(True, name="p")
        x = tf.constant(1.0, name="x")
        assert tf.tuple is control_flow_ops.tuple
        out = tf.tuple([x, p, None])
        assert [t.name for t in out[:2]] == ["tuple/control_dependency:0",
                                             "tuple/control_dependency_1:0"]
        assert out[2] is None
        gate = g.get_operation_by_name("tuple/group_deps")
        assert [c.name for c in gate.control_inputs] == ["p", "x"]
        assert out[0].op.control_inputs == [gate]
        assert out[0].op.get_attr("_class") == [b"loc:@x"]
        with tf.Session() as sess:
            assert sess.run(out[:2]) == [1.0, True]


def test_tuple_with_control_inputs_and_operations():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(0, name="v")
        x = tf.constant(5)
        assign = tf.assign(v, 7)
        out = control_flow_ops.tuple([x, assign.op], control_inputs=[v.initializer])
        assert out[1].type == "NoOp"
        with tf.Session() as sess:
            assert sess.run(out[0]) == 5
            assert sess.run(v) == 7
        with pytest.raises(TypeError, match="'control_inputs' must only contain"):
            control_flow_ops.tuple([x], control_inputs=[1])
        with pytest.raises(ValueError, match="must have at least one nonempty tensor"):
            control_flow_ops.tuple([None])


def test_with_dependencies_runs_dependencies_first():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1, name="v")
        read = control_flow_ops.with_dependencies([tf.assign(v, 3)], v.read_value())
        assert read.name == "control_dependency:0"
        assert [c.type for c in read.op.control_inputs] == ["Assign"]
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(read) == 3


def test_with_dependencies_keeps_indexed_slices():
    g = tf.Graph()
    with g.as_default():
        s = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
        dep = tf.no_op(name="dep")
        out = control_flow_ops.with_dependencies([dep], s)
        assert isinstance(out, tf.IndexedSlices)
        assert out.values.op.control_inputs == [dep]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out.values), [[1.0, 2.0]])


def test_no_op_names():
    g = tf.Graph()
    with g.as_default():
        assert tf.no_op().name == "NoOp"
        assert tf.no_op(name="anchor").name == "anchor"
        with tf.Session() as sess:
            assert sess.run(tf.no_op()) is None
