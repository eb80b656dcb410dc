"""tf.nn.quantized_avg_pool / quantized_max_pool (QuantizedAvgPool, QuantizedMaxPool)
against TensorFlow: quint8 and qint8, SAME and VALID windows and strides, the range
passed through, and TF's missing qint32 kernels."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
x = tf.constant(np.random.RandomState(0).randn(2, 5, 6, 3).astype(np.float32))
u8 = tf.quantize(x, -2., 3., tf.quint8)
i8 = tf.quantize(x, -2., 3., tf.qint8)
"""

EXPRESSIONS = [
    f"tf.nn.quantized_{kind}_pool({q}[0], {q}[1], {q}[2], {k}, {s}, '{pad}')"
    for kind in ("avg", "max") for q in ("u8", "i8") for pad in ("SAME", "VALID")
    for k, s in (([1, 2, 2, 1], [1, 2, 2, 1]), ([1, 3, 3, 1], [1, 2, 1, 1]),
                 ([1, 1, 1, 1], [1, 1, 1, 1]), ([1, 5, 6, 1], [1, 1, 1, 1]))
]

test_quantized_pool_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
