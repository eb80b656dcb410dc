"""TF1 loop frames (Enter/Merge/Switch/LoopCond/NextIteration/Exit) written by TensorFlow
become functional While ops and run: a simple loop, a nested loop with a tf.cond inside."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.graph_def import functionalize_loop_frames
from trainflow._src.framework.loop_frames import has_loop_frames
from trainflow._src.protos import graph_pb2

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def _load():
    with open(os.path.join(DATA, "tf1_while_loops.pb"), "rb") as f:
        gd = graph_pb2.GraphDef.FromString(f.read())
    with open(os.path.join(DATA, "tf1_while_loops.json")) as f:
        return gd, json.load(f)


def test_frames_become_while_ops_with_tensorflows_results():
    gd, spec = _load()
    assert has_loop_frames(gd) and "LoopCond" in spec["ops"]
    new = functionalize_loop_frames(gd)
    assert not has_loop_frames(new)
    loops = {n.name: n.op for n in new.node if n.op.endswith("While")}
    assert loops == {"simple": "StatelessWhile", "outer": "StatelessWhile"}
    assert not [n for n in new.node if n.op in ("Merge", "Switch", "Exit", "NextIteration")
                and n.name.startswith("simple/")]
    with tf.Graph().as_default():
        tf.import_graph_def(new, name="")
        with tf.Session() as sess:
            for n in (0, 1, 3):
                feed = dict(spec["feed"], **{"n:0": n})
                got = sess.run("simple_out:0", feed)
                want = np.zeros(2, np.float32)
                for _ in range(n):
                    want = want * np.float32([0.5, -0.3]) + np.float32([1.0, 2.0])
                np.testing.assert_allclose(got, want, rtol=1e-6)
            got = sess.run(["simple_out:0", "nested_out:0"], spec["feed"])
    np.testing.assert_allclose(got[0], spec["simple_out:0"], rtol=1e-6)
    np.testing.assert_allclose(got[1], spec["nested_out:0"], rtol=1e-6)


def test_meta_graph_with_frames_imports(tmp_path):
    gd, spec = _load()
    from trainflow._src.protos import meta_graph_pb2
    mgd = meta_graph_pb2.MetaGraphDef()
    mgd.graph_def.CopyFrom(gd)
    with tf.Graph().as_default():
        assert tf.train.import_meta_graph(mgd) is None
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run("nested_out:0", spec["feed"]),
                                       spec["nested_out:0"], rtol=1e-6)
    with tf.Graph().as_default():
        tf.import_graph_def(gd, name="tf1")  # a bare import functionalizes the frames too
        with tf.Session() as sess:
            got = sess.run("tf1/simple_out:0", {"tf1/x:0": [1.0, 2.0], "tf1/n:0": 3})
            np.testing.assert_allclose(got, spec["simple_out:0"], rtol=1e-6)


def test_exit_must_return_a_loop_value():
    gd, _ = _load()
    bad = graph_pb2.GraphDef()
    bad.CopyFrom(gd)
    for node in bad.node:
        if node.name == "simple/Exit_1":
            node.input[0] = "simple/mul"
    with pytest.raises(ValueError, match="does not return a loop value"):
        functionalize_loop_frames(bad)


def test_tf1_while_gradient_trains_with_tensorflows_numbers():
    """TF1's loop gradient: a second frame popping what the forward frame pushed on stacks,
    and a counter loop value added to the forward loop."""
    with open(os.path.join(DATA, "tf1_while_train.pb"), "rb") as f:
        gd = graph_pb2.GraphDef.FromString(f.read())
    with open(os.path.join(DATA, "tf1_while_train.json")) as f:
        spec = json.load(f)
    new = functionalize_loop_frames(gd)
    assert sorted(n.op for n in new.node if n.op.endswith("While")) == ["While", "While"]
    with tf.Graph().as_default():
        tf.import_graph_def(new, name="")
        with tf.Session() as sess:
            sess.run(spec["init"])
            for _ in range(spec["steps"]):
                sess.run(spec["train"], spec["feed"])
            w, loss = sess.run(["w:0", "loss:0"], spec["feed"])
    np.testing.assert_allclose(w, spec["w_after"], rtol=1e-6)
    np.testing.assert_allclose(loss, spec["loss_after"], rtol=1e-6)
