"""TensorArray programs (in and out of while_loop, with gradients) give TensorFlow
2.21's values (TF1 mode with control flow v2, where TensorArrays are TensorLists);
skipped without TRAINFLOW_TF_PYTHON."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

PRELUDE = """
import numpy as np
R = np.random.RandomState(3)
X = tf.constant(R.uniform(-1, 1, (5, 3)))

def rnn(x):
    inputs = tf.TensorArray(tf.float64, size=5).unstack(x)
    out = tf.TensorArray(tf.float64, size=0, dynamic_size=True)
    w = tf.constant(R.uniform(-1, 1, (3, 3)))
    def body(i, h, out):
        h = tf.tanh(tf.matmul(h[None], w)[0] + inputs.read(i))
        return i + 1, h, out.write(i, h)
    _, h, out = tf.while_loop(lambda i, h, o: i < 5, body, [0, tf.zeros([3], tf.float64), out])
    return out.stack(), h

def grad(y, x):
    return tf.gradients(tf.reduce_sum(y * tf.cos(y)), x)[0]
"""

EXPRESSIONS = [
    "rnn(X)[0]", "rnn(X)[1]", "grad(rnn(X)[0], X)", "grad(rnn(X)[1], X)",
    "tf.TensorArray(tf.float64, size=5).unstack(X).gather([4, 0, 0])",
    # (No repeated index here: TF's gather gradient keeps only the last of repeated
    # rows' gradients; trainflow sums them, as finite differences do.)
    "grad(tf.TensorArray(tf.float64, size=5).unstack(X * X).gather([4, 0, 2]), X)",
    "tf.TensorArray(tf.float64, size=2).split(tf.reshape(X, [-1]), [6, 9]).concat()",
    "grad(tf.TensorArray(tf.float64, size=2).split(tf.reshape(X, [-1]), [6, 9]).read(1), X)",
    "tf.TensorArray(tf.float64, size=5).scatter([4, 3, 2, 1, 0], X).stack()",
    "tf.TensorArray(tf.float64, size=5).unstack(X).size()",
    "tf.map_fn(lambda r: tf.sin(r) * tf.reduce_sum(r), X)",
    "grad(tf.map_fn(lambda r: tf.sin(r) * tf.reduce_sum(r), X), X)",
    "tf.scan(lambda a, r: a * tf.cos(r) + r * r, X)",
    "grad(tf.scan(lambda a, r: a * tf.cos(r) + r * r, X, reverse=True), X)",
    "grad(tf.foldl(lambda a, r: a * 0.5 + tf.exp(r), X), X)",
    "tf.foldr(lambda a, r: tf.tanh(a + r), X, initializer=tf.zeros([3], tf.float64))",
]

_TF_CODE = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
tf.enable_control_flow_v2()  # TensorArrays on TensorLists, as trainflow builds them
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
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, err_msg=expr)
