"""tf.sparse_add / tf.sparse.add against TensorFlow: sparse + sparse (merge order, sums,
thresholds, cancellation), sparse + dense both ways, static shapes, gradients and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
av = tf.constant([1., -2., 3.])
bv = tf.constant([2., 0.5, -3., 4.])
a = tf.SparseTensor([[0, 1], [1, 0], [2, 2]], av, [3, 3])
b = tf.SparseTensor([[0, 0], [0, 1], [2, 2], [2, 1]], bv, [3, 3])
b_sorted = tf.sparse.reorder(b)
d = tf.constant(np.arange(9, dtype=np.float32).reshape(3, 3))
sp_unknown = tf.sparse_placeholder(tf.float32)
"""

EXPRESSIONS = [
    "tf.sparse_add(a, b_sorted)", "tf.sparse_add(a, b_sorted, threshold=1.)",
    "tf.sparse_add(a, b_sorted, thresh=2.5)", "tf.sparse.add(b_sorted, a)",
    "tf.sparse_add(a, d)", "tf.sparse_add(d, a)", "tf.sparse_add(d, d)",
    "tf.sparse_add(a, tf.SparseTensor([[0, 0]], [1.], [3, 4]))",
    "tf.sparse_add(a, b_sorted, threshold=1., thresh=1.)",
    "tf.gradients(tf.reduce_sum(tf.sparse_add(a, b_sorted).values * "
    "tf.range(5, dtype=tf.float32)), [av, bv])",
    "tf.gradients(tf.reduce_sum(tf.sparse_add(a, b_sorted, threshold=1.5).values ** 2), "
    "[av, bv])",
    "tf.gradients(tf.reduce_sum(tf.sparse_add(a, d) ** 2), [av, d])",
]


test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
