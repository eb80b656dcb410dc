"""tf.sparse_retain, tf.sparse_transpose and tf.sparse_mask (and their tf.sparse names)
against TensorFlow: op types, static shapes and values."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
sp = tf.SparseTensor([[0, 1], [1, 0], [1, 2], [2, 2]], [1., -2., 3., 0.5], [3, 4])
s3 = tf.SparseTensor([[0, 0, 1], [0, 1, 0], [1, 0, 1]], [4, 2, 7], [2, 2, 3])
sd = tf.sparse_placeholder(tf.float32)
islices = tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.], [5., 6.]]), tf.constant([0, 4, 7]),
                           tf.constant([10, 2]))
"""

EXPRESSIONS = [
    "tf.sparse_retain(sp, [True, False, True, True])",
    "tf.sparse.retain(sp, tf.constant([False] * 4))", "tf.sparse_retain(sp, [True, False])",
    "tf.sparse_transpose(sp)", "tf.sparse.transpose(s3, [1, 0, 2])",
    "tf.sparse_transpose(s3, [2, 0, 1], name='tr')",
    "tf.sparse_transpose(sp).dense_shape", "tf.sparse.transpose(sd).dense_shape.shape",
    "tf.sparse_mask(islices, [4]).values", "tf.sparse.mask(islices, [0, 7]).indices",
    "tf.sparse_mask(islices, [9]).dense_shape",
]


test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
