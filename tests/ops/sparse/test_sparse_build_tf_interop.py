"""tf.sparse.from_dense / eye / expand_dims / reset_shape / merge / to_indicator,
tf.edit_distance and tf.io.(de)serialize_many_sparse against TensorFlow: op types, static
shapes, values and errors (cases from TF's sparse_ops_test, edit_distance_op_test and
sparse_serialization_ops_test)."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
sp = tf.SparseTensor([[0, 0, 0], [0, 1, 0], [1, 0, 3], [1, 1, 0], [1, 1, 1]],
                     [0, 10, 13, 14, 32], [2, 2, 4])
ids = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [2, 0], [2, 1]],
                      tf.constant([0, 3, 1, 2, 4, 3], tf.int64), [3, 3])
ids32 = tf.SparseTensor(ids.indices, tf.cast(ids.values, tf.int32), [3, 3])
wts = tf.SparseTensor(ids.indices, [.1, .2, .3, .4, .5, .6], [3, 3])
unk = tf.SparseTensor(tf.placeholder_with_default(np.array([[0, 1], [2, 0]], np.int64),
                                                  [None, 2]),
                      [7., 8.], tf.placeholder_with_default(np.array([3, 4], np.int64), [2]))
h = tf.SparseTensor([[0, 0, 0], [1, 0, 0], [1, 0, 1]], ["a", "b", "c"], [2, 1, 2])
t = tf.SparseTensor([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 0, 2]], ["a", "b", "d", "c"],
                    [2, 2, 3])
hi = tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [3, 0]], [1, 2, 3, 4, 5, 9],
                     [4, 3])
ti = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]], [1, 3, 4, 7, 7], [4, 3])
batch = tf.SparseTensor([[0, 0], [0, 3], [2, 1]], [1.5, 2.5, 3.5], [3, 5])
"""

EXPRESSIONS = [
    # from_dense, eye, expand_dims
    "tf.sparse.from_dense([[0, 1., 0], [2., 0, 3.]])", "tf.sparse.from_dense([True, False])",
    "tf.sparse.from_dense(tf.placeholder_with_default([[0, 5], [6, 0]], [None, None]))",
    "tf.sparse.from_dense(['', 'x'], name='fd')",
    "tf.sparse.eye(3)", "tf.sparse.eye(2, 4, dtype=tf.int32)", "tf.sparse.eye(5, 2)",
    "tf.sparse.eye(tf.constant(3), name='e')", "tf.sparse.eye(2.5)",
    "tf.sparse.expand_dims(sp)", "tf.sparse.expand_dims(sp, 0)",
    "tf.sparse.expand_dims(sp, 1)", "tf.sparse.expand_dims(sp, -2)",
    "tf.sparse.expand_dims(unk, tf.constant(1))", "tf.sparse.expand_dims(sp, 1.5)",
    # reset_shape
    "tf.sparse.reset_shape(sp)", "tf.sparse_reset_shape(sp, [3, 4, 5])",
    "tf.sparse_reset_shape(unk, tf.constant([4, 5]))", "tf.sparse_reset_shape(unk)",
    "tf.sparse_reset_shape(sp, [1, 2, 4])", "tf.sparse_reset_shape(sp, [3, 4])",
    "tf.sparse_reset_shape(unk, tf.placeholder_with_default([3, 3], [2]))",
    "tf.sparse_reset_shape(sp, [[3, 4, 5]])",
    # merge, to_indicator
    "tf.sparse.merge(ids, wts, 5)", "tf.sparse_merge(ids32, wts, tf.constant(6))",
    "tf.sparse_merge(ids, wts, 5, already_sorted=True)",
    "tf.sparse_merge([ids, ids32], wts, [5, 6])", "tf.sparse_merge(ids, wts, 5.0)",
    "tf.sparse_merge([ids, ids], wts, [5])", "tf.sparse_merge(ids, wts, [5, 6])",
    "tf.sparse.to_indicator(ids, 5)", "tf.sparse_to_indicator(ids32, 6, name='ind')",
    "tf.sparse_to_indicator(sp, 40)",
    # edit_distance
    "tf.edit_distance(h, t)", "tf.edit_distance(h, t, normalize=False)",
    "tf.edit_distance(hi, ti)", "tf.edit_distance(hi, ti, normalize=False, name='ed')",
    "tf.edit_distance(ti, hi)", "tf.edit_distance(unk, unk)",
    "tf.edit_distance(tf.SparseTensor(np.zeros((0, 2), np.int64), [], [2, 3]),"
    " tf.SparseTensor([[1, 0]], [1.], [2, 3]))",
    "tf.edit_distance(hi, ti.values)", "tf.edit_distance(hi, tf.cast(ti, tf.int64))",
    # serialize_many_sparse / deserialize_many_sparse
    "tf.deserialize_many_sparse(tf.serialize_many_sparse(batch), tf.float32)",
    "tf.io.deserialize_many_sparse(tf.io.serialize_many_sparse(batch), tf.float32, rank=2)",
    "tf.io.deserialize_many_sparse(tf.stack([tf.io.serialize_sparse(unk),"
    " tf.serialize_sparse(tf.SparseTensor([[0, 0]], [1.], [1, 6]))]), tf.float32)",
    "tf.io.deserialize_many_sparse(tf.serialize_many_sparse(batch), tf.int32)",
    "tf.io.deserialize_many_sparse(tf.serialize_sparse(batch), tf.float32)",
    "tf.strings.length(tf.serialize_sparse(batch))",
    "tf.strings.length(tf.serialize_many_sparse(batch, name='many'))",
    "tf.strings.length(tf.serialize_sparse(tf.SparseTensor([[0], [2]], ['ab', ''], [3])))",
    "tf.strings.length(tf.serialize_sparse(tf.SparseTensor([[1, 1]], [True], [2, 4])))",
    "tf.deserialize_many_sparse(tf.stack([tf.serialize_sparse(tf.SparseTensor([[0], [2]],"
    " ['ab', 'xyz'], [3]))]), tf.string)",
]

test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
