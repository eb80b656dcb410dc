"""tf.sparse_concat / tf.sparse.concat against TensorFlow: both axes, negative axes,
expand_nonconcat_dim, strings, unknown shapes, the older argument names and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
a = tf.SparseTensor([[0, 2], [1, 0], [1, 1]], ["a", "b", "c"], [2, 3])
b = tf.SparseTensor([[0, 1], [0, 2]], ["d", "e"], [2, 4])
c = tf.SparseTensor([[0, 0], [2, 1]], [1., 2.], [3, 2])
d = tf.SparseTensor([[1, 1]], [5.], [2, 3])
u = tf.SparseTensor(tf.placeholder_with_default(np.array([[0, 0]], np.int64), [None, 2]),
                    [7.], tf.placeholder_with_default(np.array([2, 2], np.int64), [2]))
"""

EXPRESSIONS = [
    "tf.sparse_concat(1, [a, b])", "tf.sparse_concat(-1, [a, b, a])",
    "tf.sparse.concat(0, [c, tf.SparseTensor([[0, 1]], [9.], [1, 2])])",
    "tf.sparse_concat(0, [c, d], expand_nonconcat_dim=True)",
    "tf.sparse_concat(1, [c, d], expand_nonconcat_dims=True)",
    "tf.sparse_concat(None, [a, b], concat_dim=1)", "tf.sparse_concat(1, [a])",
    "tf.sparse_concat(0, [a, b])",
    "tf.sparse_concat(1, [d, u])", "tf.sparse_concat(1, (a, b))", "tf.sparse_concat(0, [])",
]


test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
