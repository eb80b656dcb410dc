"""The MLP training program of fixtures/graphs, built on trainflow: the same graph as
TensorFlow builds (node names, op types, inputs) and the same three Adam steps."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf

from fixture_paths import FIXTURES


@pytest.fixture(scope="module")
def fixture():
    with open(os.path.join(FIXTURES, "graphs", "mlp.json")) as f:
        return json.load(f)


def build_mlp():
    """The fixture's program, as its README describes it."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(5)
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.float32, [None, 3], name="y")
        with tf.variable_scope("dense"):
            kernel = tf.get_variable("kernel", [4, 8],
                                     initializer=tf.glorot_uniform_initializer(seed=11))
            bias = tf.get_variable("bias", [8], initializer=tf.zeros_initializer())
            hidden = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, kernel), bias))
        with tf.variable_scope("dense_1"):
            kernel = tf.get_variable("kernel", [8, 3],
                                     initializer=tf.glorot_uniform_initializer(seed=12))
            bias = tf.get_variable("bias", [3], initializer=tf.zeros_initializer())
            logits = tf.nn.bias_add(tf.matmul(hidden, kernel), bias)
        xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits, name="xent")
        loss = tf.reduce_mean(xent, name="loss")
        step = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.01).minimize(loss, step, name="train")
        init = tf.global_variables_initializer()
    return g, x, y, loss, train, init


def _nodes(graph):
    gd = graph.as_graph_def()
    return [(n.name, n.op, list(n.input)) for n in gd.node]


def test_forward_graph_matches_tensorflow(fixture):
    g = build_mlp()[0]
    ours = _nodes(g)
    theirs = [(n["name"], n["op"], n["input"]) for n in fixture["nodes"]]
    forward_end = [n[0] for n in theirs].index("loss") + 1
    assert ours[:forward_end] == theirs[:forward_end]


def test_whole_training_graph_matches_tensorflow(fixture):
    g = build_mlp()[0]
    ours = _nodes(g)
    theirs = [(n["name"], n["op"], n["input"]) for n in fixture["nodes"]]
    assert len(ours) == fixture["node_count"]
    assert sorted({op for _, op, _ in ours}) == fixture["op_types"]
    assert ours == theirs


def test_attr_keys_match_tensorflow(fixture):
    g = build_mlp()[0]
    ours = {n.name: sorted(n.attr) for n in g.as_graph_def().node}
    for node in fixture["nodes"]:
        keys = [k for k in node["attr_keys"] if k != "_has_manual_control_dependencies"]
        assert [k for k in ours[node["name"]]
                if k != "_has_manual_control_dependencies"] == keys, node["name"]


def test_three_adam_steps_match_tensorflow(fixture):
    run = fixture["training_run"]
    g, x, y, loss, train, init = build_mlp()
    with g.as_default():
        variables = {v.op.name: v for v in tf.global_variables()}
    with tf.Session(graph=g) as sess:
        sess.run(init)
        for name, value in run["initial"].items():
            variables[name].load(np.asarray(value, dtype=variables[name].dtype.base_dtype
                                            .as_numpy_dtype), sess)
        feed = {x: np.asarray(run["x"], np.float32), y: np.asarray(run["y"], np.float32)}
        losses = [sess.run(loss, feed)]
        for _ in range(3):
            sess.run(train, feed)
            losses.append(sess.run(loss, feed))
        np.testing.assert_allclose(losses, run["loss_initial_then_after_each_of_3_steps"],
                                   rtol=2e-6, atol=1e-7)
        for name, value in run["variables_after_3_steps"].items():
            np.testing.assert_allclose(sess.run(variables[name]), np.asarray(value["value"]),
                                       rtol=2e-6, atol=1e-7, err_msg=name)


def test_constant_values_are_encoded_as_tensorflow_encodes_them():
    from trainflow._src.protos import graph_pb2
    with open(os.path.join(FIXTURES, "graphs", "mlp_graph.pb"), "rb") as f:
        theirs = {n.name: n for n in graph_pb2.GraphDef.FromString(f.read()).node}
    ours = build_mlp()[0].as_graph_def()
    consts = [n for n in ours.node if n.op == "Const"]
    assert consts
    for node in consts:
        assert node.attr["value"] == theirs[node.name].attr["value"], node.name
