"""A TF1-style program used to compare trainflow with TensorFlow: placeholders,
variables, name and variable scopes, control dependencies, cond, collections and
nested fetch structures. `run(tf)` returns plain Python data."""
import collections

import numpy as np

Pair = collections.namedtuple("Pair", ["left", "right"])


def run(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        flag = tf.placeholder(tf.bool, [], name="flag")
        with tf.variable_scope("model"):
            w = tf.get_variable("w", [3, 2], initializer=tf.constant_initializer(
                [[1.0, -1.0], [0.5, 2.0], [-0.25, 0.75]]))
            b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
            counter = tf.get_variable("counter", [], dtype=tf.int32,
                                      initializer=tf.zeros_initializer(), trainable=False)
        with tf.name_scope("layer"):
            h = tf.matmul(x, w) + b
            tf.add_to_collection("activations", h)
        with tf.name_scope("layer"):
            h2 = tf.identity(h * 2.0, name="doubled")
        bump = tf.assign_add(counter, 1)
        with tf.control_dependencies([bump]):
            total = tf.reduce_sum(h2, name="total")
        branch = tf.cond(flag, lambda: tf.reduce_max(h), lambda: tf.reduce_min(h))
        step = tf.assign(b, b + tf.reduce_mean(h, axis=0))
        init = tf.global_variables_initializer()
        names = {
            "h": h.name, "h2": h2.name, "total": total.name, "w": w.name, "b": b.name,
            "counter": counter.name,
            "trainable": sorted(v.name for v in tf.trainable_variables()),
            "global": sorted(v.name for v in tf.global_variables()),
            "activations": [t.name for t in tf.get_collection("activations")],
            "scoped": [v.name for v in tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, "model/c")],
        }
    feed_x = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], np.float32)
    with tf.Session(graph=g) as sess:
        sess.run(init)
        fetched = sess.run({"pair": Pair(h, [total, (branch,)]), "counter": counter},
                           {x: feed_x, flag: True})
        low = sess.run(branch, {x: feed_x, flag: False})
        sess.run(step, {x: feed_x})
        after = sess.run([b, counter])
        total_again = sess.run(total, {"x:0": feed_x})
    return {
        "names": names,
        "h": fetched["pair"].left.tolist(),
        "total": float(fetched["pair"].right[0]),
        "high": float(fetched["pair"].right[1][0]),
        "low": float(low),
        "counter_first": int(fetched["counter"]),
        "b_after": after[0].tolist(),
        "counter_after": int(after[1]),
        "total_again": float(total_again),
        "types": [type(fetched["pair"]).__name__, type(fetched["pair"].right).__name__,
                  type(fetched["pair"].right[1]).__name__],
    }
