"""tf.sparse_reduce_sum / _max and their `_sparse` forms (and tf.sparse.reduce_*) against
TensorFlow: values, static shapes, keepdims, negative and repeated axes, the sum's
gradient and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
sp = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], [-1., -2., 3.], [3, 3])
s3 = tf.SparseTensor([[0, 0, 1], [0, 1, 0], [1, 0, 1], [1, 1, 1]],
                     tf.constant([4, 2, 7, -5], tf.int64), [2, 2, 2])
vals = tf.constant([1., 2., 3.])
sv = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], vals, [2, 3])
"""

EXPRESSIONS = [
    "tf.sparse_reduce_sum(sp)", "tf.sparse_reduce_sum(sp, 1)", "tf.sparse_reduce_sum(sp, -1)",
    "tf.sparse_reduce_sum(sp, 0, keepdims=True)", "tf.sparse_reduce_sum(sp, [0, 1])",
    "tf.sparse_reduce_sum(s3, [0, 2])", "tf.sparse_reduce_sum(s3, reduction_axes=1)",
    "tf.sparse_reduce_sum(s3, 1, keep_dims=True)", "tf.sparse.reduce_sum(s3, [1, -2])",
    "tf.sparse_reduce_max(sp)", "tf.sparse_reduce_max(sp, 1)", "tf.sparse_reduce_max(s3, 2)",
    "tf.sparse.reduce_max(s3, [0, 1], keepdims=True)", "tf.sparse_reduce_sum_sparse(sp, 1)",
    "tf.sparse_reduce_sum_sparse(sp, [0, 1], keepdims=True)",
    "tf.sparse.reduce_sum_sparse(s3, 0)", "tf.sparse_reduce_max_sparse(sp, 1)",
    "tf.sparse.reduce_max_sparse(s3, 2, keepdims=True)", "tf.sparse_reduce_sum(sp, 2)",
    "tf.sparse_reduce_sum(sp, 1, keepdims=True, keep_dims=True)",
    "tf.gradients(tf.reduce_sum(tf.sparse_reduce_sum(sv, 1) * [2., 3.]), vals)[0]",
    "tf.gradients(tf.reduce_sum(tf.sparse_reduce_sum(sv, 0, keepdims=True) * [[1., 2., 3.]]), "
    "vals)[0]",
    "tf.gradients(tf.sparse_reduce_max(sv), vals)",
]


test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
