"""tf.sparse.slice / tf.sparse.split against TensorFlow: values, static shapes, clipping,
uneven splits, the slice's values gradient and errors (cases from TF's
sparse_slice_op_test and sparse_split_op_test)."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

# TF's test tensors: a 4x6 and a 5x7 matrix of 10 * row + column, and a 3-D one.
PRELUDE = """
ind46 = [[0, 0], [0, 2], [0, 4], [0, 5], [1, 1], [1, 3], [1, 4], [2, 0], [2, 3], [2, 5],
         [3, 0], [3, 2], [3, 3], [3, 5]]
vals46 = tf.constant([0., 2, 4, 5, 11, 13, 14, 20, 23, 25, 30, 32, 33, 35])
sp46 = tf.SparseTensor(ind46, vals46, [4, 6])
ind57 = [[0, 0], [0, 2], [0, 4], [0, 5], [1, 1], [1, 3], [1, 4], [1, 6], [2, 0], [2, 3],
         [2, 5], [3, 0], [3, 2], [3, 3], [3, 5], [4, 4], [4, 6]]
sp57 = tf.SparseTensor(ind57, [0, 2, 4, 5, 11, 13, 14, 16, 20, 23, 25, 30, 32, 33, 35, 44, 46],
                       [5, 7])
sp3 = tf.SparseTensor([[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0], [1, 2, 2]],
                      [1, 2, 3, 4, 5], [2, 3, 3])
unk = tf.SparseTensor(tf.placeholder_with_default(np.array(ind46, np.int64), [None, None]),
                      vals46, tf.placeholder_with_default(np.array([4, 6], np.int64), [None]))
"""

EXPRESSIONS = [
    # slice
    "tf.sparse.slice(sp46, [0, 0], [2, 6])", "tf.sparse.slice(sp46, [2, 0], [3, 7])",
    "tf.sparse_slice(sp46, [0, 0], [4, 3])", "tf.sparse_slice(sp46, [0, 3], [4, 2])",
    "tf.sparse_slice(sp46, [0, 5], [4, 3])", "tf.sparse.slice(sp57, [1, 2], [3, 4])",
    "tf.sparse.slice(sp57, [4, 0], [3, 3])", "tf.sparse.slice(sp57, [6, 0], [3, 3])",
    "tf.sparse.slice(sp3, [0, 1, 1], [2, 2, 2])", "tf.sparse.slice(sp3, [1, 0, 0], [1, 3, 3])",
    "tf.sparse.slice(unk, [1, 1], [2, 3], name='cut')",
    "tf.sparse.slice(sp46, [0], [2])", "tf.sparse.slice(sp46, [0, 0, 0], [2, 2, 2])",
    "tf.gradients(tf.reduce_sum(tf.sparse.slice(sp46, [1, 1], [2, 3]).values * 2.), vals46)[0]",
    "tf.gradients(tf.sparse.slice(sp46, [0, 4], [4, 2]).values, vals46)[0]",
    # split
    "tf.sparse.split(sp_input=sp46, num_split=2, axis=0)",
    "tf.sparse.split(sp_input=sp46, num_split=4, axis=0)",
    "tf.sparse.split(sp_input=sp46, num_split=3, axis=1)",
    "tf.sparse_split(sp_input=sp57, num_split=2, axis=1)",
    "tf.sparse_split(sp_input=sp57, num_split=3, axis=0)",
    "tf.sparse_split(sp_input=sp57, num_split=4, axis=-1)",
    "tf.sparse_split(sp_input=sp57, num_split=1, axis=1)",
    "tf.sparse.split(sp_input=sp3, num_split=2, axis=2, name='parts')",
    "tf.sparse.split(sp_input=unk, num_split=2, axis=1)",
    "tf.sparse.split(sp_input=sp46, num_split=7, axis=1)",
    "tf.sparse.split(sp_input=sp46, num_split=2, axis=2)",
    "tf.sparse.split(sp46, 2, 1)",
    "tf.gradients(tf.sparse.split(sp_input=sp46, num_split=2, axis=1)[0].values, vals46)",
    "tf.sparse.split(sp_input=sp46, num_split=2)",
    "tf.sparse.split(num_split=2, axis=1)",
    "tf.sparse.split(sp_input=sp46, num_split=2, split_dim=1)",
    "tf.sparse.split(sp_input=sp46, num_split=2, axis=1, split_dim=1)",
]

test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
