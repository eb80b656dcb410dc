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
from trainflow._src.protos import saver_pb2

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
out = []
for spec in json.loads(sys.stdin.read()):
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
    out.append({"before": before, "after": after, "values": values})
print(json.dumps(out))
"""

TF_TRAIN_AND_SAVE = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
out = []
for spec in json.loads(sys.stdin.read()):
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
    out.append({"path": path, "before": before, "after": after, "values": values})
print(json.dumps(out))
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


KINDS = {"v2": {}, "sharded": {"sharded": True}, "v1": {"write_version": saver_pb2.SaverDef.V1}}


def test_tensorflow_continues_our_training(tmp_path):
    jobs, ours = [], []
    for kind, kwargs in KINDS.items():
        with tf.Graph().as_default() as g:
            exec(BUILD, {"tf": tf})
            saver = tf.train.Saver(**kwargs)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                feed = {"x:0": X, "y:0": Y}
                sess.run(g.get_collection("train_op")[0], feed)
                sess.run(g.get_collection("train_op")[0], feed)
                path = saver.save(sess, str(tmp_path / kind / "model.ckpt"), global_step=2)
                names = [v.op.name for v in tf.global_variables()]
                assert "dense/w/part_1/Adam_1" in names and "beta2_power" in names
                ours.append(_our_step(sess, g))
        jobs.append({"meta": str(tmp_path / kind / "model.ckpt-2.meta"), "prefix": path,
                     "x": X, "y": Y})
    results = run_json(TF_CONTINUE, spec=jobs)
    for kind, (before, after, values), theirs in zip(KINDS, ours, results):
        assert theirs["before"] == pytest.approx(before, rel=1e-6), kind
        assert theirs["after"] == pytest.approx(after, rel=2e-5), kind
        _compare(values, theirs["values"])


def test_we_continue_tensorflows_training(tmp_path):
    jobs = [{"build": BUILD, "sharded": sharded, "prefix": str(tmp_path / kind / "tf.ckpt"),
             "x": X, "y": Y} for kind, sharded in (("plain", False), ("sharded", True))]
    for job in jobs:
        os.makedirs(os.path.dirname(job["prefix"]))
    for job, theirs in zip(jobs, run_json(TF_TRAIN_AND_SAVE, spec=jobs)):
        prefix = job["prefix"]
        assert theirs["path"] == prefix + "-2"
        assert tf.train.latest_checkpoint(os.path.dirname(prefix)) == prefix + "-2"
        with tf.Graph().as_default() as g:
            saver = tf.train.import_meta_graph(prefix + "-2.meta")
            with tf.Session() as sess:
                saver.restore(sess, prefix + "-2")
                before, after, values = _our_step(sess, g)
        assert before == pytest.approx(theirs["before"], rel=1e-6)
        assert after == pytest.approx(theirs["after"], rel=2e-5)
        _compare(values, theirs["values"])
