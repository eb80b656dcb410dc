"""tf.batch_scatter_update against TensorFlow: the ops it builds, the variable after the
update for one and two batch dimensions, int64 indices and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
v = tf.Variable(tf.reshape(tf.range(12.), [3, 4]), name='v')
w = tf.Variable(tf.zeros([2, 2, 3]), name='w')
def updated(var, indices, updates, **kw):
    with tf.control_dependencies([tf.variables_initializer([var])]):
        up = tf.batch_scatter_update(var, indices, updates, **kw)
    return up
def method(var, delta):
    with tf.control_dependencies([tf.variables_initializer([var])]):
        return var.batch_scatter_update(delta, name='m')
"""

EXPRESSIONS = [
    "updated(v, [[1], [3], [0]], [[-1.], [-2.], [-3.]])",
    "updated(v, [[0, 2], [1, 3], [3, 0]], [[1., 2.], [3., 4.], [5., 6.]], name='bsu')",
    "updated(v, tf.constant([[1], [2], [3]], tf.int64), [[7.], [8.], [9.]])",
    "updated(w, [[[2], [0]], [[1], [1]]], tf.ones([2, 2, 1]), use_locking=False)",
    "updated(v, tf.placeholder_with_default([[1], [2], [3]], None), [[7.], [8.], [9.]])",
    "updated(v, [[1], [2]], [[7.], [8.]])",
    "method(v, tf.IndexedSlices(tf.constant([[0.5], [1.5], [2.5]]),"
    " tf.constant([[3], [2], [1]])))",
    "v.batch_scatter_update([1., 2.])",
]

test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS, ops_differ=frozenset())
