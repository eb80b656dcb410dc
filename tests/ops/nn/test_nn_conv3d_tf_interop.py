"""3-D convolution/pooling, 1-D pools and total_variation (values and gradients)
against TensorFlow 2.21 in TF1 mode; skipped without TRAINFLOW_TF_PYTHON."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

PRELUDE = """
import numpy as np
R = np.random.RandomState(8)
X = tf.constant(R.uniform(-1, 1, (2, 4, 5, 3, 2)).astype(np.float32))
W = tf.constant(R.uniform(-1, 1, (2, 3, 2, 2, 3)).astype(np.float32))
S = tf.constant(R.uniform(-1, 1, (2, 7, 3)).astype(np.float32))
IMG = tf.constant(R.uniform(0, 1, (2, 5, 4, 3)).astype(np.float32))

def grad(y, x):
    w = tf.sin(tf.cast(tf.reshape(tf.range(tf.size(y)), tf.shape(y)), y.dtype) + 0.5)
    return tf.gradients(tf.reduce_sum(y * w), x)[0]
"""

EXPRESSIONS = [
    "tf.nn.conv3d(X, W, [1, 1, 1, 1, 1], 'SAME')",
    "tf.nn.conv3d(X, W, [1, 2, 1, 2, 1], 'VALID')",
    "grad(tf.nn.conv3d(X, W, [1, 2, 2, 1, 1], 'SAME'), X)",
    "grad(tf.nn.conv3d(X, W, [1, 2, 2, 1, 1], 'SAME'), W)",
    "tf.nn.conv3d_transpose(tf.nn.conv3d(X, W, [1, 2, 2, 1, 1], 'SAME'), W, [2, 4, 5, 3, 2],"
    " [1, 2, 2, 1, 1], 'SAME')",
    "tf.nn.max_pool3d(X, [1, 2, 2, 2, 1], [1, 2, 1, 2, 1], 'SAME')",
    "tf.nn.avg_pool3d(X, [1, 3, 2, 2, 1], [1, 1, 2, 1, 1], 'SAME')",
    "grad(tf.nn.max_pool3d(X, [1, 2, 2, 2, 1], [1, 2, 1, 2, 1], 'SAME'), X)",
    "grad(tf.nn.avg_pool3d(X, [1, 3, 2, 2, 1], [1, 1, 2, 1, 1], 'SAME'), X)",
    "tf.nn.max_pool1d(S, 3, 2, 'SAME')", "tf.nn.avg_pool1d(S, 2, 1, 'VALID')",
    "tf.image.total_variation(IMG)", "tf.image.total_variation(IMG[0])",
    "grad(tf.image.total_variation(IMG), IMG)",
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
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5, err_msg=expr)
