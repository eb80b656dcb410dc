"""tf.sparse.softmax / maximum / minimum and the SparseDenseCwise ops against TensorFlow:
values, static shapes, gradients (softmax, cwise mul/div) and errors (cases from TF's
sparse_ops_test SparseSoftmaxTest / SparseMinimumMaximumTest)."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
ind = [[0, 0], [0, 2], [1, 1], [1, 2], [1, 3], [3, 0]]
x = tf.constant([1., -2., 3., 0.5, 4., -1.])
sp = tf.SparseTensor(ind, x, [4, 4])
sp3 = tf.SparseTensor([[0, 0, 0], [0, 0, 2], [0, 1, 1], [1, 0, 0], [1, 0, 1]],
                      tf.constant([2., 1., 5., -3., 0.], tf.float64), [2, 2, 3])
a = tf.SparseTensor([[0, 1], [1, 0], [2, 2]], [3., -1., 2.], [3, 3])
b = tf.SparseTensor([[0, 1], [1, 1], [2, 2]], [1., -4., 5.], [3, 3])
ai = tf.SparseTensor([[0], [2]], [4, -2], [4])
bi = tf.SparseTensor([[1], [2]], [-7, 3], [4])
dense = tf.constant([[1., 2., 3., 4.]])
col = tf.constant([[2.], [3.], [4.], [5.]])
spi = tf.SparseTensor(ind, [1, 2, 3, 4, 5, 6], [4, 4])
full = tf.reshape(tf.range(1., 17.), [4, 4])
"""

EXPRESSIONS = [
    "tf.sparse.softmax(sp)", "tf.sparse_softmax(sp3, name='sm')",
    "tf.sparse.softmax(tf.SparseTensor([[0, 0], [0, 1]], tf.constant([1., 1.], tf.float16),"
    " [1, 2]))",
    "tf.sparse.softmax(tf.SparseTensor([[0], [1]], [1., 2.], [3]))",
    "tf.sparse.softmax(tf.SparseTensor([[0, 0]], [1], [1, 1]))",
    "tf.gradients(tf.reduce_sum(tf.sparse.softmax(sp).values * tf.range(6.)), x)[0]",
    "tf.gradients(tf.sparse.softmax(sp).values[1], x)[0]",
    "tf.sparse.maximum(a, b)", "tf.sparse.minimum(a, b)", "tf.sparse_maximum(ai, bi)",
    "tf.sparse_minimum(ai, bi, name='lo')",
    "tf.sparse.maximum(a, tf.SparseTensor([[0, 0]], [1.], [3, 4]))",
    "tf.sparse.maximum(tf.SparseTensor(a.indices, tf.cast(a.values, tf.complex64), [3, 3]),"
    " tf.SparseTensor(b.indices, tf.cast(b.values, tf.complex64), [3, 3]))",
    "tf.gradients(tf.sparse.maximum(a, b).values, a.values)",
    "tf.sparse.softmax(sp3) * tf.constant([1., 2., 4.], tf.float64)",
    "sp * col",
    "sp / full",
    "sp * 3", "sp / 2", "spi / 2", "spi / tf.constant(2)", "sp.__div__(col)", "sp * tf.constant(2)",
    "sp * tf.ones([2, 4])", "sp * tf.ones([1, 4, 4])",
    "tf.gradients((sp * col).values, [x, col])",
    "tf.gradients(tf.reduce_sum((sp / dense).values ** 2), [x, dense])",
    "tf.gradients((sp * full).values, [x, full])",
    "tf.gradients((sp3 * tf.constant(2., tf.float64)).values, sp3.values)",
]

test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
