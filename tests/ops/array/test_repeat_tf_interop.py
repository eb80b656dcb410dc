"""tf.repeat against TensorFlow: scalar and per-element counts, every axis, flattening,
unknown sizes, zero counts, its gradient and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
m = tf.constant([[1., 2., 3.], [4., 5., 6.]])
p = tf.placeholder_with_default(np.arange(6, dtype=np.int64).reshape(3, 2), [None, None])
"""

EXPRESSIONS = [
    "tf.repeat(m, 2)", "tf.repeat(m, 2, axis=0)", "tf.repeat(m, [1, 3], axis=0)",
    "tf.repeat(m, [2, 0, 1], axis=1)", "tf.repeat(m, 3, axis=-1)", "tf.repeat(5, 3)",
    "tf.repeat(['a', 'b'], [2, 1])", "tf.repeat(p, 2, axis=1)", "tf.repeat(p, [1, 0, 2], 0)",
    "tf.repeat(m, [0, 0], axis=0)", "tf.repeat(m, np.int64(2), axis=1, name='rep')",
    "tf.repeat(m, 2, axis=2)", "tf.repeat(m, [1, 2, 3], axis=0)", "tf.repeat(m, 1.5)",
    "tf.gradients(tf.reduce_sum(tf.repeat(m, [1, 3], axis=0) ** 2), m)[0]",
    "tf.gradients(tf.reduce_sum(tf.repeat(m, 2, axis=1) * tf.range(12.)[:6] ** 0), m)[0]",
]


test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
