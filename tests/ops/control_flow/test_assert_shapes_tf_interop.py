"""tf.debugging.assert_shapes (TF1's) against TensorFlow 2.21: static checks (ValueError),
dynamic ones (InvalidArgumentError when run), symbols shared between tensors, '.', None,
leading '*' / ..., scalars, dicts and SparseTensors; the cases of TF's check_ops_test."""
from expr_values import comparison_test
from tf_interop import needs_tf

PRELUDE = """
x = tf.zeros([2, 3]); y = tf.zeros([3, 4]); s = tf.constant(1.0); v = tf.zeros([3])
p = tf.placeholder_with_default(tf.zeros([2, 3]), [None, None])
q = tf.placeholder_with_default(tf.zeros([2, 5]), None)
sp = tf.SparseTensor([[0, 0]], [1.0], [2, 3])
def ok(op):
    with tf.control_dependencies([op]):
        return tf.constant(1)
"""

EXPRESSIONS = [
    "ok(tf.debugging.assert_shapes([(x, ('N', 'Q')), (y, ('Q', 'D'))]))",
    "ok(tf.debugging.assert_shapes([(x, ('N', 'Q')), (y, ('N', 'D'))]))",
    "ok(tf.debugging.assert_shapes([(x, (2, 3)), (y, (3, 4))]))",
    "ok(tf.debugging.assert_shapes([(x, (2, 4))]))",
    "ok(tf.debugging.assert_shapes([(x, (2, 4))], message='msg'))",
    "ok(tf.debugging.assert_shapes([(x, ('.', 3)), (y, (None, 4))]))",
    "ok(tf.debugging.assert_shapes([(x, ('*', 3)), (y, ('*', 'Q', 4))]))",
    "ok(tf.debugging.assert_shapes([(x, (Ellipsis, 'Q')), (v, ('Q',))]))",
    "ok(tf.debugging.assert_shapes([(x, ('N', '*'))]))",
    "ok(tf.debugging.assert_shapes([(s, ()), (v, ('Q',))]))",
    "ok(tf.debugging.assert_shapes([(s, ()), (v, (1,))]))",
    "ok(tf.debugging.assert_shapes([(s, (1,))]))",
    "ok(tf.debugging.assert_shapes({x: ('N', 'Q'), y: ('Q', 'D')}))",
    "ok(tf.debugging.assert_shapes([(x, 3)]))",
    "ok(tf.debugging.assert_shapes([(x, ('A', 'B', 'C'))]))",
    "ok(tf.debugging.assert_shapes([(p, ('N', 'Q')), (x, ('N', 'Q'))]))",
    "ok(tf.debugging.assert_shapes([(p, ('N', 'Q')), (y, ('Q', 'D'))]))",
    "ok(tf.debugging.assert_shapes([(q, ('N', 5))]))",
    "ok(tf.debugging.assert_shapes([(q, ('N', 4))]))",
    "ok(tf.debugging.assert_shapes([(q, ('N', 'Q', 'R'))]))",
    "ok(tf.debugging.assert_shapes([(sp, ('N', 3)), (x, ('N', 'Q'))]))",
    "ok(tf.debugging.assert_shapes([(x, None), (y, ('Q', 4))]))",
    "tf.constant(tf.debugging.assert_shapes([(x, ('N', 'Q'))]).type)",
    "tf.constant(tf.debugging.assert_shapes([(p, ('N', 3))], name='chk').name)",
]

test_matches_tf = needs_tf(comparison_test(PRELUDE, EXPRESSIONS))
