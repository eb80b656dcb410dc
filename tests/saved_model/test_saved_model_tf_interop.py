"""SavedModels and frozen graphs between trainflow and TensorFlow 2.21 (through
TRAINFLOW_TF_PYTHON; skipped when unset): a SavedModel trainflow writes loads in TF's
`tf.compat.v1.saved_model.loader.load` (and `saved_model_cli show`) with the same outputs
and its main op fed the asset paths; TF's TF1-style SavedModels (builder and simple_save,
TF1 and TF2 control flow, ref and resource variables) load here with the same outputs;
frozen GraphDefs cross both ways; a TF2 `tf.saved_model.save` of a tf.Module loads through
the TF1 loader here and computes what TF computes."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.graph_util.convert_variables import convert_variables_to_constants
from trainflow._src.protos import graph_pb2
from trainflow._src.saved_model import builder as builder_lib
from trainflow._src.saved_model import loader, signature_def_utils
from trainflow._src.tools import freeze_graph

from tf_interop import needs_tf, run_graph_def, run_json

pytestmark = needs_tf

X = [[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]]

# The model both sides build (`tf` is trainflow.compat.v1 or tensorflow.compat.v1): ref and
# resource variables, a TF1 cond and while loop reading them, an embedding lookup.
MODEL = r"""
def build(tf, use_resource_b=True):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.get_variable("w", initializer=tf.constant(
        [[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0]]), use_resource=False)
    b = tf.get_variable("b", initializer=tf.constant([0.1, -0.2]),
                        use_resource=use_resource_b)
    emb = tf.get_variable("emb", initializer=tf.constant([[1.0, 2.0], [3.0, 4.0]]),
                          use_resource=True)
    logits = tf.matmul(x, w) + b + tf.nn.embedding_lookup(emb, [1])
    s = tf.reduce_sum(x)
    c = tf.cond(s > 0, lambda: logits * b, lambda: logits - b, name="c")
    _, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 0.5 + b),
                           [tf.constant(0), c], name="loop")
    y = tf.nn.softmax(acc, name="y")
    return x, y, [w, b, emb]


def train_values(tf, sess, variables):
    w, b, emb = variables
    sess.run([tf.assign(w, w * 2.0), b.assign([0.3, 0.7]), emb.assign(emb * -1.0)])
"""
_SCOPE = {}
exec(MODEL, _SCOPE)  # noqa: S102 - the model code both sides run


def _write_our_saved_model(export_dir, asset_path, as_text):
    with tf.Graph().as_default():
        x, y, variables = _SCOPE["build"](tf)
        asset = tf.constant(asset_path, name="vocab_path")
        tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS, asset)
        seen = tf.get_variable("seen_asset", initializer="", collections=[
            tf.GraphKeys.LOCAL_VARIABLES])
        # (main_op.main_op() would also re-run the global initializers after the restore)
        with tf.control_dependencies([tf.local_variables_initializer()]):
            init = tf.group(seen.assign(asset), name="main_op")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            _SCOPE["train_values"](tf, sess, variables)
            want = [sess.run(y, {x: X}), sess.run(y, {x: [[-1.0, -1.0, -1.0]]})]
            b = builder_lib.SavedModelBuilder(export_dir)
            b.add_meta_graph_and_variables(
                sess, ["serve"], signature_def_map={
                    "serving_default": signature_def_utils.predict_signature_def(
                        {"x": x}, {"y": y})},
                assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS),
                main_op=init)
            b.save(as_text=as_text)
    return want


TF_LOADS_OURS = r"""
import json, subprocess, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
with tf.Graph().as_default() as g, tf.Session() as sess:
    mgd = tf.saved_model.loader.load(sess, ["serve"], spec["dir"])
    sig = mgd.signature_def["serving_default"]
    outs = [sess.run(sig.outputs["y"].name, {sig.inputs["x"].name: f}).tolist()
            for f in spec["feeds"]]
    seen = sess.run("seen_asset:0").decode()
    method = sig.method_name
cli = subprocess.run([sys.executable, "-m", "tensorflow.python.tools.saved_model_cli", "show",
                      "--dir", spec["dir"], "--all"], capture_output=True, text=True)
print(json.dumps({"outs": outs, "seen": seen, "method": method, "cli": cli.stdout,
                  "cli_rc": cli.returncode}))
"""


@pytest.mark.parametrize("as_text", [False, True], ids=["pb", "pbtxt"])
def test_tensorflow_loads_our_saved_model(tmp_path, as_text):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    export_dir = str(tmp_path / "export")
    want = _write_our_saved_model(export_dir, str(vocab), as_text)
    got = run_json(TF_LOADS_OURS, spec={"dir": export_dir, "feeds": [X, [[-1.0] * 3]]})
    for ours, theirs in zip(want, got["outs"]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    assert got["seen"] == os.path.join(export_dir, "assets", "vocab.txt")
    assert got["method"] == "tensorflow/serving/predict"
    assert got["cli_rc"] == 0
    assert "signature_def['serving_default']" in got["cli"]
    assert "inputs['x'] tensor_info:" in got["cli"]
    assert "Method name is: tensorflow/serving/predict" in got["cli"]


TF_WRITES = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
exec(spec["model"])
if spec["control_flow_v2"]:
    tf.enable_control_flow_v2()
with tf.Graph().as_default():
    x, y, variables = build(tf)
    asset = tf.constant(spec["asset"], name="vocab_path")
    tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS, asset)
    seen = tf.get_variable("seen_asset", initializer="", collections=[
        tf.GraphKeys.LOCAL_VARIABLES])
    init = tf.group(seen.assign(asset), name="legacy_init")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        train_values(tf, sess, variables)
        outs = [sess.run(y, {x: f}).tolist() for f in spec["feeds"]]
        if spec["how"] == "simple_save":
            tf.saved_model.simple_save(sess, spec["dir"], {"x": x}, {"y": y},
                                       legacy_init_op=init)
        else:
            b = tf.saved_model.builder.SavedModelBuilder(spec["dir"])
            b.add_meta_graph_and_variables(
                sess, ["serve", "gpu"], signature_def_map={
                    "predict": tf.saved_model.signature_def_utils.predict_signature_def(
                        {"x": x}, {"y": y})},
                assets_collection=tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS),
                legacy_init_op=init, strip_default_attrs=True)
            b.save(as_text=spec["how"] == "builder_text")
        if spec.get("ckpt"):
            tf.train.Saver(variables).save(sess, spec["ckpt"])
        if spec.get("frozen"):
            frozen = tf.graph_util.convert_variables_to_constants(
                sess, sess.graph.as_graph_def(), ["y"])
            open(spec["frozen"], "wb").write(frozen.SerializeToString())
print(json.dumps(outs))
"""


def _tf_writes(tmp_path, how, control_flow_v2=False, **extra):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    export_dir = str(tmp_path / "export")
    want = run_json(TF_WRITES, spec={"model": MODEL, "dir": export_dir, "asset": str(vocab),
                                     "feeds": [X, [[-1.0] * 3]], "how": how,
                                     "control_flow_v2": control_flow_v2, **extra})
    return export_dir, want


@pytest.mark.parametrize("how, tags, key", [
    ("simple_save", ["serve"], "serving_default"),
    ("builder", ["serve", "gpu"], "predict"),
    ("builder_text", ["gpu", "serve"], "predict"),
])
@pytest.mark.parametrize("control_flow_v2", [False, True], ids=["cf_v1", "cf_v2"])
def test_we_load_tensorflows_saved_model(tmp_path, how, tags, key, control_flow_v2):
    export_dir, want = _tf_writes(tmp_path, how, control_flow_v2)
    with tf.Graph().as_default() as g, tf.Session() as sess:
        mgd = loader.load(sess, tags, export_dir)
        sig = mgd.signature_def[key]
        x = g.get_tensor_by_name(sig.inputs["x"].name)
        y = g.get_tensor_by_name(sig.outputs["y"].name)
        for feed, theirs in zip([X, [[-1.0] * 3]], want):
            np.testing.assert_allclose(sess.run(y, {x: feed}), theirs, rtol=1e-6)
        # the legacy init op ran with the asset's path inside the export directory fed
        assert sess.run("seen_asset:0").decode() == os.path.join(export_dir, "assets",
                                                                 "vocab.txt")


def test_our_frozen_graph_runs_in_tensorflow():
    with tf.Graph().as_default() as g:
        x, y, variables = _SCOPE["build"](tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            _SCOPE["train_values"](tf, sess, variables)
            want = [sess.run(y, {x: f}) for f in (X, [[-1.0] * 3])]
            frozen = convert_variables_to_constants(sess, g.as_graph_def(), ["y"])
    got = run_graph_def(frozen, ["y:0"], [{"x:0": X}, {"x:0": [[-1.0] * 3]}])
    for ours, theirs in zip(want, got):
        np.testing.assert_allclose(ours, theirs[0], rtol=1e-6)


@pytest.mark.parametrize("control_flow_v2", [False, True], ids=["cf_v1", "cf_v2"])
def test_tensorflows_frozen_graph_runs_here(tmp_path, control_flow_v2):
    frozen_path = str(tmp_path / "frozen.pb")
    _, want = _tf_writes(tmp_path, "simple_save", control_flow_v2, frozen=frozen_path)
    graph_def = graph_pb2.GraphDef.FromString(open(frozen_path, "rb").read())
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.import_graph_def(graph_def, name="")
        for feed, theirs in zip([X, [[-1.0] * 3]], want):
            np.testing.assert_allclose(sess.run("y:0", {"x:0": feed}), theirs, rtol=1e-6)


@pytest.mark.parametrize("control_flow_v2", [False, True], ids=["cf_v1", "cf_v2"])
def test_we_freeze_tensorflows_checkpoint_and_tensorflow_runs_it(tmp_path, control_flow_v2):
    """TF's meta graph and checkpoint (TF2 control flow: If / While functions holding the
    resource handles) frozen by `trainflow freeze`, run by TF."""
    ckpt = str(tmp_path / "model.ckpt")
    _, want = _tf_writes(tmp_path, "simple_save", control_flow_v2, ckpt=ckpt)
    out = str(tmp_path / "ours_frozen.pb")
    frozen = freeze_graph.freeze_graph("", "", True, ckpt, "y", out,
                                       input_meta_graph=ckpt + ".meta")
    ops = {n.op for n in frozen.node} | {
        n.op for f in frozen.library.function for n in f.node_def}
    assert not ops & {"VariableV2", "VarHandleOp", "ReadVariableOp", "ResourceGather"}
    got = run_graph_def(frozen, ["y:0"], [{"x:0": X}, {"x:0": [[-1.0] * 3]}])
    for ours, theirs in zip(want, got):
        np.testing.assert_allclose(ours, theirs[0], rtol=1e-6)


TF2_MODULE = r"""
import json, sys
import tensorflow as tf
spec = json.loads(sys.stdin.read())

class Model(tf.Module):
    def __init__(self):
        self.w = tf.Variable([[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0]], name="w")
        self.b = tf.Variable([0.1, -0.2], name="b")
        self.steps = tf.Variable(3, name="steps")

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32, name="x")])
    def predict(self, x):
        logits = tf.matmul(x, self.w) + self.b
        logits = tf.cond(tf.reduce_sum(x) > 0, lambda: logits * self.b,       # If
                         lambda: logits)
        _, logits = tf.while_loop(lambda i, a: i < self.steps,               # While
                                  lambda i, a: (i + 1, a * 0.5 + self.b), [0, logits])
        return {"y": tf.nn.softmax(logits), "scale": tf.reduce_max(logits)}

m = Model()
m.b.assign([0.3, 0.7])
tf.saved_model.save(m, spec["dir"], signatures={"serving_default": m.predict})
outs = [{k: v.numpy().tolist() for k, v in m.predict(tf.constant(f)).items()}
        for f in spec["feeds"]]
print(json.dumps(outs))
"""


def test_tf2_saved_model_of_a_module_loads_through_the_tf1_loader(tmp_path):
    export_dir = str(tmp_path / "tf2")
    feeds = [X, [[-1.0] * 3]]
    want = run_json(TF2_MODULE, spec={"dir": export_dir, "feeds": feeds})
    with tf.Graph().as_default() as g, tf.Session() as sess:
        mgd = loader.load(sess, ["serve"], export_dir)
        assert set(mgd.signature_def) == {"serving_default", "__saved_model_init_op"}
        sig = mgd.signature_def["serving_default"]
        x = g.get_tensor_by_name(sig.inputs["x"].name)
        fetches = {k: g.get_tensor_by_name(v.name) for k, v in sig.outputs.items()}
        for feed, theirs in zip(feeds, want):
            ours = sess.run(fetches, {x: feed})
            assert sorted(ours) == sorted(theirs)
            for k in ours:
                np.testing.assert_allclose(ours[k], theirs[k], rtol=1e-6)
    assert json.dumps(mgd.meta_info_def.tags[:]) == '["serve"]'


TF2_KERAS = r"""
import json, sys
import numpy as np
import tensorflow as tf
spec = json.loads(sys.stdin.read())
tf.keras.utils.set_random_seed(7)
inp = tf.keras.Input([3])
hidden = tf.keras.layers.Dense(4, activation="tanh")(inp)
model = tf.keras.Model(inp, tf.keras.layers.Dense(2, activation="softmax")(hidden))
model.export(spec["dir"])
print(json.dumps(model(np.array(spec["feed"], np.float32)).numpy().tolist()))
"""


def test_tf2_keras_export_loads_through_the_tf1_loader(tmp_path):
    export_dir = str(tmp_path / "keras")
    want = run_json(TF2_KERAS, spec={"dir": export_dir, "feed": X})
    with tf.Graph().as_default() as g, tf.Session() as sess:
        sig = loader.load(sess, ["serve"], export_dir).signature_def["serving_default"]
        (x_info,), (y_info,) = sig.inputs.values(), sig.outputs.values()
        got = sess.run(g.get_tensor_by_name(y_info.name),
                       {g.get_tensor_by_name(x_info.name): X})
    np.testing.assert_allclose(got, want, rtol=1e-5)
