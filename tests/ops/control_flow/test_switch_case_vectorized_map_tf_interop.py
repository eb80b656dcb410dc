"""tf.switch_case and tf.vectorized_map against TensorFlow 2.21: values, gradients,
static shapes, dtypes and errors (ports of switch_case cases of TF's
control_flow_ops_py_test.py and of vectorized_map's basic cases in pfor's tests)."""
from expr_values import comparison_test
from tf_interop import needs_tf

PRELUDE = """
x = tf.constant(2.)
m = tf.constant([[1., 2.], [3., 4.], [5., 6.]])
branches = [lambda: x * 1., lambda: x * 2., lambda: x * 3.]
def sc(i, **kw):
    return tf.switch_case(tf.constant(i), branches, **kw)
"""

EXPRESSIONS = [
    "sc(0)", "sc(1)", "sc(2)", "sc(-1)", "sc(7)", "sc(5, default=lambda: x * 10.)",
    "sc(1, default=lambda: x * 10.)", "tf.gradients(sc(1), x)", "tf.gradients(sc(9), x)",
    "tf.gradients(sc(0, default=lambda: x * x), x)",
    "tf.gradients(sc(3, default=lambda: x * x), x)",
    "tf.switch_case(tf.constant(1), {0: lambda: x, 1: lambda: x * 5.})",
    "tf.switch_case(tf.constant(1), [(1, lambda: x * 4.), (0, lambda: x)])",
    "tf.switch_case(tf.constant(0), [lambda: (x, tf.constant(1)),"
    " lambda: (x * 2., tf.constant(2))])",
    "tf.switch_case(tf.constant(1), [lambda: {'a': x}, lambda: {'a': x + 1.}])",
    "tf.switch_case(tf.constant(1), [lambda: m, lambda: m * 2.])",
    "tf.switch_case(tf.constant(1), [lambda: m[0], lambda: m[:, 1]])",
    "tf.switch_case(tf.constant(1, tf.int64), branches)",
    "tf.switch_case(tf.constant(1), {0: lambda: x, 3: lambda: x * 5.})",
    "tf.switch_case(1, branches)", "tf.switch_case(tf.constant(1.), branches)",
    "tf.switch_case(tf.constant(1), [x, x])", "tf.switch_case(tf.constant(1), [])",
    "tf.switch_case(tf.constant(1), 'ab')",
    "tf.switch_case(tf.constant(1), [lambda: x, lambda: tf.constant(1)])",
    "tf.gradients(tf.switch_case(tf.constant(1), [lambda: tf.reduce_sum(m * m),"
    " lambda: tf.reduce_sum(m) * x]), [m, x])",
    "tf.vectorized_map(lambda r: tf.reduce_sum(r * r), m)",
    "tf.vectorized_map(lambda a: (a[0] * 2., tf.cast(a[1], tf.int32)),"
    " (m, tf.constant([1., 2., 3.])))",
    "tf.vectorized_map(lambda r: tf.constant(1.), m)",
    "tf.gradients(tf.vectorized_map(lambda r: tf.reduce_sum(r * r) * x, m), [m, x])",
    "tf.vectorized_map(lambda r: tf.matmul(tf.expand_dims(r, 0), tf.ones([2, 3])), m)",
    "tf.vectorized_map(lambda d: d['a'] + d['b'], {'a': m, 'b': m * 2.})",
]

# TF's graphs hold pfor's ops, trainflow's the while-loop fallback.
OPS_DIFFER = frozenset(e for e in EXPRESSIONS if "vectorized_map" in e)

test_matches_tf = needs_tf(comparison_test(PRELUDE, EXPRESSIONS, ops_differ=OPS_DIFFER))
