"""Training graphs with tf.while_loop and its gradient (WhileGrad) survive a meta graph round
trip: imported, restored, they keep training with the numbers of the original graph."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def _recurrent():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    w = tf.Variable([[0.5, -0.3], [0.1, 0.2], [-0.4, 0.3]], name="w")
    u = tf.Variable([[0.9, 0.1], [-0.2, 0.8]], name="u")

    def body(i, h):
        return i + 1, tf.tanh(tf.matmul(x, w) + tf.matmul(h, u))
    _, h = tf.while_loop(lambda i, h: i < 4, body, [tf.constant(0), tf.zeros([2, 2])])
    loss = tf.reduce_sum(tf.square(h - 0.5), name="loss")
    tf.train.AdamOptimizer(0.1).minimize(loss, global_step=tf.train.get_or_create_global_step())


def _counter_loop():
    x = tf.placeholder(tf.float32, [2], name="x")
    w = tf.Variable([0.5, -0.3], name="w")
    _, out = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * w + x),
                           [tf.constant(0), tf.zeros([2])])
    loss = tf.reduce_sum(tf.square(out), name="loss")
    tf.train.GradientDescentOptimizer(0.1).minimize(loss)


def _nested_loops():
    x = tf.placeholder(tf.float32, [2], name="x")
    w = tf.Variable([0.5, -0.3], name="w")

    def inner(a):
        return tf.while_loop(lambda j, b: j < 2, lambda j, b: (j + 1, b * w + x),
                             [tf.constant(0), a])[1]
    _, out = tf.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, inner(a)),
                           [tf.constant(0), tf.ones([2])])
    loss = tf.reduce_sum(tf.square(out), name="loss")
    tf.train.GradientDescentOptimizer(0.01).minimize(loss)


FEEDS = {_recurrent: [[1.0, 2.0, -1.0], [0.5, 0.0, 1.5]], _counter_loop: [1.0, 2.0],
         _nested_loops: [0.5, -1.0]}


@pytest.mark.parametrize("build", [_recurrent, _counter_loop, _nested_loops],
                         ids=["recurrent", "counter", "nested"])
def test_imported_loop_gradient_trains_like_the_original(tmp_path, build):
    feed = FEEDS[build]
    with tf.Graph().as_default() as g:
        build()
        saver = tf.train.Saver()
        train = g.get_collection("train_op")[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"))
            want = []
            for _ in range(3):
                sess.run(train, {"x:0": feed})
                want.append(sess.run("loss:0", {"x:0": feed}))
            want_w = sess.run("w:0")
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(path + ".meta")
        assert [o.type for o in g.get_operations() if o.type == "WhileGrad"]
        with tf.Session() as sess:
            saver.restore(sess, path)
            got = []
            for _ in range(3):
                sess.run(g.get_collection("train_op")[0], {"x:0": feed})
                got.append(sess.run("loss:0", {"x:0": feed}))
            np.testing.assert_allclose(got, want, rtol=1e-6)
            np.testing.assert_allclose(sess.run("w:0"), want_w, rtol=1e-6)


TF_LOOP_TRAIN_AND_SAVE = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
with tf.Graph().as_default():
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    w = tf.get_variable("w", initializer=[[0.5, -0.3], [0.1, 0.2], [-0.4, 0.3]])
    u = tf.get_variable("u", initializer=[[0.9, 0.1], [-0.2, 0.8]])
    def body(i, h):
        return i + 1, tf.tanh(tf.matmul(x, w) + tf.matmul(h, u))
    _, h = tf.while_loop(lambda i, h: i < 4, body, [tf.constant(0), tf.zeros([2, 2])])
    loss = tf.reduce_sum(tf.square(h - 0.5), name="loss")
    step = tf.train.get_or_create_global_step()
    train = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
    saver = tf.train.Saver()
    feed = {x: spec["x"]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, feed)
        path = saver.save(sess, spec["prefix"])
        losses = []
        for _ in range(2):
            sess.run(train, feed)
            losses.append(float(sess.run(loss, feed)))
        out = {"losses": losses, "w": sess.run(w).tolist()}
print(json.dumps(out))
"""


def test_tensorflow_tf1_loop_meta_graph_trains_on(tmp_path):
    """TensorFlow (control flow v1: frames, stacks) trains, saves; trainflow imports the meta
    graph, restores and trains on with TensorFlow's numbers."""
    from tf_interop import TF_PYTHON, run_json
    if not TF_PYTHON:
        pytest.skip("TRAINFLOW_TF_PYTHON is not set")
    feed = FEEDS[_recurrent]
    prefix = str(tmp_path / "tf.ckpt")
    theirs = run_json(TF_LOOP_TRAIN_AND_SAVE, spec={"prefix": prefix, "x": feed})
    with tf.Graph().as_default() as g:
        saver = tf.train.import_meta_graph(prefix + ".meta")
        assert [o.type for o in g.get_operations() if o.type.endswith("While")]
        assert not g.get_collection("while_context")  # it described the TF1 frames
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            losses = []
            for _ in range(2):
                sess.run(g.get_collection("train_op")[0], {"x:0": feed})
                losses.append(sess.run("loss:0", {"x:0": feed}))
            np.testing.assert_allclose(losses, theirs["losses"], rtol=2e-5)
            np.testing.assert_allclose(sess.run("w:0"), theirs["w"], rtol=2e-5, atol=1e-6)


TF_RUN_FORWARD = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
with tf.Graph().as_default():
    saver = tf.train.import_meta_graph(spec["prefix"] + ".meta")
    with tf.Session() as sess:
        saver.restore(sess, spec["prefix"])
        print(json.dumps(sess.run("loss:0", {"x:0": spec["x"]}).tolist()))
"""


def test_tensorflow_runs_our_loop_meta_graph(tmp_path):
    """TensorFlow imports a trainflow meta graph with a functional While loop (our WhileGrad
    is trainflow's own, so TF runs the forward part) and computes the same loss."""
    from tf_interop import TF_PYTHON, run_json
    if not TF_PYTHON:
        pytest.skip("TRAINFLOW_TF_PYTHON is not set")
    feed = FEEDS[_recurrent]
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        w = tf.Variable([[0.5, -0.3], [0.1, 0.2], [-0.4, 0.3]], name="w")
        u = tf.Variable([[0.9, 0.1], [-0.2, 0.8]], name="u")
        _, h = tf.while_loop(lambda i, h: i < 4,
                             lambda i, h: (i + 1, tf.tanh(tf.matmul(x, w) + tf.matmul(h, u))),
                             [tf.constant(0), tf.zeros([2, 2])])
        loss = tf.reduce_sum(tf.square(h - 0.5), name="loss")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(w.assign(w * 2.0))
            prefix = saver.save(sess, str(tmp_path / "m"))
            want = sess.run(loss, {x: feed})
    assert run_json(TF_RUN_FORWARD, spec={"prefix": prefix, "x": feed}) == \
        pytest.approx(float(want), rel=1e-5)
