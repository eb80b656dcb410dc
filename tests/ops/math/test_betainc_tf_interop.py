"""tf.math.betainc (the Betainc op) against TensorFlow 2.21: values across the domain and
its edges, shapes, errors and the gradient in x."""
from expr_values import comparison_test
from tf_interop import needs_tf

PRELUDE = """
a = tf.constant([0.5, 1.0, 2.0, 10.0, 0.1, 30.0])
b = tf.constant([0.5, 3.0, 2.0, 0.7, 4.0, 20.0])
x = tf.constant([0.3, 0.01, 0.5, 0.99, 0.02, 0.6])
# Far in the tails and for large a and b TF's float32 kernel loses digits (it computes in
# float32; 0.80992 for I_0.002(0.1, 40), where the value is 0.809932): compare in float64.
a64 = tf.constant([0.1, 300.0, 1e-3, 50.0], tf.float64)
b64 = tf.constant([40.0, 200.0, 1e-3, 0.5], tf.float64)
x64 = tf.constant([0.002, 0.6, 0.5, 0.999], tf.float64)
"""

EXPRESSIONS = [
    "tf.math.betainc(a, b, x)", "tf.betainc(a, b, x)",
    "tf.math.betainc(tf.cast(a, tf.float64), tf.cast(b, tf.float64), tf.cast(x, tf.float64))",
    "tf.math.betainc(a64, b64, x64)",
    "tf.math.betainc(2.0, 3.0, x)", "tf.math.betainc(a, 1.5, 0.25)",
    "tf.math.betainc(2.0, 3.0, [0.0, 1.0, -0.5, 1.5])",
    "tf.math.betainc([0.0, -1.0, 1.0], [1.0, 1.0, 0.0], [0.5, 0.5, 0.5])",
    "tf.math.betainc([[1.0, 2.0], [3.0, 4.0]], 2.0, [[0.1, 0.2], [0.3, 0.4]], name='bi')",
    "tf.math.betainc(a, b, [0.5, 0.5])",
    "tf.math.betainc(tf.constant([1, 2]), 2, 1)",
    "tf.gradients(tf.math.betainc(a, b, x), [a, b, x])[2]",
    "tf.gradients(tf.math.betainc(2.0, 3.0, x), x)",
]

test_matches_tf = needs_tf(comparison_test(PRELUDE, EXPRESSIONS, rtol=5e-6))
