"""tf.tensor_scatter_nd_* (TensorScatterUpdate/Add/Sub/Min/Max) and their TF aliases
against TensorFlow: values, static shapes, gradients and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
t = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
v = tf.constant([1., 5., 2., 8.])
iv = tf.constant([10, 20, 30, 40])
"""

EXPRESSIONS = [
    "tf.tensor_scatter_nd_update(t, [[1], [3]], [[9., 9., 9.], [7., 7., 7.]])",
    "tf.tensor_scatter_nd_update(t, [[0, 2], [3, 0]], [-1., -2.])",
    "tf.tensor_scatter_update(v, [[2]], [6.])",
    "tf.tensor_scatter_nd_add(v, [[0], [0], [3]], [1., 2., 3.])",
    "tf.tensor_scatter_add(t, [[1, 1]], [100.])",
    "tf.tensor_scatter_nd_sub(iv, [[1], [1]], [5, 6])", "tf.tensor_scatter_sub(v, [[3]], [8.])",
    "tf.tensor_scatter_nd_min(v, [[1], [2]], [3., 3.])",
    "tf.tensor_scatter_nd_max(iv, np.array([[0], [3]], np.int64), [15, 5])",
    "tf.tensor_scatter_nd_update(t, [[5]], [[1., 1., 1.]])",
    "tf.tensor_scatter_nd_update(t, [[1]], [[1., 1.]])",
    "tf.gradients(tf.reduce_sum(tf.tensor_scatter_nd_update(t, [[1], [3]], "
    "tf.ones([2, 3]) * 2.) * t), t)",
    "tf.gradients(tf.reduce_sum(tf.tensor_scatter_nd_add(v, [[0], [2]], v[:2] * 2.) ** 2), v)",
    "tf.gradients(tf.reduce_sum(tf.tensor_scatter_nd_sub(v, [[1]], v[3:]) * v), v)",
    "tf.gradients(tf.reduce_sum(tf.tensor_scatter_nd_min(v, [[1], [3]], [3., 8.]) * "
    "[1., 2., 3., 4.]), v)",
    "tf.gradients(tf.reduce_sum(tf.tensor_scatter_nd_max(v, [[0], [1]], v[2:] * 1.) * "
    "[1., 2., 3., 4.]), v)",
]


test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
