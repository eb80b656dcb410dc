"""tf.sparse_tensor_dense_matmul (SparseTensorDenseMatMul) against TensorFlow: every
adjoint combination, a sparse right operand, duplicates, static shapes, gradients for
the values and the matrix, and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
vals = tf.constant([1., -2., 3., 0.5])
sp = tf.SparseTensor([[0, 1], [1, 0], [1, 2], [2, 2]], vals, [3, 3])
sq = tf.SparseTensor([[0, 0], [0, 0], [1, 1]], [1., 2., 3.], [2, 2])
b = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 4.)
c = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) - 2.)
p = tf.placeholder_with_default(np.ones([3, 2], np.float32), [None, 2])
"""

EXPRESSIONS = [
    "tf.sparse_tensor_dense_matmul(sp, b)", "tf.sparse_tensor_dense_matmul(sp, b, adjoint_a=True)",
    "tf.sparse_tensor_dense_matmul(sp, c, adjoint_b=True)",
    "tf.sparse_tensor_dense_matmul(sp, c, adjoint_a=True, adjoint_b=True)",
    "tf.sparse.matmul(sq, [[1., 2.], [3., 4.]])", "tf.sparse.sparse_dense_matmul(sp, p)",
    "tf.sparse_tensor_dense_matmul(c, sp)", "tf.sparse_tensor_dense_matmul(c, sp, adjoint_b=True)",
    "tf.sparse_tensor_dense_matmul(sp, c)",
    "tf.sparse_tensor_dense_matmul(tf.SparseTensor([[0, 5]], [1.], [3, 3]), b)",
    "tf.gradients(tf.reduce_sum(tf.sparse_tensor_dense_matmul(sp, b) ** 2), [vals, b])",
    "tf.gradients(tf.reduce_sum(tf.sparse_tensor_dense_matmul(sp, b, adjoint_a=True) * 2.), "
    "[vals, b])",
    "tf.gradients(tf.reduce_sum(tf.sparse_tensor_dense_matmul(sp, c, adjoint_b=True) ** 2), "
    "[vals, c])",
    "tf.gradients(tf.reduce_sum(tf.sparse_tensor_dense_matmul(sp, c, adjoint_a=True, "
    "adjoint_b=True) ** 2), [vals, c])",
]


test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
