"""tf.dtypes.experimental against a live TensorFlow: the probe of
tests/helpers/dtypes_experimental_probe.py gives the same answers under both, and each reads
the checkpoint the other wrote (values and dtypes), whose data bytes are the same."""
import inspect
import json

import numpy as np
import pytest

import trainflow.compat.v1 as tf

import dtypes_experimental_probe as probe
from tf_interop import needs_tf, run_json

pytestmark = needs_tf

_TF_SCRIPT = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
spec = json.loads(sys.stdin.read())
ns = {}
exec(spec["source"], ns)
out = ns["probe"](tf, spec["ckpt_dir"])
out["read_other"] = ns["read_checkpoint"](tf, __import__("numpy"), spec["other"])
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    ours_dir = str(tmp_path_factory.mktemp("ours"))
    tf_dir = str(tmp_path_factory.mktemp("tf"))
    ours = json.loads(json.dumps(probe.probe(tf, ours_dir)))
    theirs = run_json(_TF_SCRIPT, spec={
        "source": inspect.getsource(probe), "ckpt_dir": tf_dir, "other": ours_dir + "/model"})
    ours["read_other"] = json.loads(json.dumps(probe.read_checkpoint(tf, np, tf_dir + "/model")))
    return ours, theirs


@pytest.mark.parametrize("name", probe.NAMES)
@pytest.mark.parametrize("part", ["properties", "protos", "proto_values", "graph"])
def test_dtype_answers_match(both, name, part):
    ours, theirs = both
    assert ours[name][part] == theirs[name][part]


def test_casts_match(both):
    ours, theirs = both
    assert sorted(ours["casts"]) == sorted(theirs["casts"])
    assert [k for k in ours["casts"] if ours["casts"][k] != theirs["casts"][k]] == []


def test_array_ops_match(both):
    ours, theirs = both
    for key, want in theirs["ops"].items():
        got = ours["ops"][key]
        if want == "TypeError" or not isinstance(want, str):
            assert got == want, key
        else:  # TF's CPU has no kernel for this op and dtype: trainflow runs it
            assert not isinstance(got, str), key


def test_checkpoints_move_both_ways(both):
    ours, theirs = both
    assert ours["checkpoint_data"] == theirs["checkpoint_data"]
    # Each restoring the other's checkpoint gets what each restores of its own.
    assert theirs["read_other"] == theirs["checkpoint_values"] == ours["checkpoint_values"]
    assert ours["read_other"] == theirs["checkpoint_values"]


_VALUES = [0.3, -1.7, 2.5, 1000.0, 7.0, 0.0625]


def _graph_of_casts(tf_module):
    """Constants of the new dtypes and casts through the two float8s TF's CPU casts."""
    e = tf_module.dtypes.experimental
    x = tf_module.placeholder(tf_module.float32, [None], name="x")
    tf_module.cast(tf_module.cast(x, e.float8_e4m3fn), tf_module.float32, name="e4")
    tf_module.cast(tf_module.cast(x, e.float8_e5m2), tf_module.float64, name="e5")
    c = tf_module.constant([1.5, -2.0, 448.0], e.float8_e4m3fn, name="c8")
    tf_module.cast(c, tf_module.float32, name="c8f")
    tf_module.cast(tf_module.constant(3.0, e.float8_e5m2, shape=[2]), tf_module.int32,
                   name="fill")
    tf_module.constant([1, -2, 7], e.int4, name="c4")


def test_tensorflow_runs_trainflows_graph_def():
    from tf_interop import run_graph_def
    with tf.Graph().as_default() as g:
        _graph_of_casts(tf)
        with tf.Session() as sess:
            ours = [v.tolist() for v in sess.run(["e4:0", "e5:0", "c8f:0", "fill:0"],
                                                 {"x:0": _VALUES})]
    theirs = run_graph_def(g.as_graph_def(), ["e4:0", "e5:0", "c8f:0", "fill:0"],
                           [{"x:0": _VALUES}])[0]
    assert json.dumps(theirs) == json.dumps(ours)


_TF_GRAPH_SCRIPT = inspect.getsource(_graph_of_casts) + r"""
import json
import tensorflow.compat.v1 as tf
tf.disable_eager_execution()
with tf.Graph().as_default() as g:
    _graph_of_casts(tf)
    with tf.Session() as sess:
        out = [v.tolist() for v in sess.run(["e4:0", "e5:0", "c8f:0", "fill:0"],
                                            {"x:0": %r})]
        c4 = sess.run("c4:0").astype("int32").tolist()
print(json.dumps([g.as_graph_def().SerializeToString().hex(), out, c4]))
""" % (_VALUES,)


def test_trainflow_runs_tensorflows_graph_def():
    graph_def_hex, theirs, their_c4 = run_json(_TF_GRAPH_SCRIPT)
    graph_def = tf.GraphDef()
    graph_def.ParseFromString(bytes.fromhex(graph_def_hex))
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            ours = [v.tolist() for v in sess.run(["e4:0", "e5:0", "c8f:0", "fill:0"],
                                                 {"x:0": _VALUES})]
            c4 = sess.run("c4:0").astype(np.int32).tolist()
    assert json.dumps(ours) == json.dumps(theirs)
    assert c4 == their_c4 == [1, -2, 7]
