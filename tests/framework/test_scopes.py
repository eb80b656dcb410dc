"""Module-level scope helpers: tf.name_scope, op_scope, container, control_dependencies,
device, colocate_with and the collection shortcuts on the default graph."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.state import state_ops


def test_name_scope_forms():
    with tf.Graph().as_default():
        with tf.name_scope("a") as s:
            assert s == "a/"
        with tf.name_scope(None, "dflt") as s:
            assert s == "dflt/"
        with tf.name_scope(None, "dflt") as s:
            assert s == "dflt_1/"
        with tf.name_scope("", "dflt") as s:
            assert s == ""
        with tf.name_scope(None, None) as s:
            assert s == ""
        with tf.name_scope("x/") as s:
            assert s == "x/"
        with tf.name_scope(b"bb") as s:
            assert s == "bb/"
        with tf.op_scope([], "n") as s:
            assert s == "n/"


def test_name_scope_uses_the_graph_of_values():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1)
    with tf.Graph().as_default():
        with tf.name_scope("v", values=[c]) as s:
            assert s == "v/" and tf.get_default_graph() is g
            assert tf.constant(2).op.name == "v/Const"


def test_container_names_the_container_of_new_stateful_ops():
    with tf.Graph().as_default() as g:
        with tf.container("c") as c:
            assert c == "c"
            v = tf.Variable(1.0, name="v")
            q = tf.FIFOQueue(2, tf.float32, name="q")
            k = tf.constant(1.0, name="k")
            with g.container("inner"):
                u = tf.Variable(1.0, name="u")
            explicit = state_ops.variable_op_v2([], tf.float32, container="mine")
        w = tf.Variable(1.0, name="w")
    assert v.op.get_attr("container") == b"c" and q.queue_ref.op.get_attr("container") == b"c"
    assert u.op.get_attr("container") == b"inner" and w.op.get_attr("container") == b""
    assert "container" not in k.op.node_def.attr
    assert explicit.op.get_attr("container") == b"mine"


def test_shortcuts_act_on_the_default_graph():
    with tf.Graph().as_default() as g:
        a = tf.constant(1, name="a")
        tf.add_to_collection("k", a)
        tf.add_to_collections(["k2", "k3"], a)
        assert tf.get_collection("k") == [a] == g.get_collection("k3")
        assert tf.get_collection_ref("k") is g.get_collection_ref("k")
        with tf.control_dependencies([a]):
            assert tf.constant(2).op.control_inputs == [a.op]
        with tf.device("/cpu:0"):
            assert tf.constant(3).op.device == "/device:CPU:0"
        with tf.colocate_with(a):
            assert tf.constant(4).op.colocation_groups() == [b"loc:@a"]
        with pytest.raises(ValueError, match="ignore_existing is not True"):
            with tf.colocate_with(None):
                pass
