"""`tf.train.do_quantize_training_on_graphdef` against TensorFlow 2.21: the rewritten
GraphDefs (recorded by data/gen_quantize_training.py; live with TRAINFLOW_TF_PYTHON) equal
TF's node for node, and TF's rewritten graphs run here with TF's numbers."""
import json
import os
import tempfile

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.protos import graph_pb2
from tf_interop import needs_tf, run_python

_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(_DATA, "quantize_training.json")) as _f:
    REFERENCE = json.load(_f)


def _graph_def(hex_text):
    gd = graph_pb2.GraphDef()
    gd.ParseFromString(bytes.fromhex(hex_text))
    return gd


def _nodes(gd):
    return [(n.name, n.op, list(n.input),
             {k: v.SerializeToString(deterministic=True) for k, v in n.attr.items()})
            for n in gd.node]


def _check_rewrite(ref):
    got = tf.train.do_quantize_training_on_graphdef(_graph_def(ref["input"]), 8)
    assert isinstance(got, graph_pb2.GraphDef)
    want = _graph_def(ref["output"])
    assert [n[:3] for n in _nodes(got)] == [n[:3] for n in _nodes(want)]
    assert _nodes(got) == _nodes(want)


@pytest.mark.parametrize("kind", ["mlp", "conv", "saver"])
def test_rewrite_equals_tensorflow(kind):
    _check_rewrite(REFERENCE["graphs"][kind])


@needs_tf
def test_rewrite_equals_live_tensorflow():
    run_script = ("import runpy, sys; sys.argv = sys.argv[1:]; "
                  "runpy.run_path(sys.argv[0], run_name='__main__')")
    script = os.path.join(_DATA, "gen_quantize_training.py")
    live = json.loads(run_python(run_script, script, "--stdout").strip().splitlines()[-1])
    for ref in live["graphs"].values():
        _check_rewrite(ref)


def _run_rewritten(gd, feed):
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        inits = [op for op in g.get_operations()
                 if op.type == "Assign" and not op.name.endswith("AssignValue")]
        with tf.Session() as sess:
            sess.run(inits)
            return [sess.run("logits:0", feed) for _ in range(2)]


@pytest.mark.parametrize("kind", ["mlp", "conv"])
def test_rewritten_graph_runs_with_tensorflow_numbers(kind):
    """First run: the moving min/max start at the observed range; second: they move."""
    ref = REFERENCE["graphs"][kind]
    got = _run_rewritten(tf.train.do_quantize_training_on_graphdef(
        _graph_def(ref["input"]), 8), ref["feed"])
    for run, want in zip(got, ref["runs"]):
        np.testing.assert_allclose(run, np.float32(want), rtol=1e-5, atol=1e-6)


def test_saver_saves_and_restores_the_moving_ranges():
    gd = tf.train.do_quantize_training_on_graphdef(
        _graph_def(REFERENCE["graphs"]["saver"]["input"]), 8)
    names = [n.name for n in gd.node]
    assert names[-1] == "save/SaveV2"
    assert "save/RestoreV2/_0_qt" in names and "save/Assign/_1_qt" in names
    feed = REFERENCE["graphs"]["saver"]["feed"]
    with tempfile.TemporaryDirectory() as tmp, tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        prefix = g.get_tensor_by_name("save/Const:0")
        inits = [op for op in g.get_operations()
                 if op.type == "Assign" and op.name.split("/")[0] in ("w", "w3")]
        var = g.get_tensor_by_name("x/Min/Variable:0")
        with tf.Session() as sess:
            sess.run(inits)
            sess.run("logits:0", feed)
            saved = sess.run(var)
            sess.run("save/control_dependency:0", {prefix: os.path.join(tmp, "ckpt")})
            sess.run("logits:0", feed)
            sess.run("x/Min/AssignValue:0", {"x:0": np.full((1, 3), -100.0, np.float32)})
            assert sess.run(var) != saved
            sess.run("save/restore_all", {prefix: os.path.join(tmp, "ckpt")})
            assert sess.run(var) == saved


def test_errors_as_tensorflow():
    gd = _graph_def(REFERENCE["graphs"]["mlp"]["input"])
    for bits in (0, 64):
        with pytest.raises(tf.errors.OutOfRangeError,
                           match=rf"num_bits should be in range \[1, 63\] but is: {bits}"):
            tf.train.do_quantize_training_on_graphdef(gd, bits)
    with tf.Graph().as_default() as g:
        a, b, c = (tf.placeholder(tf.float32, [2, 2], name=n) for n in "abc")
        tf.matmul(a, b)
        tf.matmul(c, a)
    with pytest.raises(tf.errors.UnimplementedError,
                       match="Found an unknown op: c with type: Placeholder; Unknown ops"):
        tf.train.do_quantize_training_on_graphdef(g.as_graph_def(), 8)
