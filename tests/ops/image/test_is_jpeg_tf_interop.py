"""tf.image.is_jpeg against TensorFlow 2.21 in TF1 mode (a JPEG TensorFlow encodes in
the prelude, other formats, short and empty strings); skipped without
TRAINFLOW_TF_PYTHON."""
from tf_interop import expression_value_tests

PRELUDE = """
import numpy as np
IMG = tf.constant(np.arange(48, dtype=np.uint8).reshape(4, 4, 3))
"""

EXPRESSIONS = [
    "tf.image.is_jpeg(tf.image.encode_jpeg(IMG))",
    "tf.image.is_jpeg(tf.image.encode_png(IMG))",
    "tf.image.is_jpeg(tf.constant(b'\\\\xff\\\\xd8'))",
    "tf.image.is_jpeg(tf.constant(b'\\\\xff\\\\xd8\\\\xff'))",
    "tf.image.is_jpeg(tf.constant(b''))",
    "tf.image.is_jpeg(tf.constant(b'GIF89a'), name='check')",
]

tf_values, test_same_values_as_tensorflow = expression_value_tests(
    PRELUDE, EXPRESSIONS, rtol=0, atol=0)
