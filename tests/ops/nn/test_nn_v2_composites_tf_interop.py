"""TF2-era tf.nn composites (conv1d_transpose, conv_transpose, atrous_conv2d_transpose,
with_space_to_batch, avg_pool_v2, max_pool_v2, silu, compute_average_loss,
scale_regularization_loss, the depthwise backprop aliases, conv3d_backprop_filter) and
tf.required_space_to_batch_paddings: values and gradients against TensorFlow 2.21 in
TF1 mode; skipped without TRAINFLOW_TF_PYTHON."""
from tf_interop import expression_value_tests

PRELUDE = """
import numpy as np
R = np.random.RandomState(11)
X = tf.constant(R.uniform(-1, 1, (2, 7, 8, 3)).astype(np.float32))
F = tf.constant(R.uniform(-1, 1, (3, 3, 4, 3)).astype(np.float32))
F2 = tf.constant(R.uniform(-1, 1, (2, 3, 4, 3)).astype(np.float32))
S = tf.constant(R.uniform(-1, 1, (2, 9, 3)).astype(np.float32))
F1 = tf.constant(R.uniform(-1, 1, (3, 4, 3)).astype(np.float32))
V = tf.constant(R.uniform(-1, 1, (2, 4, 5, 6, 3)).astype(np.float32))
F3 = tf.constant(R.uniform(-1, 1, (2, 2, 3, 4, 3)).astype(np.float32))
DW = tf.constant(R.uniform(-1, 1, (3, 3, 3, 2)).astype(np.float32))
L = tf.constant(R.uniform(0, 2, (6,)).astype(np.float32))
L2 = tf.constant(R.uniform(0, 2, (4, 3)).astype(np.float32))

def grad(y, x):
    w = tf.sin(tf.cast(tf.reshape(tf.range(tf.size(y)), tf.shape(y)), y.dtype) + 0.5)
    return tf.gradients(tf.reduce_sum(y * w), x)[0]

def conv(inp, n, padding):
    return tf.nn.conv2d(inp, tf.transpose(F, [0, 1, 3, 2]), [1, 1, 1, 1], padding)

def pool(inp, n, padding):
    return tf.nn.max_pool(inp, [1, 2, 3, 1], [1, 1, 1, 1], padding)
"""

EXPRESSIONS = [
    # atrous_conv2d_transpose: rates 1-3, SAME/VALID, odd/even sizes, gradients.
    "tf.nn.atrous_conv2d_transpose(X, F, [2, 7, 8, 4], 1, 'SAME')",
    "tf.nn.atrous_conv2d_transpose(X, F, [2, 7, 8, 4], 2, 'SAME')",
    "tf.nn.atrous_conv2d_transpose(X, F2, [2, 7, 8, 4], 3, 'SAME')",
    "tf.nn.atrous_conv2d_transpose(X, F, [2, 11, 12, 4], 2, 'VALID')",
    "tf.nn.atrous_conv2d_transpose(X, F2, [2, 10, 14, 4], 3, 'VALID')",
    "grad(tf.nn.atrous_conv2d_transpose(X, F, [2, 7, 8, 4], 2, 'SAME'), X)",
    "grad(tf.nn.atrous_conv2d_transpose(X, F, [2, 7, 8, 4], 2, 'SAME'), F)",
    "tf.nn.atrous_conv2d_transpose(X, F, tf.constant([2, 7, 8, 4]), 2, 'SAME')",
    # conv1d_transpose / conv_transpose in 1, 2 and 3 dims.
    "tf.nn.conv1d_transpose(S, F1, [2, 18, 4], 2)",
    "tf.nn.conv1d_transpose(S, F1, [2, 11, 4], 1, 'VALID')",
    "grad(tf.nn.conv1d_transpose(S, F1, [2, 18, 4], 2), S)",
    "grad(tf.nn.conv1d_transpose(S, F1, [2, 18, 4], 2), F1)",
    "tf.nn.conv_transpose(S, F1, [2, 18, 4], 2)",
    "tf.nn.conv_transpose(X, F, [2, 14, 16, 4], 2)",
    "tf.nn.conv_transpose(X, F, [2, 15, 17, 4], [2, 2], 'VALID')",
    "tf.nn.conv_transpose(V, F3, [2, 8, 10, 12, 4], 2)",
    "tf.nn.conv_transpose(V, F3, tf.constant([2, 4, 5, 6, 4]), 1)",
    # with_space_to_batch and required_space_to_batch_paddings.
    "tf.nn.with_space_to_batch(X, [2, 2], 'SAME', conv, filter_shape=[3, 3])",
    "tf.nn.with_space_to_batch(X, [2, 3], 'VALID', conv)",
    "tf.nn.with_space_to_batch(X, [1, 1], 'SAME', conv)",
    "tf.nn.with_space_to_batch(X, [3, 2], 'SAME', pool, filter_shape=tf.constant([2, 3]))",
    "grad(tf.nn.with_space_to_batch(X, [2, 2], 'SAME', conv, filter_shape=[3, 3]), X)",
    "tf.nn.with_space_to_batch(tf.transpose(X, [0, 3, 1, 2]), [2, 1], 'VALID', "
    "lambda i, n, p: tf.identity(i), data_format='NCHW')",
    "tf.nn.with_space_to_batch(V, [2], 'VALID', lambda i, n, p: i * 2.0, spatial_dims=[2])",
    "tf.concat(tf.required_space_to_batch_paddings([5, 6], [2, 4]), 0)",
    "tf.concat(tf.required_space_to_batch_paddings([5, 6, 7], [2, 4, 3], "
    "[[1, 0], [0, 1], [2, 2]]), 0)",
    "tf.concat(tf.required_space_to_batch_paddings(tf.shape(X)[1:3], [3, 3], "
    "[[1, 1], [0, 2]]), 0)",
    # pooling by rank.
    "tf.nn.avg_pool_v2(S, 2, 2, 'SAME')", "tf.nn.avg_pool_v2(X, [2, 3], [1, 2], 'VALID')",
    "tf.nn.avg_pool_v2(V, 2, 1, 'SAME')", "tf.nn.max_pool_v2(S, 3, 1, 'VALID')",
    "tf.nn.max_pool_v2(X, 2, [2, 1], 'SAME')", "tf.nn.max_pool_v2(V, [1, 2, 3], 2, 'SAME')",
    "tf.nn.max_pool_v2(X, 3, 2, [[0, 0], [1, 1], [1, 2], [0, 0]])",
    "grad(tf.nn.avg_pool_v2(V, 2, 1, 'SAME'), V)",
    "grad(tf.nn.max_pool_v2(S, 3, 1, 'VALID'), S)",
    # silu.
    "tf.nn.silu(X)", "tf.nn.silu(X, beta=0.5)", "grad(tf.nn.silu(X, 1.7), X)",
    # the distribution-strategy loss helpers, without a strategy.
    "tf.nn.compute_average_loss(L)", "tf.nn.compute_average_loss(L, sample_weight=L * 0.5)",
    "tf.nn.compute_average_loss(L2, sample_weight=[1.0, 0.0, 2.0, 1.0])",
    "tf.nn.compute_average_loss(L2, sample_weight=tf.ones([4, 3, 1]))",
    "tf.nn.compute_average_loss(L, global_batch_size=4)",
    "tf.nn.compute_average_loss(L, global_batch_size=0)",
    "grad(tf.nn.compute_average_loss(L2, sample_weight=L2), L2)",
    "tf.nn.scale_regularization_loss(L)", "tf.nn.scale_regularization_loss(3.5)",
    # the aliases of older ops.
    "tf.nn.depthwise_conv2d_backprop_filter(X, [3, 3, 3, 2], "
    "tf.nn.depthwise_conv2d_native(X, DW, [1, 1, 1, 1], 'SAME'), [1, 1, 1, 1], 'SAME')",
    "tf.nn.depthwise_conv2d_backprop_input([2, 7, 8, 3], DW, "
    "tf.nn.depthwise_conv2d_native(X, DW, [1, 2, 2, 1], 'VALID'), [1, 2, 2, 1], 'VALID')",
    "tf.nn.conv3d_backprop_filter(V, [2, 2, 3, 3, 4], "
    "tf.nn.conv3d(V, tf.transpose(F3, [0, 1, 2, 4, 3]), [1, 1, 1, 1, 1], 'SAME'), "
    "[1, 1, 1, 1, 1], 'SAME')",
]

tf_values, test_same_values_as_tensorflow = expression_value_tests(
    PRELUDE, EXPRESSIONS, rtol=2e-5, atol=2e-5)
