"""The generic Conv op (tf.conv): 2-D and 3-D, strided, dilated, SAME / VALID /
EXPLICIT, extra batch dims, against TensorFlow 2.21 in TF1 mode; skipped without
TRAINFLOW_TF_PYTHON."""
from tf_interop import expression_value_tests

PRELUDE = """
import numpy as np
R = np.random.RandomState(6)
X = tf.constant(R.uniform(-1, 1, (3, 6, 7, 4)).astype(np.float32))
X5 = tf.constant(R.uniform(-1, 1, (2, 3, 6, 7, 4)).astype(np.float32))
W = tf.constant(R.uniform(-1, 1, (3, 2, 4, 5)).astype(np.float32))
V = tf.constant(R.uniform(-1, 1, (2, 4, 5, 6, 2)).astype(np.float32))
W3 = tf.constant(R.uniform(-1, 1, (2, 3, 2, 2, 3)).astype(np.float32))
"""

EXPRESSIONS = [
    "tf.conv(X, W, [1, 1, 1, 1], 'SAME')",
    "tf.conv(X, W, [1, 2, 3, 1], 'VALID')",
    "tf.conv(X, W, [1, 1, 1, 1], 'SAME', dilations=[1, 2, 2, 1])",
    "tf.conv(X, W, [1, 1, 2, 1], 'EXPLICIT', explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0])",
    "tf.conv(X5, W, [1, 1, 1, 1], 'SAME', batch_dims=2)",
    "tf.conv(X5, W, [1, 2, 1, 1], 'VALID', batch_dims=2, name='c')",
    "tf.conv(V, W3, [1, 1, 1, 1, 1], 'SAME')",
    "tf.conv(V, W3, [1, 2, 1, 2, 1], 'VALID')",
    "tf.conv(tf.cast(X, tf.float64), tf.cast(W, tf.float64), [1, 1, 1, 1], 'SAME')",
]

tf_values, test_same_values_as_tensorflow = expression_value_tests(
    PRELUDE, EXPRESSIONS, rtol=1e-5, atol=1e-5)
