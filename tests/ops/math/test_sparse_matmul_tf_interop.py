"""tf.sparse_matmul (SparseMatMul) and tf.matmul's sparsity hints against TensorFlow: the op
types, float32 products of float32/bfloat16 inputs, transposes and the gradients."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
a = tf.constant([[1., 0., 2.], [0., 0., 3.]])
b = tf.constant([[0., 1.], [4., 0.], [0., -2.]])
a16 = tf.cast(a, tf.bfloat16)
b16 = tf.cast(b, tf.bfloat16)
sq = tf.constant([[1., 2.], [3., 4.]])
"""

EXPRESSIONS = [
    "tf.sparse_matmul(a, b)", "tf.sparse_matmul(a, b, a_is_sparse=True, name='sm')",
    "tf.sparse_matmul(a, a, transpose_b=True)", "tf.sparse_matmul(b, b, transpose_a=True)",
    "tf.sparse_matmul(b, a, transpose_a=True, transpose_b=True)",
    "tf.sparse_matmul(a16, b)", "tf.sparse_matmul(a16, b16, b_is_sparse=True)",
    "tf.sparse_matmul(a, tf.ones([2, 2]))", "tf.sparse_matmul(tf.cast(a, tf.float64), b)",
    "tf.matmul(a, b, a_is_sparse=True)", "tf.matmul(a16, b16, b_is_sparse=True)",
    "tf.matmul(a16, b)", "tf.matmul(a, b, b_is_sparse=True, transpose_a=False)",
    "tf.matmul(tf.cast(a, tf.float64), tf.cast(b, tf.float64), a_is_sparse=True)",
    "tf.matmul(tf.ones([2, 2, 2]), tf.ones([2, 2, 2]), a_is_sparse=True)",
    "tf.gradients(tf.sparse_matmul(a, b), [a, b])",
    "tf.gradients(tf.sparse_matmul(a, a, transpose_b=True, a_is_sparse=True), a)",
    "tf.gradients(tf.sparse_matmul(b, b, transpose_a=True) * sq, b)",
    "tf.gradients(tf.sparse_matmul(b, a, transpose_a=True, transpose_b=True), [a, b])",
    "tf.gradients(tf.sparse_matmul(a16, b, b_is_sparse=True), [a16, b])",
    "tf.gradients(tf.sparse_matmul(tf.nn.relu(sq), sq), sq)",
]

test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
