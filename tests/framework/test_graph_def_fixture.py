"""import_graph_def of the real TensorFlow 2.21 training graph in the fixtures
(graphs/mlp_graph.pb), and TensorFlow importing GraphDefs that trainflow writes.

Every op type the graph uses must be registered. The TF part runs TF in a subprocess through
TRAINFLOW_TF_PYTHON.
"""
import importlib
import json
import os

import numpy as np

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry
from trainflow._src.ops.state import state_ops
from trainflow._src.protos import graph_pb2

from fixture_paths import FIXTURES
from tf_interop import needs_tf, run_json

GRAPHS = os.path.join(FIXTURES, "graphs")


def _load():
    for module in ("trainflow.nn", "trainflow.train", "trainflow._src.gradients"):
        importlib.import_module(module)  # they register the op types the graph uses
    with open(os.path.join(GRAPHS, "mlp_graph.pb"), "rb") as f:
        gd = graph_pb2.GraphDef.FromString(f.read())
    with open(os.path.join(GRAPHS, "mlp.json")) as f:
        info = json.load(f)
    missing = sorted({n.op for n in gd.node if not registry.is_registered(n.op)})
    assert not missing, f"op types not registered: {', '.join(missing)}"
    return gd, info


def test_import_keeps_every_node():
    gd, info = _load()
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
    assert len(g.get_operations()) == info["node_count"] == len(gd.node)
    for want in info["nodes"]:
        op = g.get_operation_by_name(want["name"])
        assert op.type == want["op"]
        assert list(op.node_def.input) == want["input"], want["name"]
        assert op.device == want["device"]
        assert sorted(op.node_def.attr) == sorted(want["attr_keys"]), want["name"]


def test_export_after_import_gives_back_the_graph_def():
    gd, _ = _load()
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
    again = {n.name: n for n in g.as_graph_def().node}
    for node in gd.node:
        mine = again[node.name]
        assert (mine.op, list(mine.input), mine.device) == \
            (node.op, list(node.input), node.device)
        for key, value in node.attr.items():
            assert mine.attr[key] == value, (node.name, key)


def test_training_run_matches_tensorflow():
    gd, info = _load()
    run = info["training_run"]
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        loads = [state_ops.assign(g.get_tensor_by_name(name + ":0"),
                                  np.asarray(value, np.float32))
                 for name, value in run["initial"].items()]
        with tf.Session() as sess:
            sess.run("init")
            sess.run(loads)
            feed = {"x:0": run["x"], "y:0": run["y"]}
            losses = [sess.run("loss:0", feed)]
            for _ in range(3):
                sess.run("train", feed)
                losses.append(sess.run("loss:0", feed))
            np.testing.assert_allclose(losses, run["loss_initial_then_after_each_of_3_steps"],
                                       rtol=1e-5)
            for name, want in run["variables_after_3_steps"].items():
                got = sess.run(name + ":0")
                assert got.dtype == np.dtype(want["dtype"]) and list(got.shape) == \
                    want["shape"], name
                np.testing.assert_allclose(got, want["value"], rtol=1e-5, atol=1e-7,
                                           err_msg=name)


@needs_tf
def test_tensorflow_imports_and_runs_our_graph_def(tmp_path):
    g = tf.Graph()
    with g.as_default():
        v = state_ops.variable_op_v2([2], tf.float32, name="v")
        with g.device("/cpu:0"):
            state_ops.assign(v, np.array([1.5, -2.0], np.float32), name="init")
        p = tf.placeholder(tf.float32, [None, 2], name="p")
        with g.control_dependencies([p]):
            out = tf.identity(tf.placeholder_with_default(v, [2]), name="out")
        with g.colocate_with(out):
            tf.identity(p, name="pid")
        tf.constant(["a", "bc"], name="words")
        tf.no_op(name="noop")
    path = tmp_path / "graph.pb"
    path.write_bytes(g.as_graph_def().SerializeToString())
    script = f"""
import json, os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
gd = tf.GraphDef.FromString(open({str(path)!r}, "rb").read())
with tf.Graph().as_default() as g:
    tf.import_graph_def(gd, name="")
    with tf.Session() as s:
        s.run("init")
        out = s.run(["out:0", "pid:0", "words:0"], {{"p:0": [[1, 2]]}})
        s.run("noop")
    print(json.dumps({{"out": out[0].tolist(), "pid": out[1].tolist(),
                      "words": [w.decode() for w in out[2]],
                      "class": [c.decode() for c in g.get_operation_by_name("pid")
                                .get_attr("_class")]}}))
"""
    got = run_json(script)
    assert got == {"out": [1.5, -2.0], "pid": [[1.0, 2.0]], "words": ["a", "bc"],
                   "class": ["loc:@out"]}
