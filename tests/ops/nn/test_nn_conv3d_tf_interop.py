"""3-D convolution/pooling, 1-D pools and total_variation (values and gradients)
against TensorFlow 2.21 in TF1 mode; skipped without TRAINFLOW_TF_PYTHON."""
from tf_interop import expression_value_tests

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

tf_values, test_same_values_as_tensorflow = expression_value_tests(
    PRELUDE, EXPRESSIONS, rtol=2e-5, atol=2e-5)
