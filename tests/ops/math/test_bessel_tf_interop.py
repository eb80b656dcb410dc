"""tf.math.bessel_i0 / i1 / i0e / i1e against TensorFlow: values (small, large and
negative arguments, float32 and float64), gradients, shapes."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
x = tf.constant([-45., -31., -12.5, -1., -1e-3, 0., 0.3, 2., 9.7, 29.9, 30.1, 80.])
d = tf.constant([[-3.5, 0., 1e-5], [7., 25., 120.]], tf.float64)
def grad(f, v):
    return tf.gradients(tf.reduce_sum(f(v)), v)[0]
"""

EXPRESSIONS = [
    "tf.math.bessel_i0e(x)", "tf.math.bessel_i1e(x)", "tf.math.bessel_i0(x[2:-1])",
    "tf.math.bessel_i1(x[2:-1])", "tf.math.bessel_i0e(d)", "tf.math.bessel_i1e(d)",
    "tf.math.bessel_i0(d[:, :2])", "tf.math.bessel_i1(d[:, :2])",
    "grad(tf.math.bessel_i0e, x)", "grad(tf.math.bessel_i1e, x)",
    "grad(tf.math.bessel_i0, x[2:-2])", "grad(tf.math.bessel_i1, x[2:-2])",
    "grad(tf.math.bessel_i1e, d)",
]

test_bessel_matches_tf = comparison_test(PRELUDE, EXPRESSIONS, rtol=2e-6,
                                         ops_differ=frozenset(EXPRESSIONS[8:]))
