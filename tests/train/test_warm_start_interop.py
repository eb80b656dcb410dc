"""warm_start with VocabInfo against TensorFlow 2.21's (through TRAINFLOW_TF_PYTHON; skipped
when unset): the same checkpoint and vocabularies give the same warm-started values."""
import numpy as np

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

CASES = r"""
def build(tf, d):
    emb = tf.get_variable("emb", [5, 2], partitioner=tf.fixed_size_partitioner(2),
                          initializer=tf.ones_initializer())
    out = tf.get_variable("out", [2, 4], initializer=tf.ones_initializer())
    w = tf.get_variable("w", [2], initializer=tf.zeros_initializer())
    renamed = tf.get_variable("renamed", [2], initializer=tf.zeros_initializer())
    tf.train.warm_start(d + "/m", [".*"], {
        "emb": tf.train.VocabInfo(d + "/new.txt", 4, 1, d + "/old.txt"),
        "out": tf.train.VocabInfo(d + "/new.txt", 3, 1, d + "/old.txt", old_vocab_size=3,
                                  axis=1)},
        var_name_to_prev_var_name={"renamed": "w"})
    return [emb.as_tensor(), out, w, renamed]
"""

TF_SIDE = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
exec(spec["cases"])
with tf.Graph().as_default():
    tensors = build(tf, spec["dir"])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print(json.dumps([v.tolist() for v in sess.run(tensors)]))
"""


def test_warm_start_matches_tensorflow(tmp_path):
    old = np.arange(8, dtype=np.float32).reshape(4, 2)
    with tf.Graph().as_default():
        tf.Variable(old, name="emb")
        tf.Variable(old.T.copy(), name="out")
        tf.Variable([1.0, 2.0], name="w")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, str(tmp_path / "m"))
    (tmp_path / "old.txt").write_text("a\nb\nc\nd\n")
    (tmp_path / "new.txt").write_text("c\nz\na\nd\n")
    scope = {}
    exec(CASES, scope)
    with tf.Graph().as_default():
        tensors = scope["build"](tf, str(tmp_path))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ours = sess.run(tensors)
    theirs = run_json(TF_SIDE, spec={"cases": CASES, "dir": str(tmp_path)})
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, np.float32(b))
