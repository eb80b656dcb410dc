"""The graph's attr scope: attrs set on the ops created inside it, as TF's
`Graph._attr_scope` does."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import attr_scope
from trainflow._src.protos import attr_value_pb2


def test_attrs_set_on_new_ops_and_restored():
    with tf.Graph().as_default() as g:
        before = tf.constant(1.0, name="before")
        with attr_scope.attr_scope(g, {"_a": True, "_s": "text", "_i": 3}):
            inside = tf.constant(2.0, name="inside")
            with attr_scope.attr_scope(g, {"_a": None, "_f": 0.5}):
                nested = tf.constant(3.0, name="nested")
        after = tf.constant(4.0, name="after")
    assert inside.op.get_attr("_a") is True
    assert inside.op.get_attr("_s") == b"text"
    assert inside.op.get_attr("_i") == 3
    assert "_a" not in nested.op.node_def.attr and nested.op.get_attr("_f") == 0.5
    assert nested.op.get_attr("_s") == b"text"
    for t in (before, after):
        assert not [k for k in t.op.node_def.attr if k.startswith("_")]
    assert g._attr_scope_map == {}
    assert inside.op.node_def.attr["_a"].b is True


def test_attr_value_protos_and_callables():
    seen = []

    def per_node(node_def):
        seen.append(node_def.name)
        return attr_value_pb2.AttrValue(b=node_def.op == "Const")

    with tf.Graph().as_default() as g:
        with attr_scope.attr_scope(g, {"_c": per_node,
                                       "_p": attr_value_pb2.AttrValue(s=b"x"),
                                       "_none": lambda node_def: None}):
            a = tf.constant(1.0, name="a")
            b = tf.add(a, a, name="b")
    assert seen == ["a", "b"]
    assert a.op.get_attr("_c") is True and b.op.get_attr("_c") is False
    assert a.op.get_attr("_p") == b"x"
    assert "_none" not in b.op.node_def.attr


def test_an_attr_the_op_has_is_kept():
    with tf.Graph().as_default() as g:
        with attr_scope.attr_scope(g, {"dtype": tf.int32}):
            c = tf.constant(1.0)
    assert c.op.get_attr("dtype") == tf.float32


def test_rejects_a_non_dict():
    with tf.Graph().as_default() as g:
        with pytest.raises(TypeError):
            with attr_scope.attr_scope(g, [("_a", True)]):
                pass
