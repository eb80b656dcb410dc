"""TensorFlow runs GraphDefs of tf.layers / tf.losses / tf.metrics graphs built by
trainflow and gets the same numbers (TRAINFLOW_TF_PYTHON names TF 2.21's python;
skipped when unset)."""
import json

import numpy as np

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

# Runs in TensorFlow: import the GraphDef, then replay the same session calls.
_TF_SCRIPT = r"""
import json, os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.load(open(sys.argv[1]))
graph_def = tf.GraphDef()
graph_def.ParseFromString(open(sys.argv[2], "rb").read())
with tf.Graph().as_default() as g:
    tf.import_graph_def(graph_def, name="")
    results = []
    with tf.Session() as sess:
        for fetches, feed in spec["calls"]:
            out = sess.run(fetches, {k: np.array(v) for k, v in feed.items()})
            results.append([None if o is None else np.asarray(o).tolist() for o in out])
print(json.dumps(results))
"""


def _model():
    """A small model touching every layer family plus a loss and two metrics; returns
    (fetch names per call, feeds) for a replayable session script."""
    rng = np.random.RandomState(0)
    ci = tf.constant_initializer
    x = tf.placeholder(tf.float32, [4, 6, 6, 2], name="x")
    labels = tf.placeholder(tf.int32, [4], name="labels")
    training = tf.placeholder(tf.bool, [], name="training")
    h = tf.layers.conv2d(x, 3, 3, padding="same", activation=tf.nn.relu,
                         kernel_initializer=ci(rng.normal(size=[3, 3, 2, 3]) * 0.3))
    h = tf.layers.batch_normalization(h, training=training)
    h = tf.layers.average_pooling2d(h, 2, 2)
    h = tf.layers.conv2d_transpose(h, 2, 2, strides=2,
                                   kernel_initializer=ci(rng.normal(size=[2, 2, 2, 3]) * 0.3))
    h = tf.layers.max_pooling2d(h, 3, 3)
    h = tf.layers.flatten(h)
    h = tf.layers.dropout(h, 0.5, training=False)
    h = tf.layers.dense(h, 5, activation=tf.nn.tanh,
                        kernel_initializer=ci(rng.normal(size=[8, 5]) * 0.3))
    h = tf.layers.batch_normalization(h, training=training, renorm=False)
    logits = tf.layers.dense(h, 3, kernel_initializer=ci(rng.normal(size=[5, 3]) * 0.3),
                             kernel_regularizer=lambda w: 0.01 * tf.reduce_sum(tf.square(w)))
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits, weights=[1.0, 0.5, 0.0, 2.0])
    total = tf.losses.get_total_loss()
    predicted = tf.argmax(logits, 1, output_type=tf.int32)
    acc, acc_update = tf.metrics.accuracy(labels, predicted)
    auc, auc_update = tf.metrics.auc(tf.equal(labels, 1), tf.nn.softmax(logits)[:, 1])
    tf.group(tf.global_variables_initializer(), tf.local_variables_initializer(), name="init_all")
    updates = [o.name for o in tf.get_collection(tf.GraphKeys.UPDATE_OPS)]
    feed_train = {"x:0": rng.normal(size=[4, 6, 6, 2]).tolist(), "labels:0": [0, 1, 2, 1],
                  "training:0": True}
    feed_eval = dict(feed_train, **{"training:0": False})
    moving = [v.name for v in tf.global_variables() if "moving" in v.name]
    outs = [logits.name, loss.name, total.name]
    calls = [(["init_all"], {}),
             (outs + updates, feed_train),
             (moving, {}),
             (outs + [acc_update.name, auc_update.name], feed_eval),
             ([acc.name, auc.name], {})]
    return calls


def test_tensorflow_runs_our_layers_graph(tmp_path):
    g = tf.Graph()
    with g.as_default():
        calls = _model()
        ours = []
        with tf.Session() as sess:
            for fetches, feed in calls:
                out = sess.run(fetches, feed)
                ours.append([None if o is None else np.asarray(o).tolist() for o in out])
    spec_path = tmp_path / "spec.json"
    spec_path.write_text(json.dumps({"calls": calls}))
    graph_path = tmp_path / "graph.pb"
    graph_path.write_bytes(g.as_graph_def().SerializeToString())
    theirs = run_json(_TF_SCRIPT, str(spec_path), str(graph_path))
    assert len(theirs) == len(ours)
    for call, (mine, tf_out) in enumerate(zip(ours, theirs)):
        for i, (a, b) in enumerate(zip(mine, tf_out)):
            if a is None or b is None:
                assert a is None and b is None
                continue
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6,
                                       err_msg=f"call {call}, fetch {calls[call][0][i]}")
