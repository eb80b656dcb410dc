"""Checkpoints and meta graphs crossing between trainflow and TensorFlow 2.21 (through
TRAINFLOW_TF_PYTHON; skipped when unset).

trainflow trains a model with a partitioned variable and Adam slots, saves it (V2, V1,
sharded) with its meta graph; TensorFlow imports the meta graph, restores, trains one step,
and must get what trainflow gets for that step. The reverse: TensorFlow trains and saves,
trainflow imports and restores, and its next step must equal TensorFlow's.
"""
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow.protos import saver_pb2

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

BUILD = """
x = tf.placeholder(tf.float32, [None, 3], name="x")
y = tf.placeholder(tf.float32, [None, 2], name="y")
with tf.variable_scope("dense"):
    w = tf.get_variable("w", [3, 4], partitioner=tf.fixed_size_partitioner(2),
                        initializer=tf.glorot_uniform_initializer(seed=1))
    b = tf.get_variable("b", [4], initializer=tf.zeros_initializer())
with tf.variable_scope("out"):
    v = tf.get_variable("v", [4, 2], initializer=tf.glorot_uniform_initializer(seed=2))
h = tf.tanh(tf.matmul(x, w) + b)
loss = tf.reduce_mean(tf.square(tf.matmul(h, v) - y), name="loss")
step = tf.train.get_or_create_global_step()
train = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=step, name="train")
"""
X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.0]]
Y = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]

TF_CONTINUE = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
with tf.Graph().as_default() as g:
    saver = tf.train.import_meta_graph(spec["meta"])
    train = g.get_collection("train_op")[0]
    feed = {"x:0": spec["x"], "y:0": spec["y"]}
    with tf.Session() as sess:
        saver.restore(sess, spec["prefix"])
        before = float(sess.run("loss:0", feed))
        sess.run(train, feed)
        after = float(sess.run("loss:0", feed))
        values = {v.op.name: sess.run(v).tolist() for v in tf.global_variables()}
print(json.dumps({"before": before, "after": after, "values": values}))
"""

TF_TRAIN_AND_SAVE = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
with tf.Graph().as_default() as g:
    exec(spec["build"])
    saver = tf.train.Saver(sharded=spec["sharded"])
    feed = {"x:0": spec["x"], "y:0": spec["y"]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, feed)
        sess.run(train, feed)
        path = saver.save(sess, spec["prefix"], global_step=step)
        before = float(sess.run("loss:0", feed))
        sess.run(train, feed)
        after = float(sess.run("loss:0", feed))
        values = {v.op.name: sess.run(v).tolist() for v in tf.global_variables()}
print(json.dumps({"path": path, "before": before, "after": after, "values": values}))
"""


def _compare(ours, theirs):
    assert set(ours) == set(theirs)
    for name, value in theirs.items():
        np.testing.assert_allclose(ours[name], np.array(value, np.float64), rtol=2e-5,
                                   atol=1e-6, err_msg=name)


def _our_step(sess, g):
    feed = {"x:0": X, "y:0": Y}
    before = float(sess.run("loss:0", feed))
    sess.run(g.get_collection("train_op")[0], feed)
    after = float(sess.run("loss:0", feed))
    values = {v.op.name: sess.run(v) for v in tf.global_variables()}
    return before, after, values


@pytest.mark.parametrize("kwargs", [
    {}, {"sharded": True}, {"write_version": saver_pb2.SaverDef.V1}],
    ids=["v2", "sharded", "v1"])
def test_tensorflow_continues_our_training(tmp_path, kwargs):
    with tf.Graph().as_default() as g:
        exec(BUILD, {"tf": tf})
        saver = tf.train.Saver(**kwargs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {"x:0": X, "y:0": Y}
            sess.run(g.get_collection("train_op")[0], feed)
            sess.run(g.get_collection("train_op")[0], feed)
            path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=2)
            assert sorted(v.op.name for v in tf.global_variables()).count(
                "dense/w/part_0/Adam") == 1
            before, after, values = _our_step(sess, g)
    theirs = run_json(TF_CONTINUE, spec={"meta": str(tmp_path / "model.ckpt-2.meta"),
                                         "prefix": path, "x": X, "y": Y})
    assert theirs["before"] == pytest.approx(before, rel=1e-6)
    assert theirs["after"] == pytest.approx(after, rel=2e-5)
    _compare(values, theirs["values"])


@pytest.mark.parametrize("sharded", [False, True], ids=["plain", "sharded"])
def test_we_continue_tensorflows_training(tmp_path, sharded):
    prefix = str(tmp_path / "tf.ckpt")
    theirs = run_json(TF_TRAIN_AND_SAVE, spec={"build": BUILD, "sharded": sharded,
                                               "prefix": prefix, "x": X, "y": Y})
    assert theirs["path"] == prefix + "-2"
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix + "-2"
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(prefix + "-2.meta")
        with tf.Session() as sess:
            saver.restore(sess, prefix + "-2")
            before, after, values = _our_step(sess, g)
            # And our own Saver, built on the imported graph, saves what TF restores.
            again = tf.train.Saver().save(sess, str(tmp_path / "ours"), write_meta_graph=False)
    assert before == pytest.approx(theirs["before"], rel=1e-6)
    assert after == pytest.approx(theirs["after"], rel=2e-5)
    _compare(values, theirs["values"])
    assert os.path.exists(again + ".index")
