"""tf.nn.quantized_conv2d (QuantizedConv2D) against TensorFlow: quint8 input and filter
with ranges whose zero points differ, SAME and VALID, strides, the output range.
(TF aborts on batch strides, raises unequal row/column strides while building the graph,
and fails every run of a graph holding a QuantizedConv2D of types it has no kernel for,
so those errors are checked without TF in test_quantized_conv.py.)"""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
rs = np.random.RandomState(0)
x = tf.quantize(tf.constant(rs.randn(2, 6, 7, 3).astype(np.float32)), -2., 3., tf.quint8)
f = tf.quantize(tf.constant(rs.randn(3, 2, 3, 4).astype(np.float32)), -1.5, 1., tf.quint8)
g = tf.quantize(tf.constant(rs.rand(1, 1, 3, 2).astype(np.float32)), 0., 1., tf.quint8)
def conv(filt, strides, padding, **kw):
    return tf.nn.quantized_conv2d(x[0], filt[0], x[1], x[2], filt[1], filt[2], strides,
                                  padding, **kw)
"""

EXPRESSIONS = [
    "conv(f, [1, 1, 1, 1], 'SAME')",
    "conv(f, [1, 1, 1, 1], 'VALID')",
    "conv(f, [1, 2, 2, 1], 'SAME')",
    "conv(f, [1, 3, 3, 1], 'SAME')",
    "conv(f, [1, 2, 2, 1], 'VALID')",
    "conv(g, [1, 1, 1, 1], 'SAME')",
    "conv(g, [1, 3, 3, 1], 'VALID')",
]

test_quantized_conv_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)

