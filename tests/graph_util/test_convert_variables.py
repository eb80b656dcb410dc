"""convert_variables_to_constants: ref and resource variables frozen into constants (white
and black lists), through TF1 conds, while loops (functional, with function bodies),
embedding lookups; the frozen graph imports and computes what the session computed."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def _freeze(build, outputs, feeds=(), use_resource=False, **kwargs):
    """Builds with `build()`, runs `outputs` per feed; returns (values, frozen GraphDef)."""
    with tf.Graph().as_default() as g:
        with tf.variable_scope("", use_resource=use_resource):
            build()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = [sess.run([o + ":0" for o in outputs], dict(f)) for f in feeds or [{}]]
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), outputs, **kwargs)
    return want, frozen


def _run_frozen(frozen, outputs, feeds=()):
    with tf.Graph().as_default():
        tf.import_graph_def(frozen, name="")
        with tf.Session() as sess:
            return [sess.run([o + ":0" for o in outputs], dict(f)) for f in feeds or [{}]]


@pytest.mark.parametrize("use_resource", [False, True])
def test_convert_variables_to_constants(use_resource):
    with tf.Graph().as_default() as g:
        with tf.variable_scope("", use_resource=use_resource):
            variable_node = tf.get_variable("variable_node", initializer=1.0)
            another = tf.get_variable("unused_variable_node", initializer=1.0)
            tf.multiply(variable_node, 2.0, name="output_node")
        with tf.Session() as sess:
            sess.run(variable_node.initializer)
            assert sess.run("output_node:0") == 2.0
            graph_def = g.as_graph_def()
            # The unused variable is uninitialized: only the whitelist keeps it out.
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, graph_def, ["output_node"], variable_names_whitelist={"variable_node"})
            sess.run(another.initializer)
            frozen_all = tf.graph_util.convert_variables_to_constants(
                sess, graph_def, ["output_node"])
            assert str(frozen) == str(frozen_all)  # the unused variable is cut away
            kept = tf.graph_util.convert_variables_to_constants(
                sess, graph_def, ["output_node"], variable_names_blacklist={"variable_node"})
            op = next(n.op for n in kept.node if n.name == "variable_node")
            assert op == ("VarHandleOp" if use_resource else "VariableV2")
    assert len(frozen.node) == 4
    assert not {n.op for n in frozen.node} & {"Variable", "VariableV2", "VarHandleOp",
                                              "ReadVariableOp"}
    assert _run_frozen(frozen, ["output_node"]) == [[2.0]]


def _control_flow_model():
    v = tf.get_variable("v", initializer=2.0)
    emb = tf.get_variable("emb", initializer=np.arange(6.0, dtype=np.float32).reshape(3, 2))
    x = tf.placeholder(tf.float32, [], name="x")
    c = tf.cond(x > 0, lambda: x * v, lambda: x - v, name="c")
    loop = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * v), [0, x], name="w")
    e = tf.reduce_sum(tf.nn.embedding_lookup(emb, [0, 2]))
    tf.identity(c + loop[1] + e, name="out")


@pytest.mark.parametrize("use_resource", [False, True])
def test_control_flow_and_functions(use_resource):
    feeds = [{"x:0": 1.0}, {"x:0": -1.0}, {"x:0": 0.5}]
    want, frozen = _freeze(_control_flow_model, ["out"], feeds, use_resource=use_resource)
    ops = {n.op for n in frozen.node}
    assert not ops & {"VariableV2", "VarHandleOp", "ReadVariableOp", "ResourceGather"}
    for f in frozen.library.function:
        assert not {n.op for n in f.node_def} & {"ReadVariableOp"}
        assert 20 not in [a.type for a in f.signature.input_arg]  # DT_RESOURCE
    assert _run_frozen(frozen, ["out"], feeds) == want


def test_variable_read_inside_a_loop_body_and_returned():
    def build():
        v = tf.get_variable("v", initializer=[1.0, 2.0])
        x = tf.placeholder(tf.float32, [2], name="x")
        _, acc = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a + v * 2.0),
                               [tf.constant(0), x])
        tf.identity(acc, name="out")
    feeds = [{"x:0": [1.0, 1.0]}]
    want, frozen = _freeze(build, ["out"], feeds, use_resource=True)
    np.testing.assert_array_equal(_run_frozen(frozen, ["out"], feeds), want)
    np.testing.assert_array_equal(want, [[[5.0, 9.0]]])


def test_frozen_graph_keeps_the_library_and_versions():
    with tf.Graph().as_default() as g:
        _control_flow_model()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            graph_def = g.as_graph_def()
            frozen = tf.graph_util.convert_variables_to_constants(sess, graph_def, ["out"])
    assert frozen.versions == graph_def.versions
    assert frozen.library == graph_def.library  # ref variables: no body changes
