"""tf.math.special's Bessel J/Y/K, Dawson, Ei, Fresnel and Spence functions, and
tf.math's erfinv, erfcinv, ndtri, betainc, nextafter, angle, polyval and approx_*_k,
against TensorFlow: values (float32 and float64; small, large, negative and edge
arguments), gradients, op types, static shapes, errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
x = tf.constant([-45., -12.5, -1., -1e-3, 0., 1e-4, 0.3, 1., 2., 2.5, 7.9, 8.1, 12.5, 31., 80.])
p = tf.constant([0.3, 1., 2., 2.5, 7.9, 12.5, 31., 80.])
d = tf.constant([[-3.5, 1e-5, 0.7], [7., 25., 120.]], tf.float64)
dp = tf.constant([[1e-5, 0.7, 2.1], [7., 25., 120.]], tf.float64)
u = tf.constant([-1., -0.999, -0.5, -1e-4, 0., 1e-5, 0.25, 0.9, 0.99999, 1.])
edges = tf.constant([-np.inf, -2., -0., 0., 1e-30, np.inf, np.nan])
q = tf.constant([0., 1e-30, 1e-7, 0.02, 0.3, 0.5, 0.77, 0.999, 1.])
def grad(f, v):
    return tf.gradients(tf.reduce_sum(f(v)), v)[0]
"""

S = "tf.math.special."
FUNCS = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e",
         "bessel_k1", "bessel_k1e", "dawsn", "expint", "fresnel_cos", "fresnel_sin",
         "spence", "bessel_i0e", "bessel_i1e"]
POSITIVE = {"bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e",
            "spence"}

VALUES = ([f"{S}{f}({'p' if f in POSITIVE else 'x'})" for f in FUNCS]
          + [f"{S}{f}({'dp' if f in POSITIVE else 'd'})" for f in FUNCS]
          + [f"{S}{f}(x)" for f in sorted(POSITIVE)]
          + [f"{S}{f}(edges)" for f in FUNCS]
          + [f"{S}{f}(tf.cast(edges, tf.float64))" for f in FUNCS]
          + ["tf.math.erfinv(u)", "tf.math.erfinv(tf.cast(u, tf.float64))",
             "tf.math.ndtri(q)", "tf.math.ndtri(tf.cast(q, tf.float64))",
             "tf.math.erfcinv(2. * q)", "tf.math.erfcinv(tf.constant([0.1, 1.5], tf.float64))",
             "tf.math.special.bessel_i0(x[5:-3])", "tf.math.bessel_i1(x[5:-3])",
             "tf.math.betainc(tf.constant([0.5, 1., 2., 20., 0.]), "
             "tf.constant([0.5, 3., 2., 1.5, 1.]), tf.constant([0.2, 0.5, 0.99, 0.9, 0.3]))",
             "tf.math.betainc(tf.constant(2., tf.float64), "
             "tf.constant([[1., 2.], [3., 4.]], tf.float64), tf.constant(0.25, tf.float64))",
             "tf.betainc(tf.constant([1., 2.]), tf.constant([1., 2., 3.]), tf.constant([.5, .5]))",
             "tf.math.nextafter(tf.constant([1., 0., -2.]), tf.constant([2., -1., -2.]))",
             "tf.math.nextafter(tf.constant([1., 0.], tf.float64), 5.)",
             "tf.math.angle(tf.constant([1 + 1j, -2 + 0j, -3j, 0j], tf.complex64))",
             "tf.angle(tf.constant([1 + 1j, -2.5 - 1j], tf.complex128))",
             "tf.math.angle(tf.constant([-1., 0., 2.]))",
             "tf.math.polyval([1., 2., 3.], tf.constant([0.5, -1., 2.]))",
             "tf.math.polyval([tf.constant([1., 2.]), 2., 3.], 4.)",
             "tf.math.polyval([], tf.constant([1., 2.]))",
             "tf.math.polyval(tf.constant([1., 2.]), 1.)",
             "tf.math.approx_max_k(tf.constant([[1., 3., 2., 9.], [5., 5., 0., -1.]]), 2)",
             "tf.math.approx_max_k(tf.constant([[1., 3., 2., 9.], [5., 5., 5., -1.]]), 3)",
             "tf.nn.approx_max_k(tf.constant([[1., 3.], [2., 9.], [0., 4.]]), 1)",
             "tf.approx_top_k(tf.constant([4., 1., 7.]), 2)",
             "tf.math.approx_max_k(tf.constant([1., 2.]), 3)",
             ])

GRADS = ([f"grad({S}{f}, {'p' if f in POSITIVE else 'x[1:]'})" for f in FUNCS[:13]]
         + ["grad(tf.math.erfinv, u[1:-1])", "grad(tf.math.ndtri, q[1:-1])",
            "grad(tf.math.erfcinv, 2. * q[1:-1])",
            "grad(lambda v: tf.math.betainc(2., 3., v), tf.constant([0.1, 0.5, 0.9]))",
            "grad(lambda v: tf.math.nextafter(v, 0.), tf.constant([1., 2.]))",
            "grad(tf.math.angle, tf.constant([1 + 1j, -2 + 0.5j], tf.complex64))",
            "grad(lambda v: tf.math.approx_max_k(v, 2)[0], "
            "tf.constant([[1., 3., 2.], [5., 4., 0.]]))"])

EXPRESSIONS = VALUES + GRADS

OPS_DIFFER = frozenset(GRADS)

test_special_functions_match_tf = comparison_test(PRELUDE, EXPRESSIONS, rtol=2e-5,
                                                  ops_differ=OPS_DIFFER)
