"""tf.sparse.bincount against TensorFlow: dense and sparse inputs, axis 0 and -1, weights,
binary output, minlength / maxlength and errors (cases from TF's bincount_ops_test)."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
x = tf.constant([[3, 2, 1], [5, 4, 4]])
w = tf.constant([[.5, 1., 2.], [3., 4., 5.]])
sp = tf.SparseTensor([[0, 0], [0, 3], [2, 1], [2, 4], [3, 2]], [3, 1, 5, 5, 0], [4, 6])
spw = tf.SparseTensor(sp.indices, [.1, .2, .3, .4, .5], [4, 6])
sp64 = tf.SparseTensor([[1], [4]], tf.constant([7, 2], tf.int64), [6])
"""

EXPRESSIONS = [
    "tf.sparse.bincount(x)", "tf.sparse.bincount(x, axis=-1)",
    "tf.sparse.bincount(x, axis=None, name='c')",
    "tf.sparse.bincount(x, weights=w)", "tf.sparse.bincount(x, weights=w, axis=-1)",
    "tf.sparse.bincount(x, binary_output=True, axis=-1)",
    "tf.sparse.bincount(x, minlength=8)", "tf.sparse.bincount(x, maxlength=4, axis=-1)",
    "tf.sparse.bincount(x, minlength=2, maxlength=3)",
    "tf.sparse.bincount([1, 1, 1, 0])", "tf.sparse.bincount(tf.constant([], tf.int32))",
    "tf.sparse.bincount(tf.constant([2, 9], tf.int64), minlength=3)",
    "tf.sparse.bincount(sp)", "tf.sparse.bincount(sp, axis=-1)",
    "tf.sparse.bincount(sp, weights=spw)", "tf.sparse.bincount(sp, weights=spw, axis=-1)",
    "tf.sparse.bincount(sp, binary_output=True, axis=-1, maxlength=5)",
    "tf.sparse.bincount(sp64, axis=-1)",
    "tf.sparse.bincount(x, weights=w, binary_output=True)", "tf.sparse.bincount(x, axis=1)",
    "tf.sparse.bincount(sp, weights=w)", "tf.sparse.bincount(x, weights=spw, axis=-1)",
    "tf.sparse.bincount([[1, -1]], axis=-1)", "tf.sparse.bincount(tf.ones([2, 2, 2], tf.int32),"
    " axis=-1)",
    "tf.sparse.bincount(x, weights=[[1., 2.], [3., 4.]], axis=-1)",
]

test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
