"""tf.nn graphs exchanged with TensorFlow itself (TRAINFLOW_TF_PYTHON names a python with
TensorFlow 2.21; skipped when unset).

TensorFlow builds a graph of nn ops and their gradients (ReluGrad, EluGrad,
BiasAddGrad, FusedBatchNormGradV3, the cross-entropy gradients...) and evaluates
it; trainflow imports the GraphDef and must compute the same values. In the other
direction TensorFlow imports the GraphDef trainflow writes for its nn functions
and must compute what trainflow computes.
"""
import json
import textwrap

import numpy as np

import trainflow.compat.v1 as tf
from trainflow._src.ops.nn import nn_ops  # noqa: F401 - registers the nn op types before an import

from tf_interop import needs_tf, run_python

pytestmark = needs_tf

# Builds the same graph in TensorFlow and in trainflow; `outputs` maps a key to a tensor.
# `xent_op(features, labels)` makes a raw SoftmaxCrossEntropyWithLogits op.
BUILD = """
x = tf.constant(np.array([[-1.5, -0.4, 0.3], [0.9, 2.2, 7.1]], np.float32), name="x")
w = tf.constant(np.array([[0.3, -1.2, 0.7], [1.1, 0.5, -0.8]], np.float32), name="w")
z = tf.constant(np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]], np.float32), name="z")
x4 = tf.constant((np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3) ** 1.5) / 10, name="x4")
w4 = tf.constant(np.cos(np.arange(24, dtype=np.float32)).reshape(2, 2, 2, 3), name="w4")
scale = tf.constant([1.0, 2.0, 3.0], name="scale")
offset = tf.constant([0.0, 1.0, 0.0], name="offset")
outputs = {}
for fn in ["relu", "relu6", "elu", "selu", "softplus", "softsign", "softmax", "log_softmax"]:
    y = getattr(tf.nn, fn)(x)
    outputs[fn] = y
    outputs["d_" + fn] = tf.gradients(y, x, grad_ys=w)[0]
y = tf.nn.leaky_relu(x, alpha=0.3)
outputs["leaky_relu"], outputs["d_leaky_relu"] = y, tf.gradients(y, x, grad_ys=w)[0]
y = tf.nn.bias_add(x, [0.5, -1.0, 2.0])
outputs["bias_add"], outputs["d_bias"] = y, tf.gradients(y, y.op.inputs[1], grad_ys=w)[0]
outputs["bias_add_nchw"] = tf.nn.bias_add(x4, [1.0, 2.0], data_format="NCHW")
loss, backprop = xent_op(x, z)
outputs["xent_loss"], outputs["xent_backprop"] = loss, backprop
outputs["d_xent"] = tf.gradients(loss, [x, z])
sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0], logits=x)
outputs["sparse_xent"], outputs["d_sparse_xent"] = sparse, tf.gradients(sparse, x)[0]
outputs["l2_loss"] = tf.nn.l2_loss(x)
for training in (True, False):
    stats = {} if training else {"mean": [1.0, 2.0, 3.0], "variance": [4.0, 5.0, 6.0]}
    y, m, v = tf.nn.fused_batch_norm(x4, scale, offset, epsilon=0.01, is_training=training,
                                     **stats)
    key = "bn_train" if training else "bn_infer"
    outputs[key] = [y, m, v]
    outputs["d_" + key] = tf.gradients(y, [x4, scale, offset], grad_ys=w4)
top = tf.nn.top_k(x4[0, 0], 2)
outputs["top_k"] = [top.values, top.indices]
outputs["in_top_k"] = tf.nn.in_top_k(x, [2, 0], 1)
outputs["hits"] = list(tf.nn.compute_accidental_hits(
    tf.constant([[1, 2], [3, 1]], tf.int64), tf.constant([1, 5, 1, 3], tf.int64), 2))
"""

TF_SCRIPT = """
import json, os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
mode, workdir = sys.argv[1], sys.argv[2]
xent_op = lambda f, l: tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=f, labels=l)
if mode == "build":
    g = tf.Graph()
    with g.as_default():
{build}
        names = {{k: [t.name for t in v] if isinstance(v, list) else v.name
                 for k, v in outputs.items()}}
        with tf.Session() as sess:
            values = sess.run(outputs)
    with open(os.path.join(workdir, "graph.pb"), "wb") as f:
        f.write(g.as_graph_def().SerializeToString())
else:
    names = json.load(open(os.path.join(workdir, "names.json")))
    gd = tf.GraphDef()
    gd.ParseFromString(open(os.path.join(workdir, "graph.pb"), "rb").read())
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        fetch = {{k: [g.get_tensor_by_name(n) for n in v] if isinstance(v, list)
                 else g.get_tensor_by_name(v) for k, v in names.items()}}
        with tf.Session() as sess:
            values = sess.run(fetch)
flat = {{}}
for k, v in values.items():
    for i, a in enumerate(v if isinstance(v, (list, tuple)) else [v]):
        flat[f"{{k}}:{{i}}"] = np.asarray(a)
np.savez(os.path.join(workdir, "values.npz"), **flat)
json.dump(names, open(os.path.join(workdir, "names.json"), "w"))
"""


def _run_tf(mode, workdir):
    script = TF_SCRIPT.format(build=textwrap.indent(BUILD, " " * 8))
    run_python(script, mode, str(workdir))
    with np.load(workdir / "values.npz") as data:
        return {k: data[k] for k in data.files}


def _flatten(values):
    flat = {}
    for k, v in values.items():
        for i, a in enumerate(v if isinstance(v, (list, tuple)) else [v]):
            flat[f"{k}:{i}"] = np.asarray(a)
    return flat


def _compare(ours, theirs):
    assert sorted(ours) == sorted(theirs)
    for key in sorted(ours):
        a, b = ours[key], theirs[key]
        assert a.shape == b.shape, key
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6, err_msg=key)
        else:
            np.testing.assert_array_equal(a, b, err_msg=key)


def test_trainflow_runs_tensorflows_nn_graph(tmp_path):
    theirs = _run_tf("build", tmp_path)
    names = json.load(open(tmp_path / "names.json"))
    gd = tf.GraphDef()
    gd.ParseFromString((tmp_path / "graph.pb").read_bytes())
    with tf.Graph().as_default() as g:
        tf.import_graph_def(gd, name="")
        fetch = {k: [g.get_tensor_by_name(n) for n in v] if isinstance(v, list)
                 else g.get_tensor_by_name(v) for k, v in names.items()}
        with tf.Session() as sess:
            ours = _flatten(sess.run(fetch))
    _compare(ours, theirs)


def test_tensorflow_runs_trainflows_nn_graph(tmp_path):
    from trainflow._src.framework.op_builder import apply_op

    def xent_op(features, labels):
        return apply_op("SoftmaxCrossEntropyWithLogits", features=features,
                        labels=labels).outputs

    with tf.Graph().as_default() as g:
        scope = {"tf": tf, "np": np, "xent_op": xent_op}
        exec(BUILD, scope)  # noqa: S102 - the shared graph recipe above
        outputs = scope["outputs"]
        names = {k: [t.name for t in v] if isinstance(v, list) else v.name
                 for k, v in outputs.items()}
        with tf.Session() as sess:
            ours = _flatten(sess.run(outputs))
        (tmp_path / "graph.pb").write_bytes(g.as_graph_def().SerializeToString())
    (tmp_path / "names.json").write_text(json.dumps(names))
    theirs = _run_tf("import", tmp_path)
    _compare(ours, theirs)
