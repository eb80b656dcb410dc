"""SpaceToBatchND, BatchToSpaceND, Roll and UnravelIndex (and their gradients) against
TensorFlow: the op types built, static shapes, dtypes and values."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
x = tf.constant(np.arange(2 * 4 * 6 * 3, dtype=np.float32).reshape(2, 4, 6, 3))
v = tf.constant(np.arange(10, dtype=np.float64))
m = tf.constant(np.arange(12, dtype=np.int64).reshape(3, 4))
u = tf.placeholder_with_default(np.arange(24, dtype=np.float32).reshape(1, 4, 6, 1),
                                [None, None, None, 1])
"""

EXPRESSIONS = [
    "tf.space_to_batch_nd(x, [2, 3], [[0, 0], [0, 0]])",
    "tf.space_to_batch_nd(x, [2, 2], [[1, 1], [0, 2]])",
    "tf.space_to_batch_nd(x, [4], [[0, 0]])",
    "tf.space_to_batch_nd(x, np.array([2], np.int64), np.array([[1, 1]], np.int64))",
    "tf.space_to_batch_nd(u, [2, 2], [[0, 0], [0, 0]])",
    "tf.space_to_batch_nd(x, [3, 3], [[0, 0], [0, 0]])",
    "tf.batch_to_space_nd(tf.space_to_batch_nd(x, [2, 2], [[1, 1], [0, 2]]), [2, 2], "
    "[[1, 1], [0, 2]])",
    "tf.batch_to_space_nd(x, [2, 1], [[1, 0], [0, 3]])",
    "tf.batch_to_space_nd(u, [1, 1], [[0, 1], [2, 0]])",
    "tf.space_to_batch(x, [[0, 0], [2, 0]], 2)",
    "tf.space_to_batch(x, [[0, 0], [0, 0]], block_size=2, name='s2b')",
    "tf.batch_to_space(tf.concat([x, x], 0), [[1, 1], [0, 0]], 2)",
    "tf.manip.space_to_batch_nd(x, [1, 2], [[0, 0], [1, 1]])",
    "tf.gradients(tf.reduce_sum(tf.space_to_batch_nd(x, [2, 2], [[1, 1], [0, 2]]) ** 2), x)[0]",
    "tf.gradients(tf.reduce_sum(tf.batch_to_space_nd(x, [2, 1], [[1, 0], [0, 3]]) * 3.), x)[0]",
    "tf.roll(v, 3, 0)", "tf.roll(v, -13, 0)", "tf.roll(m, [1, -1], [0, 1])",
    "tf.roll(m, [1, 2], [1, 1])", "tf.roll(m, 1, -1)", "tf.manip.roll(m, np.int64(5), 0)",
    "tf.roll(m, [1], [2])",
    "tf.gradients(tf.reduce_sum(tf.roll(v, 2, 0) * tf.range(10, dtype=tf.float64)), v)[0]",
    "tf.unravel_index([0, 5, 11], [3, 4])", "tf.unravel_index(7, [2, 2, 2])",
    "tf.unravel_index(np.array([3, 1], np.int64), np.array([2, 2], np.int64))",
    "tf.unravel_index([9], [2, 3])",
    "tf.manip.tile(m, [2, 1])", "tf.manip.reverse(m, [1])", "tf.manip.reshape(m, [-1])",
    "tf.manip.gather_nd(m, [[1, 2]])", "tf.manip.scatter_nd([[1]], [5], [3])",
]


test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
