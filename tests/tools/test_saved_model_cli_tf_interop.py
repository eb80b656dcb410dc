"""`trainflow saved-model` against TensorFlow's saved_model_cli: for a SavedModel written by
trainflow and one written by TensorFlow (TF1's builder, two MetaGraphDefs), `show` (each
form) prints the same text and `run` the same results; `trainflow serve` answers TF's model
with TF's values."""
import argparse
import ast
import contextlib
import io
import json

import numpy as np
import pytest

from serving_models import export_model
from tf_interop import needs_tf, run_json
from trainflow._src.serving.server import ModelServer
from trainflow._src.tools import saved_model_cli as smc

# Under TensorFlow: write a TF1 SavedModel to spec["tf_dir"], then print what saved_model_cli
# shows for it and for spec["our_dir"], and what it runs.
_TF_SCRIPT = r"""
import contextlib, io, json, sys
import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.tools import saved_model_cli as cli
from tensorflow.python.tools import saved_model_utils
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
with tf.Graph().as_default():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.get_variable("w", initializer=tf.constant([[1.0], [2.0], [3.0]]))
    y = tf.identity(tf.matmul(x, w) + 1.0, name="y")
    label = tf.identity(tf.as_string(tf.argmax(tf.concat([y, -y], 1), 1)), name="label")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sm = tf.saved_model
        predict = sm.predict_signature_def({"x": x}, {"y": y, "label": label})
        builder = sm.Builder(spec["tf_dir"])
        builder.add_meta_graph_and_variables(sess, ["serve"], {"serving_default": predict})
        builder.add_meta_graph(["train", "gpu"], {"predict": predict, "other": predict})
        builder.save()

class M(tf.Module):
    def __init__(self):
        self.w = tf.Variable([[1.0], [2.0], [3.0]])

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def __call__(self, x):
        return {"y": tf.matmul(x, self.w) + 1.0,
                "label": tf.strings.as_string(tf.argmax(x, 1))}

tf.enable_v2_behavior()
module = M()
tf.saved_model.save(module, spec["tf2_dir"], signatures=module.__call__)
tf2_values = {k: v.numpy().tolist()
              for k, v in module(tf.constant(spec["tf_dir_feeds"]["x"])).items()}
tf2_values["label"] = [v.decode() for v in tf2_values["label"]]
tf.disable_v2_behavior()

def captured(fn, *args):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(*args)
    return buf.getvalue()

out = {}
for key in ("tf_dir", "our_dir"):
    d = spec[key]
    out[key] = {
        "all": captured(cli._show_all, d),
        "tag_sets": captured(cli._show_tag_sets, d),
        "keys_train": (captured(cli._show_signature_def_map_keys, d, "train,gpu")
                       if key == "tf_dir" else ""),
        "keys": captured(cli._show_signature_def_map_keys, d, "serve"),
        "signature": captured(cli._show_inputs_outputs, d, "serve", spec[key + "_sig"]),
        "scan": captured(cli.scan_meta_graph_def,
                         saved_model_utils.get_meta_graph_def(d, "serve"), cli._OP_DENYLIST),
        "scan_mul": captured(cli.scan_meta_graph_def,
                             saved_model_utils.get_meta_graph_def(d, "serve"),
                             {"MatMul", "Mul", "QueueDequeueV2", "Foo"}),
        "run": captured(cli.run_saved_model_with_feed_dict, d, "serve", spec[key + "_sig"],
                        {k: np.array(v, dtype=np.float32)
                         for k, v in spec[key + "_feeds"].items()}, None, False),
    }
out["tf2_all"] = captured(cli._show_all, spec["tf2_dir"])
out["tf2_values"] = tf2_values
print(json.dumps(out))
"""

FEEDS = {"tf_dir": {"x": [[1.0, 0.0, 0.0], [0.5, -1.0, 2.0]]},
         "our_dir": {"x": [1.0, -3.0, 2.5]}}
SIGS = {"tf_dir": "serving_default", "our_dir": "serving_default"}


@pytest.fixture(scope="module")
def dirs_and_tf(tmp_path_factory):
    root = tmp_path_factory.mktemp("interop")
    dirs = {"tf_dir": str(root / "tf" / "1"), "our_dir": export_model(str(root / "ours" / "1")),
            "tf2_dir": str(root / "tf2" / "1")}
    spec = dict(dirs, **{k + "_sig": v for k, v in SIGS.items()},
                **{k + "_feeds": v for k, v in FEEDS.items()})
    return dirs, run_json(_TF_SCRIPT, spec=spec)


def _ours(d, key):
    lines = []
    args = argparse.Namespace(dir=d, all=key == "all", tag_set=None, signature_def=None,
                              list_ops=False)
    if key in ("keys", "signature"):
        args.tag_set = "serve"
    if key == "keys_train":
        args.tag_set = "gpu,train"
    if key == "signature":
        args.signature_def = "serving_default"
    smc.show(args, out=lines.append)
    return "".join(line + "\n" for line in lines)


def _split_ops(text):
    """(the text without its ops line's set, the set of ops): TF prints a set unordered."""
    head, found, tail = text.rpartition(" contains the following ops: ")
    return (head, ast.literal_eval(tail.strip())) if found else (text, None)


@needs_tf
@pytest.mark.parametrize("which", ["tf_dir", "our_dir"])
@pytest.mark.parametrize("key", ["all", "tag_sets", "keys", "keys_train", "signature"])
def test_show_prints_what_saved_model_cli_prints(dirs_and_tf, which, key):
    dirs, theirs = dirs_and_tf
    if key == "keys_train" and which == "our_dir":
        return
    ours = _ours(dirs[which], key)
    if key == "all":
        parts = ours.split("\nMetaGraphDef with tag-set: ")
        want = theirs[which][key].split("\nMetaGraphDef with tag-set: ")
        assert [_split_ops(p) for p in parts] == [_split_ops(p) for p in want]
    else:
        assert ours == theirs[which][key]


@needs_tf
@pytest.mark.parametrize("which", ["tf_dir", "our_dir"])
def test_run_prints_what_saved_model_cli_prints(dirs_and_tf, which):
    dirs, theirs = dirs_and_tf
    feeds = {k: np.array(v, dtype=np.float32) for k, v in FEEDS[which].items()}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        smc.run_with_feeds(dirs[which], "serve", SIGS[which], feeds)
    assert buf.getvalue() == theirs[which]["run"]


@needs_tf
def test_serve_answers_tfs_model_with_tfs_values(dirs_and_tf, tmp_path):
    """TF's SavedModel, served: the predictions are the values TF's saved_model_cli printed."""
    import urllib.request
    dirs, _ = dirs_and_tf
    base = dirs["tf_dir"].rsplit("/", 1)[0]
    with ModelServer("tfm", base, "127.0.0.1", 0, poll_wait_seconds=0) as s:
        body = json.dumps({"instances": FEEDS["tf_dir"]["x"]}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{s.port}/v1/models/tfm:predict", body)
        with urllib.request.urlopen(req, timeout=30) as resp:
            got = json.loads(resp.read())
    assert got == {"predictions": [{"label": "0", "y": [2.0]}, {"label": "0", "y": [5.5]}]}


def _scan_parts(text):
    head, _, tail = text.rpartition(": ")
    return head, ast.literal_eval(tail.strip())


@needs_tf
@pytest.mark.parametrize("which", ["tf_dir", "our_dir"])
@pytest.mark.parametrize("key, denylist", [("scan", None),
                                           ("scan_mul", "MatMul,Mul,QueueDequeueV2,Foo")])
def test_scan_prints_what_saved_model_cli_prints(dirs_and_tf, which, key, denylist):
    dirs, theirs = dirs_and_tf
    lines = []
    smc.scan(argparse.Namespace(dir=dirs[which], tag_set="serve", op_denylist=denylist),
             out=lines.append)
    assert len(lines) == 1
    assert _scan_parts(lines[0]) == _scan_parts(theirs[which][key])


@needs_tf
def test_tf2_saved_model_shown_and_served(dirs_and_tf):
    """A TF2 `tf.saved_model.save` of a tf.Module (its signature a StatefulPartitionedCall):
    `show --all` prints TF's text up to the "Concrete Functions" that TF adds from the object
    graph (not read here), the ops inside the called functions included; `serve` answers
    with TF's values."""
    import urllib.request
    dirs, theirs = dirs_and_tf
    want = theirs["tf2_all"].split("\nConcrete Functions:")[0]
    parts = _ours(dirs["tf2_dir"], "all").split("\nMetaGraphDef with tag-set: ")
    assert [_split_ops(p) for p in parts] == [_split_ops(p) for p in
                                              want.split("\nMetaGraphDef with tag-set: ")]
    base = dirs["tf2_dir"].rsplit("/", 1)[0]
    with ModelServer("tf2", base, "127.0.0.1", 0, poll_wait_seconds=0) as s:
        body = json.dumps({"inputs": FEEDS["tf_dir"]["x"]}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{s.port}/v1/models/tf2:predict", body)
        with urllib.request.urlopen(req, timeout=30) as resp:
            got = json.loads(resp.read())
    assert got == {"outputs": theirs["tf2_values"]}
