"""tf.sparse_reshape / tf.sparse.reshape against TensorFlow: static and inferred shapes,
a -1, unknown input shapes, the values' gradient and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
vals = tf.constant([1., -2., 3., 0.5])
sp = tf.SparseTensor([[0, 1], [1, 0], [1, 2], [2, 3]], vals, [3, 4])
sd = tf.SparseTensor(tf.placeholder_with_default(np.array([[0, 1], [2, 3]], np.int64),
                                                 [None, 2]),
                     [1, 2], tf.placeholder_with_default(np.array([3, 4], np.int64), [2]))
"""

EXPRESSIONS = [
    "tf.sparse_reshape(sp, [4, 3])", "tf.sparse_reshape(sp, [2, -1])",
    "tf.sparse.reshape(sp, [12])", "tf.sparse_reshape(sp, [2, 3, 2], name='r')",
    "tf.sparse_reshape(sd, [-1, 6])", "tf.sparse_reshape(sd, tf.constant([6, 2], tf.int32))",
    "tf.sparse_reshape(sp, [5, -1])", "tf.sparse_reshape(sp, [-1, -1])",
    "tf.sparse_reshape(sp, [5, 2])", "tf.sparse_reshape(sd, [5, 2])",
    "tf.gradients(tf.reduce_sum(tf.sparse_reshape(sp, [6, 2]).values * 3.), vals)[0]",
]


test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
