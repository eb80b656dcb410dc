"""tf.random.stateless_uniform / stateless_normal / stateless_truncated_normal against
TensorFlow: the same numbers for the same seed (TF's Philox, key scramble, output groups
and distributions), static shapes, op types and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
s = tf.constant([7, -3])
s64 = tf.constant([2**40 + 5, -(2**35)], tf.int64)
"""

EXPRESSIONS = [
    "tf.random.stateless_uniform([3, 5], [1, 2])", "tf.random.stateless_uniform([7], s)",
    "tf.random.stateless_uniform([2, 3], s64, minval=-2., maxval=5.)",
    "tf.random.stateless_uniform([5], s, dtype=tf.float64)",
    "tf.random.stateless_uniform([4], s, dtype=tf.float16)",
    "tf.random.stateless_uniform([9], s, minval=3, maxval=17, dtype=tf.int32)",
    "tf.random.stateless_uniform([5], s, minval=-10, maxval=2**40, dtype=tf.int64)",
    "tf.random.stateless_uniform([6], s, minval=None, maxval=None, dtype=tf.int32)",
    "tf.random.stateless_uniform([3], s, minval=None, maxval=None, dtype=tf.uint64)",
    "tf.random.stateless_uniform([3], s, dtype=tf.int32)",
    "tf.random.stateless_uniform([3], s, alg='philox')",
    "tf.random.stateless_uniform([0, 2], s)",
    "tf.random.stateless_normal([3, 5], [1, 2])", "tf.random.stateless_normal([7], s, 2., 3.)",
    "tf.random.stateless_normal([5], s64, dtype=tf.float64)",
    "tf.random.stateless_normal([2, 2], s, dtype=tf.bfloat16)",
    "tf.random.stateless_truncated_normal([13], s)",
    "tf.random.stateless_truncated_normal([3, 3], s64, stddev=0.5)",
    "tf.random.stateless_truncated_normal([7], s, dtype=tf.float64)",
    "tf.random.stateless_uniform([2], [1, 2, 3])",
    "tf.random.stateless_categorical(tf.log([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]]), 6, s)",
    "tf.random.stateless_multinomial(tf.constant([[1., 2., -np.inf, 0.]]), 9, s64, tf.int32)",
    "tf.random.stateless_categorical(tf.zeros([3, 5], tf.float64), 1, [4, 4], tf.int32)",
    "tf.random.stateless_categorical(tf.zeros([3, 5]), 0, s)",
    "tf.random.stateless_categorical(tf.zeros([5]), 2, s)",
    "tf.random.stateless_categorical(tf.zeros([2, 5]), 2, s, dtype=tf.float32)",
    "tf.random.stateless_uniform([3], s, alg=tf.random.Algorithm.PHILOX)",
    "tf.random.stateless_normal([3], s, alg=tf.random.Algorithm.AUTO_SELECT)",
    "tf.random.Algorithm.THREEFRY.value + tf.constant(0)",
    "tf.random.split(s)", "tf.random.split(s64, 3)", "tf.random.fold_in(s, 5)",
    "tf.random.fold_in(s64, tf.constant(7, tf.int64))",
    "tf.gradients(tf.random.stateless_normal([2], s, mean=tf.constant(1.)), "
    "tf.constant(1.))",
]

test_stateless_matches_tf = comparison_test(
    PRELUDE, EXPRESSIONS, rtol=1e-5,
    ops_differ=frozenset(["tf.random.stateless_uniform([3], s, alg='philox')",
                          "tf.random.stateless_uniform([3], s, alg=tf.random.Algorithm.PHILOX)"]))
