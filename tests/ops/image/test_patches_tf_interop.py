"""ExtractImagePatches / ExtractVolumePatches (tf.image.extract_patches,
extract_image_patches, tf.extract_volume_patches) and their gradients against
TensorFlow 2.21 in TF1 mode, with the shapes of TF's extract_image_patches_op_test and
extract_volume_patches_op_test; skipped without TRAINFLOW_TF_PYTHON."""
from tf_interop import expression_value_tests

PRELUDE = """
import numpy as np
R = np.random.RandomState(5)
I = tf.constant(R.uniform(-1, 1, (2, 7, 6, 3)).astype(np.float32))
K = tf.constant(np.arange(1 * 4 * 5 * 2).reshape(1, 4, 5, 2).astype(np.int32))
V = tf.constant(R.uniform(-1, 1, (2, 5, 4, 6, 2)).astype(np.float32))

def grad(y, x):
    w = tf.sin(tf.cast(tf.reshape(tf.range(tf.size(y)), tf.shape(y)), y.dtype) + 0.5)
    return tf.gradients(tf.reduce_sum(y * w), x)[0]
"""

_IMAGE_CASES = [  # (ksizes, strides, rates, padding), from TF's kernel test and more
    ([1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
    ([1, 7, 6, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
    ([1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "SAME"),
    ([1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "SAME"),
    ([1, 3, 2, 1], [1, 2, 3, 1], [1, 1, 1, 1], "VALID"),
    ([1, 2, 2, 1], [1, 3, 2, 1], [1, 2, 2, 1], "SAME"),
    ([1, 2, 3, 1], [1, 1, 2, 1], [1, 3, 1, 1], "VALID"),
    ([1, 4, 4, 1], [1, 5, 5, 1], [1, 1, 1, 1], "SAME"),
]

EXPRESSIONS = []
for _k, _s, _r, _p in _IMAGE_CASES:
    EXPRESSIONS.append(f"tf.image.extract_patches(I, {_k}, {_s}, {_r}, '{_p}')")
    EXPRESSIONS.append(f"grad(tf.image.extract_patches(I, {_k}, {_s}, {_r}, '{_p}'), I)")
EXPRESSIONS += [
    "tf.image.extract_image_patches(K, [1, 2, 3, 1], [1, 1, 2, 1], [1, 1, 1, 1], 'SAME')",
    "tf.extract_image_patches(K, sizes=[1, 3, 3, 1], strides=[1, 2, 2, 1], "
    "rates=[1, 1, 1, 1], padding='VALID')",
    "tf.image.extract_patches(tf.cast(I * 100, tf.int16), [1, 2, 2, 1], [1, 1, 1, 1], "
    "[1, 1, 1, 1], 'SAME')",
    "tf.image.extract_patches(tf.cast(I, tf.float64), [1, 2, 2, 1], [1, 2, 1, 1], "
    "[1, 1, 1, 1], 'VALID')",
    "tf.extract_volume_patches(V, [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], 'VALID')",
    "tf.extract_volume_patches(V, [1, 2, 3, 2, 1], [1, 1, 1, 1, 1], 'VALID')",
    "tf.extract_volume_patches(V, [1, 2, 2, 3, 1], [1, 2, 1, 3, 1], 'SAME')",
    "tf.extract_volume_patches(V, [1, 3, 2, 2, 1], [1, 2, 3, 2, 1], 'SAME')",
    "grad(tf.extract_volume_patches(V, [1, 2, 2, 3, 1], [1, 2, 1, 3, 1], 'SAME'), V)",
    "grad(tf.extract_volume_patches(V, [1, 2, 3, 2, 1], [1, 1, 2, 1, 1], 'VALID'), V)",
]

tf_values, test_same_values_as_tensorflow = expression_value_tests(
    PRELUDE, EXPRESSIONS, rtol=1e-5, atol=1e-5)
