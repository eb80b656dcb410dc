"""tf.metrics' ranking metrics (recall_at_k, recall_at_top_k, precision_at_k,
precision_at_top_k, sparse_precision_at_k, average_precision_at_k,
sparse_average_precision_at_k) against TensorFlow 2.21 in TF1 mode: dense, 1-D and
sparse labels, class_id, weights, out-of-range ids, two streaming updates, the local
variables' names and the ops' names; skipped without TRAINFLOW_TF_PYTHON."""
import json

import numpy as np

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

# Runs under both TensorFlow (`tf` = tensorflow.compat.v1) and trainflow.
_CASES = r"""
import json, sys
import numpy as np
def run(tf):
    out = {}
    rng = np.random.RandomState(0)
    scores = rng.uniform(size=(4, 6)).astype(np.float32)
    dense = np.array([[0, 2, -1], [3, 7, 1], [5, -1, -1], [4, 2, 0]], np.int64)
    one = np.array([2, 3, 5, 9], np.int64)
    sp = tf.SparseTensorValue(indices=[[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [3, 0]],
                              values=np.array([0, 2, 3, 5, 1, 4], np.int64), dense_shape=[4, 2])
    w = np.array([1.0, 0.5, 0.0, 2.0], np.float32)
    with tf.Graph().as_default() as g:
        p = tf.constant(scores)
        idx = tf.nn.top_k(p, 3)[1]
        cases = {
            "recall_k2": tf.metrics.recall_at_k(dense, p, 2),
            "recall_k3_class2": tf.metrics.recall_at_k(dense, p, 3, class_id=2),
            "recall_k1_sparse": tf.metrics.recall_at_k(sp, p, 1),
            "recall_top_w": tf.metrics.recall_at_top_k(one, idx, k=3, weights=w),
            "recall_top_nok": tf.metrics.recall_at_top_k(dense, idx),
            "precision_k2": tf.metrics.precision_at_k(dense, p, 2),
            "precision_k4_class5": tf.metrics.precision_at_k(one, p, 4, class_id=5),
            "precision_sparse_w": tf.metrics.sparse_precision_at_k(sp, p, 2, weights=w),
            "precision_top": tf.metrics.precision_at_top_k(dense, idx, k=3),
            "precision_top_class3": tf.metrics.precision_at_top_k(sp, idx, class_id=3),
            "ap_k1": tf.metrics.average_precision_at_k(dense, p, 1),
            "ap_k3": tf.metrics.average_precision_at_k(dense, p, 3),
            "ap_k4_w": tf.metrics.average_precision_at_k(one, p, 4, weights=w),
            "ap_sparse": tf.metrics.sparse_average_precision_at_k(sp, p, 2),
            "ap_named": tf.metrics.average_precision_at_k(sp, p, 6, name="my_ap"),
        }
        local = sorted(v.op.name for v in tf.local_variables())
        init = tf.local_variables_initializer()
        with tf.Session() as sess:
            sess.run(init)
            upd1 = sess.run({k: v[1] for k, v in cases.items()})
            upd2 = sess.run({k: v[1] for k, v in cases.items()})
            vals = sess.run({k: v[0] for k, v in cases.items()})
    out["local"] = local
    out["values"] = {k: [float(upd1[k]), float(upd2[k]), float(vals[k])] for k in cases}
    out["names"] = {k: [v[0].op.name, v[1].op.name] for k, v in cases.items()}
    return out
"""

_TF_SCRIPT = _CASES + r"""
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
print(json.dumps(run(tf)))
"""


def test_same_values_variables_and_names_as_tensorflow():
    want = run_json(_TF_SCRIPT)
    namespace = {}
    exec(compile(_CASES, "<cases>", "exec"), namespace)  # noqa: S102 - our own case code
    got = json.loads(json.dumps(namespace["run"](tf)))
    assert got["local"] == want["local"]
    assert got["names"] == want["names"]
    for key, values in want["values"].items():
        np.testing.assert_allclose(got["values"][key], values, rtol=1e-12, atol=0,
                                   err_msg=key, equal_nan=True)
