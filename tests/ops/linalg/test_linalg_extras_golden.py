"""The cases of test_linalg_extras_tf_interop against TensorFlow 2.21's recorded results
(data/linalg_extras_tf.json), without TensorFlow: the lu family, sqrtm, logm, expm,
matrix_rank, pinv, normalize, global_norm, tridiagonal solve and product,
eigh_tridiagonal, gradients."""
import os

from golden_exprs import golden_test

test_linalg_extras_match_recorded_tf = golden_test(
    os.path.join(os.path.dirname(__file__), "data", "linalg_extras_tf.json"))
