"""Writes quantize_training.json: small TF1 graphs (an MLP, a convnet, an MLP with a
Saver) as GraphDefs, TensorFlow 2.21's `do_quantize_training_on_graphdef` rewrite of each,
and the rewritten graphs' outputs for fixed feeds over two runs. Run with a TF python:

    /path/to/tf/python tests/train/data/gen_quantize_training.py [--stdout]

Not a test; the tests read the JSON it wrote (or, with --stdout, the printed JSON).
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "quantize_training.json")


def build(tf, kind):
    g = tf.Graph()
    rng = np.random.RandomState(5)
    with g.as_default():
        if kind == "conv":
            x = tf.placeholder(tf.float32, [None, 6, 6, 1], name="images")
            k = tf.Variable(rng.uniform(-1, 1, (3, 3, 1, 2)).astype(np.float32), name="k")
            c = tf.nn.relu6(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"))
            p = tf.nn.max_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
            flat = tf.reshape(p, [-1, 18])
            w = tf.constant(rng.uniform(-1, 1, (18, 3)).astype(np.float32), name="w")
            h = tf.tanh(tf.matmul(flat, w))
            v = tf.Variable(rng.uniform(-1, 1, (3, 2)).astype(np.float32), name="v")
            tf.matmul(h, v, name="logits")
            return g, {"images:0": rng.uniform(-2, 2, (2, 6, 6, 1)).tolist()}
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(rng.uniform(-1, 1, (3, 4)).astype(np.float32), name="w")
        h = tf.nn.relu(tf.matmul(x, w))
        s = tf.sigmoid(tf.matmul(h, tf.constant(rng.uniform(-1, 1, (4, 4)).astype(np.float32),
                                                name="w2")))
        tf.matmul(s, tf.Variable(np.float32([[0.5], [-1.0], [2.0], [0.25]]), name="w3"),
                  name="logits")
        if kind == "saver":
            tf.train.Saver()
        return g, {"x:0": rng.uniform(-3, 3, (5, 3)).tolist()}


def main():
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    ref = {"tensorflow": tf.__version__, "graphs": {}}
    for kind in ("mlp", "conv", "saver"):
        g, feed = build(tf, kind)
        gd = g.as_graph_def()
        out = tf.train.do_quantize_training_on_graphdef(gd, 8)
        runs = []
        if kind != "saver":
            with tf.Graph().as_default() as rg:
                tf.import_graph_def(out, name="")
                with tf.Session(graph=rg) as sess:
                    sess.run([op for op in rg.get_operations()
                              if op.type == "Assign" and not op.name.endswith("AssignValue")])
                    for _ in range(2):
                        runs.append(sess.run("logits:0", feed).tolist())
        ref["graphs"][kind] = {"input": gd.SerializeToString().hex(),
                               "output": out.SerializeToString().hex(),
                               "feed": feed, "runs": runs}
    if "--stdout" in sys.argv:
        print(json.dumps(ref))
    else:
        with open(OUT, "w") as f:
            json.dump(ref, f)
            f.write("\n")


if __name__ == "__main__":
    main()
