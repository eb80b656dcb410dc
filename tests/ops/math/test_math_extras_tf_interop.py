"""Values of the special functions, segment ops (empty-segment fills included),
cumulative logsumexp, depth/space ops, batch_gather and parallel_stack, and of their
gradients, against TensorFlow 2.21 (TF1 mode); skipped without TRAINFLOW_TF_PYTHON."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

PRELUDE = """
import numpy as np
R = np.random.RandomState(4)
A = tf.constant([[0.5, 1.5, 3.0], [2.0, 7.5, 12.0], [0.2, 40.0, 100.0]])
X = tf.constant([[0.7, 2.0, 1.2], [4.0, 6.0, 20.0], [0.01, 35.0, 130.0]])
ROWS = tf.constant(R.uniform(-1, 1, (4, 3)).astype(np.float32))
IROWS = tf.constant([[1, 5], [-3, 2], [7, 7], [0, -9]])
IMG = tf.constant(R.uniform(-1, 1, (2, 2, 3, 8)).astype(np.float32))
SCAN = tf.constant(R.uniform(-2, 2, (2, 5)).astype(np.float32))

def grad(y, x):
    w = tf.sin(tf.cast(tf.reshape(tf.range(tf.size(y)), tf.shape(y)), y.dtype) + 0.5)
    return tf.gradients(tf.reduce_sum(y * w), x)[0]
"""

EXPRESSIONS = [
    "tf.igamma(A, X)", "tf.igammac(A, X)", "tf.zeta(A + 1.5, X)",
    "tf.zeta([1.0, 0.5, 3.0], [1.0, 2.0, -1.5])",
    "grad(tf.igamma(A, X), A)", "grad(tf.igamma(A, X), X)", "grad(tf.igammac(A, X), A)",
    "grad(tf.zeta(A + 1.5, X), X)",
    "tf.math.cumulative_logsumexp(SCAN, axis=1)",
    "tf.math.cumulative_logsumexp(SCAN, axis=0, exclusive=True, reverse=True)",
    "grad(tf.math.cumulative_logsumexp(SCAN, axis=1, exclusive=True), SCAN)",
    "tf.segment_max(ROWS, [0, 0, 2, 2])", "tf.segment_min(IROWS, [0, 2, 2, 3])",
    "tf.segment_prod(ROWS, [1, 1, 3, 3])", "tf.segment_mean(IROWS, [0, 0, 2, 2])",
    "tf.unsorted_segment_max(ROWS, [0, 0, 3, -1], 5)",
    "tf.unsorted_segment_min(IROWS, [1, 1, 3, 0], 5)",
    "tf.unsorted_segment_prod(ROWS, [0, 2, 2, 0], 4)",
    "tf.unsorted_segment_mean(ROWS, [1, -1, 1, 0], 3)",
    "tf.math.unsorted_segment_sqrt_n(ROWS, [1, 1, 1, 0], 3)",
    "tf.sparse.segment_sum(ROWS, [0, 2, 2, 3, 1], [0, 0, 1, 3, 3])",
    "tf.sparse.segment_mean(ROWS, [0, 2, 2, 3, 1], [0, 0, 1, 3, 3])",
    "tf.sparse.segment_sqrt_n(ROWS, [0, 2, 2, 3, 1], [0, 0, 1, 3, 3])",
    "tf.sparse_segment_mean(ROWS, [0, 2], [0, 2], num_segments=4)",
    "tf.sparse.segment_sum(IROWS, [0, 2, 3], [0, 0, 1])",
    "grad(tf.sparse.segment_mean(ROWS, [0, 2, 2, 3, 1], [0, 0, 1, 3, 3]), ROWS)",
    "grad(tf.sparse.segment_sqrt_n(ROWS, [0, 2, 2, 3, 1], [0, 0, 1, 3, 3]), ROWS)",
    "grad(tf.sparse.segment_sum(ROWS, [0, 2, 2, 3, 1], [0, 0, 1, 3, 3]), ROWS)",
    "grad(tf.unsorted_segment_mean(ROWS, [1, -1, 1, 0], 3), ROWS)",
    "tf.depth_to_space(IMG, 2)", "tf.space_to_depth(tf.depth_to_space(IMG, 2), 2)",
    "grad(tf.depth_to_space(IMG, 2), IMG)",
    "tf.batch_gather(ROWS, [[2, 0], [1, 1], [0, 2], [1, 0]])",
    "tf.batch_gather(tf.reshape(tf.range(24), [2, 3, 4]), [[[3], [0], [1]], [[2], [2], [0]]])",
    "tf.parallel_stack([ROWS[0], ROWS[1]])", "tf.setdiff1d([5, 1, 3, 1, 7], [1, 7])[0]",
]

_TF_CODE = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
out = []
for expr in spec["expressions"]:
    with tf.Graph().as_default():
        env = {"tf": tf}
        exec(spec["prelude"], env)
        with tf.Session() as sess:
            out.append(sess.run(eval(expr, env)).tolist())
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def tf_values():
    return run_json(_TF_CODE, spec={"prelude": PRELUDE, "expressions": EXPRESSIONS})


@needs_tf
@pytest.mark.parametrize("i,expr", list(enumerate(EXPRESSIONS)), ids=EXPRESSIONS)
def test_same_values_as_tensorflow(tf_values, i, expr):
    with tf.Graph().as_default():
        env = {"tf": tf}
        exec(PRELUDE, env)
        with tf.Session() as sess:
            got = np.asarray(sess.run(eval(expr, env)))
    want = np.asarray(tf_values[i], dtype=got.dtype)
    assert got.shape == want.shape, expr
    if got.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want, err_msg=expr)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6, err_msg=expr)
