"""Dilation2D and its backprop ops (tf.nn.dilation2d and its gradients) and
tf.nn.erosion2d against TensorFlow 2.21 in TF1 mode, over the strides, rates and
paddings of TF's morphological_ops_test; skipped without TRAINFLOW_TF_PYTHON."""
from tf_interop import expression_value_tests

PRELUDE = """
import numpy as np
R = np.random.RandomState(9)
X = tf.constant(R.uniform(-1, 1, (2, 7, 6, 3)).astype(np.float32))
F = tf.constant(R.uniform(-1, 1, (3, 2, 3)).astype(np.float32))
XI = tf.constant(R.randint(-20, 20, (1, 5, 5, 2)).astype(np.int32))
FI = tf.constant(R.randint(-5, 5, (2, 2, 2)).astype(np.int32))

def grad(y, x):
    w = tf.sin(tf.cast(tf.reshape(tf.range(tf.size(y)), tf.shape(y)), y.dtype) + 0.5)
    return tf.gradients(tf.reduce_sum(y * w), x)[0]
"""

_CASES = [([1, 1, 1, 1], [1, 1, 1, 1], "VALID"), ([1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
          ([1, 2, 2, 1], [1, 1, 1, 1], "SAME"), ([1, 2, 3, 1], [1, 1, 1, 1], "VALID"),
          ([1, 1, 1, 1], [1, 2, 2, 1], "SAME"), ([1, 1, 1, 1], [1, 2, 1, 1], "VALID"),
          ([1, 3, 2, 1], [1, 2, 2, 1], "SAME")]

EXPRESSIONS = []
for _s, _r, _p in _CASES:
    _d = f"tf.nn.dilation2d(X, F, {_s}, {_r}, '{_p}')"
    EXPRESSIONS += [_d, f"grad({_d}, X)", f"grad({_d}, F)",
                    f"tf.nn.erosion2d(X, F, {_s}, {_r}, '{_p}')",
                    f"grad(tf.nn.erosion2d(X, F, {_s}, {_r}, '{_p}'), F)"]
EXPRESSIONS += [
    "tf.nn.dilation2d(XI, FI, [1, 1, 1, 1], [1, 1, 1, 1], 'SAME')",
    "tf.nn.dilation2d(X, filters=F, strides=[1, 1, 1, 1], dilations=[1, 2, 2, 1], "
    "padding='SAME')",
    "tf.nn.dilation2d(X, F, [1, 1, 1, 1], [1, 3, 3, 1], 'SAME')",
]

tf_values, test_same_values_as_tensorflow = expression_value_tests(
    PRELUDE, EXPRESSIONS, rtol=1e-6, atol=1e-6)
