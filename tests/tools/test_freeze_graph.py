"""`trainflow freeze` (TF's freeze_graph): from a GraphDef (text or binary) + checkpoint,
a MetaGraphDef + checkpoint, or a SavedModel, to a frozen GraphDef that computes what the
trained graph computed; TF's flags and errors."""
import re

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src import cli
from trainflow._src.protos import graph_pb2
from trainflow._src.saved_model.simple_save import simple_save

X = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A small model with resource and ref variables, its files and its outputs on X."""
    d = tmp_path_factory.mktemp("model")
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.get_variable("w", initializer=[[1.0], [2.0]])
        with tf.variable_scope("r", use_resource=True):
            b = tf.get_variable("b", initializer=[0.5])
        y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
        tf.train.get_or_create_global_step()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([w.assign([[3.0], [-1.0]]), b.assign([0.25])])
            want = sess.run(y, {x: X})
            prefix = saver.save(sess, str(d / "model.ckpt"))
            tf.train.write_graph(g, str(d), "graph.pbtxt", as_text=True)
            tf.train.write_graph(g, str(d), "graph.pb", as_text=False)
            tf.train.write_graph(saver.as_saver_def(), str(d), "saver.pbtxt", as_text=True)
            simple_save(sess, str(d / "saved"), {"x": x}, {"y": y})
    return {"dir": d, "prefix": prefix, "want": want}


def _frozen_output(path):
    graph_def = graph_pb2.GraphDef.FromString(open(path, "rb").read())
    assert not {n.op for n in graph_def.node} & {"VariableV2", "VarHandleOp",
                                                 "ReadVariableOp", "SaveV2", "RestoreV2"}
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            return sess.run("y:0", {"x:0": X})


@pytest.mark.parametrize("inputs", [
    lambda m: ["--input_graph", str(m["dir"] / "graph.pbtxt"),
               "--input_checkpoint", m["prefix"]],
    lambda m: ["--input_graph", str(m["dir"] / "graph.pb"), "--input_binary", "true",
               "--input_checkpoint", m["prefix"]],
    lambda m: ["--input_graph", str(m["dir"] / "graph.pb"), "--input_binary",
               "--input_checkpoint", m["prefix"]],
    lambda m: ["--input_meta_graph", m["prefix"] + ".meta", "--input_binary=true",
               "--input_checkpoint", m["prefix"]],
    lambda m: ["--input_saved_model_dir", str(m["dir"] / "saved"),
               "--saved_model_tags", "serve"],
    lambda m: ["--input_graph", str(m["dir"] / "graph.pbtxt"), "--input_saver",
               str(m["dir"] / "saver.pbtxt"), "--input_checkpoint", m["prefix"],
               "--clear_devices", "false"],
], ids=["graph_text", "graph_binary", "graph_binary_flag", "meta_graph", "saved_model",
        "saver_def"])
def test_freeze(trained, tmp_path, capsys, inputs):
    out = str(tmp_path / "frozen.pb")
    code = cli.main(["freeze", *inputs(trained), "--output_node_names", "y",
                     "--output_graph", out])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    assert "frozen graph" in stdout
    np.testing.assert_allclose(_frozen_output(out), trained["want"])


@pytest.mark.parametrize("argv, message", [
    (lambda m, t: ["--input_graph", str(m["dir"] / "graph.pbtxt"), "--input_checkpoint",
                   str(t / "missing.ckpt"), "--output_node_names", "y"],
     "Input checkpoint '.*missing.ckpt' doesn't exist!"),
    (lambda m, t: ["--input_graph", str(m["dir"] / "graph.pbtxt"), "--input_checkpoint",
                   m["prefix"]], "You need to supply the name of a node"),
    (lambda m, t: ["--input_saved_model_dir", str(m["dir"] / "saved"), "--saved_model_tags",
                   "train", "--output_node_names", "y"], "could not be found in SavedModel"),
    (lambda m, t: ["--output_node_names", "y"], "give --input_graph"),
])
def test_errors(trained, tmp_path, capsys, argv, message):
    code = cli.main(["freeze", *argv(trained, tmp_path)])
    _, stderr = capsys.readouterr()
    assert code != 0
    assert re.search(message, stderr)


def test_a_frozen_graph_cannot_be_frozen_again(trained, tmp_path, capsys):
    out = str(tmp_path / "frozen.pb")
    assert cli.main(["freeze", "--input_graph", str(trained["dir"] / "graph.pb"),
                     "--input_binary", "--input_checkpoint", trained["prefix"],
                     "--output_node_names", "y", "--output_graph", out]) == 0
    code = cli.main(["freeze", "--input_graph", out, "--input_binary", "--input_checkpoint",
                     trained["prefix"], "--output_node_names", "y"])
    _, stderr = capsys.readouterr()
    assert code == 1 and "cannot freeze a graph twice" in stderr


def test_whitelist_and_blacklist(trained, tmp_path, capsys):
    out = str(tmp_path / "frozen.pb")
    assert cli.main(["freeze", "--input_meta_graph", trained["prefix"] + ".meta",
                     "--input_binary", "--input_checkpoint", trained["prefix"],
                     "--output_node_names", "y", "--output_graph", out,
                     "--variable_names_blacklist", "r/b"]) == 0
    ops = {n.name: n.op for n in graph_pb2.GraphDef.FromString(open(out, "rb").read()).node}
    assert (ops["w"], ops["r/b"]) == ("Const", "VarHandleOp")
