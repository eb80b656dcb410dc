"""The cases of test_special_functions_tf_interop against TensorFlow 2.21's recorded
results (data/special_functions_tf.json), without TensorFlow: tf.math.special's Bessel,
Dawson, Ei, Fresnel and Spence functions, erfinv, ndtri, erfcinv, betainc, nextafter,
angle, polyval, approx_max_k, and their gradients."""
import os

from golden_exprs import golden_test

test_special_functions_match_recorded_tf = golden_test(
    os.path.join(os.path.dirname(__file__), "data", "special_functions_tf.json"))
