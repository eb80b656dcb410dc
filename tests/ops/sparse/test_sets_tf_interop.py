"""`tf.sets` against TensorFlow: dense and sparse operands, every operation, strings, the
flipped (sparse, dense) order, empty results, set sizes and TF's errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
a = tf.constant([[1, 2, 2, 3], [4, 5, 6, 4]])
b = tf.constant([[3, 1, 7, 7], [8, 8, 8, 8]])
sa = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0], [1, 1, 1]],
                     [1, 2, 3, 4, 5, 6], [2, 2, 2])
sb = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0],
                      [1, 1, 1], [1, 1, 2], [1, 1, 3]], [1, 3, 2, 4, 5, 5, 6, 7, 8], [2, 2, 4])
da = tf.constant([[[1, 2], [3, 3]], [[4, 0], [5, 6]]])
s64 = tf.SparseTensor([[0, 1], [2, 0], [2, 3]], tf.constant([7, 7, 1], tf.int64), [4, 5])
strs = tf.constant([["a", "b", "a"], ["c", "d", "e"]])
unsorted = tf.SparseTensor([[1, 0], [0, 0]], [1, 2], [2, 3])
sc = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [5, 5, 3], [2, 3])
"""

EXPRESSIONS = [
    "tf.sets.intersection(a, b)", "tf.sets.union(a, b)", "tf.sets.difference(a, b)",
    "tf.sets.difference(a, b, aminusb=False)", "tf.sets.set_intersection(sa, sb)",
    "tf.sets.set_union(sa, sb)", "tf.sets.set_difference(sa, sb)",
    "tf.sets.set_difference(sb, sa)", "tf.sets.intersection(da, sb)",
    "tf.sets.union(sb, da)", "tf.sets.difference(sb, da)", "tf.sets.difference(da, sb)",
    "tf.sets.intersection([[1, 2]], [[3, 4]])", "tf.sets.union(strs, [['e', 'a', 'z']] * 2)",
    "tf.sets.difference(strs, [['a', 'a', 'a'], ['x', 'd', 'y']])", "tf.sets.size(sa)",
    "tf.sets.set_size(sb)", "tf.sets.size(s64)", "tf.sets.size(unsorted, validate_indices=False)",
    "tf.sets.size(a)",
    "tf.sets.union(a, tf.constant([[1.]]))", "tf.sets.union([1, 2], [2])",
    "tf.sets.union(a, [[1, 2, 3]])", "tf.sets.union(a, tf.constant([[1, 2]], tf.int64))",
    "tf.sets.intersection(sa, tf.SparseTensor([[0, 0]], [1], [3, 4]))",
    "tf.sets.intersection(sc, tf.SparseTensor([[0, 0]], [5], [3, 4]))",
    "tf.sets.union(a, sc)", "tf.sets.union(tf.constant([[1, 2], [3, 4], [5, 6]]), sc)",
    "tf.sets.union(tf.placeholder(tf.int32, [None, None, 2]), sb).dense_shape",
    "tf.sets.union(tf.constant([[1.5]]), tf.constant([[2.5]]))",
    "tf.sets.intersection(tf.zeros([2, 0], tf.int32), tf.zeros([2, 0], tf.int32))",
]


test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
