"""A 2-layer LSTM language model's checkpoint crossing between TensorFlow 2.21 (TF 1.15's
rnn_cell and dynamic_rnn) and trainflow: TF trains a step and saves, trainflow builds
the same model, restores, and gives TF's logits, loss and next training step; then the
reverse. Skipped without TRAINFLOW_TF_PYTHON."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

BUILD = """
ids = tf.placeholder(tf.int32, [None, 5], name="ids")
targets = tf.placeholder(tf.int32, [None, 5], name="targets")
embedding = tf.get_variable("embedding", [20, 6])
inputs = tf.nn.embedding_lookup(embedding, ids)
cell = rc.MultiRNNCell([rc.BasicLSTMCell(8, forget_bias=0.0) for _ in range(2)])
outputs, state = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
softmax_w = tf.get_variable("softmax_w", [8, 20])
softmax_b = tf.get_variable("softmax_b", [20])
logits = tf.reshape(tf.matmul(tf.reshape(outputs, [-1, 8]), softmax_w) + softmax_b,
                    [-1, 5, 20], name="logits")
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
    labels=targets, logits=logits), name="loss")
tvars = tf.trainable_variables()
grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 0.5)
train = tf.train.GradientDescentOptimizer(1.0).apply_gradients(list(zip(grads, tvars)))
"""
R = np.random.RandomState(4)
FEED = {"ids": R.randint(0, 20, (3, 5)).tolist(), "targets": R.randint(0, 20, (3, 5)).tolist()}

TF_SCRIPT = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
from tensorflow.python.ops import rnn_cell_impl as rc
spec = json.loads(sys.stdin.read())
with tf.Graph().as_default():
    exec(spec["build"])
    saver = tf.train.Saver()
    feed = {"ids:0": spec["feed"]["ids"], "targets:0": spec["feed"]["targets"]}
    with tf.Session() as sess:
        if spec["mode"] == "save":
            tf.set_random_seed(1)
            sess.run(tf.global_variables_initializer())
            sess.run(train, feed)
            saver.save(sess, spec["prefix"])
        else:
            saver.restore(sess, spec["prefix"])
        before = sess.run(["logits:0", "loss:0"], feed)
        sess.run(train, feed)
        after = sess.run("logits:0", feed)
        names = sorted(v.op.name for v in tf.global_variables())
print(json.dumps({"logits": before[0].tolist(), "loss": float(before[1]),
                  "after": after.tolist(), "names": names}))
"""


def _ours(mode, prefix):
    scope = {"tf": tf, "rc": tf.nn.rnn_cell}
    with tf.Graph().as_default():
        exec(BUILD, scope)  # noqa: S102 - the model both sides build
        saver = tf.train.Saver()
        feed = {"ids:0": FEED["ids"], "targets:0": FEED["targets"]}
        with tf.Session() as sess:
            if mode == "save":
                sess.run(tf.global_variables_initializer())
                sess.run(scope["train"], feed)
                saver.save(sess, prefix)
            else:
                saver.restore(sess, prefix)
            logits, loss = sess.run(["logits:0", "loss:0"], feed)
            sess.run(scope["train"], feed)
            after = sess.run("logits:0", feed)
            names = sorted(v.op.name for v in tf.global_variables())
    return {"logits": logits, "loss": loss, "after": after, "names": names}


def _tf(mode, prefix):
    return run_json(TF_SCRIPT, spec={"build": BUILD, "mode": mode, "prefix": prefix,
                                     "feed": FEED})


@pytest.mark.parametrize("writer", ["tensorflow", "trainflow"])
def test_checkpoint_restores_with_the_writers_outputs(tmp_path, writer):
    prefix = str(tmp_path / "lm")
    if writer == "tensorflow":
        written, restored = _tf("save", prefix), _ours("restore", prefix)
    else:
        written, restored = _ours("save", prefix), _tf("restore", prefix)
    assert restored["names"] == written["names"]
    assert "rnn/multi_rnn_cell/cell_1/basic_lstm_cell/kernel" in written["names"]
    np.testing.assert_allclose(restored["logits"], written["logits"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(restored["loss"], written["loss"], rtol=1e-5)
    np.testing.assert_allclose(restored["after"], written["after"], rtol=1e-4, atol=1e-5)
