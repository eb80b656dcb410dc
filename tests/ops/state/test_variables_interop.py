"""TensorFlow imports and runs the variable, initializer, random and state-op graphs we
build (attrs and signatures match TF's op registry).

Runs TF in a subprocess through the python named by TRAINFLOW_TF_PYTHON; skipped without it.
"""
import numpy as np

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

TF_SCRIPT = r"""
import json, os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
cfg = json.load(sys.stdin)
gd = tf.GraphDef()
with open(cfg["graph"], "rb") as f:
    gd.ParseFromString(f.read())
out = {}
with tf.Graph().as_default():
    tf.import_graph_def(gd, name="")
    with tf.Session() as sess:
        sess.run(cfg["init"])
        for name in cfg["fetch"]:
            out[name] = sess.run(name).tolist()
json.dump(out, sys.stdout)
"""


def _run_in_tf(graph, init, fetch, tmp_path):
    path = tmp_path / "graph.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return run_json(TF_SCRIPT, spec={"graph": str(path), "init": init, "fetch": fetch})


def test_tensorflow_runs_our_variable_graph(tmp_path):
    with tf.Graph().as_default() as g:
        tf.set_random_seed(3)
        with tf.variable_scope("s", initializer=tf.glorot_normal_initializer()):
            tf.get_variable("a", [3, 4])
            tf.get_variable("b", [5, 2], partitioner=tf.fixed_size_partitioner(2))
            c = tf.get_variable("c", initializer=[1, 2, 3])
            tf.get_variable("d", [2], dtype=tf.int64,
                            initializer=tf.random_uniform_initializer(0, 5, dtype=tf.int64))
            tf.get_variable("e", [4], initializer=tf.truncated_normal_initializer(stddev=0.1))
            tf.Variable(tf.random_shuffle([1, 2, 3]), name="h")
            fetch = [tf.multinomial([[0.0, 1.0]], 4), tf.random_gamma([2], [1.0, 2.0]),
                     tf.random_poisson([1.0], [2]), tf.random_normal([3], seed=1)]
            with tf.control_dependencies([tf.assign_add(c, [1, 1, 1])]):
                updated = tf.scatter_add(c, [0, 0], [5, 5])
            count = tf.count_up_to(tf.Variable(0, name="cnt"), 5)
        tf.global_variables_initializer()
    names = ["s/a:0", "s/b/part_0:0", "s/b/part_1:0", "s/d:0", "s/e:0", "s/h:0",
             updated.name, count.name] + [t.name for t in fetch]
    out = _run_in_tf(g, "init", names, tmp_path)
    assert np.shape(out["s/a:0"]) == (3, 4)
    assert np.shape(out["s/b/part_0:0"]) == (3, 2) and np.shape(out["s/b/part_1:0"]) == (2, 2)
    assert all(0 <= x < 5 for x in out["s/d:0"])
    assert np.abs(out["s/e:0"]).max() <= 0.2
    assert sorted(out["s/h:0"]) == [1, 2, 3]
    assert out[updated.name] == [12, 3, 4] and out[count.name] == 0
    assert np.shape(out[fetch[0].name]) == (1, 4) and np.shape(out[fetch[1].name]) == (2, 2)
