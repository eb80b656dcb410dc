"""tf.quantize / quantize_v2 / dequantize / quantized_concat (QuantizeV2, Dequantize,
QuantizedConcat) against TensorFlow: every quantized dtype and mode, both round modes,
narrow ranges, per-axis ranges, nudged and degenerate ranges, TF's errors; and a sweep
of all combinations compared in one go."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
rs = np.random.RandomState(0)
x = tf.constant(np.concatenate([rs.randn(40).astype(np.float32) * 3,
                np.array([0, 0.5, -0.5, 1.5, -2.5, 2.5, 100, -100, 1 / 255., 127.5 / 255],
                         np.float32)]))
m = tf.constant(rs.randn(3, 4).astype(np.float32))
lo3 = np.linspace(-1, -3, 3).astype(np.float32)
lo4 = np.linspace(-0.5, -2, 4).astype(np.float32)
def roundtrip(T, lo, hi, mode="MIN_COMBINED", **kw):
    q = tf.quantize(x, lo, hi, T, mode=mode, **kw)
    return q, tf.dequantize(q[0], q[1], q[2], mode=mode,
                            narrow_range=kw.get("narrow_range", False))
def sweep():
    outs = []
    for T in [tf.qint8, tf.quint8, tf.qint16, tf.quint16, tf.qint32]:
        for mode in ["MIN_COMBINED", "MIN_FIRST", "SCALED"]:
            for nr in [False, True]:
                for lo, hi in [(-3., 3.), (-1., 5.), (0., 1.), (0.5, 2.), (-2., -1.), (1., 1.)]:
                    q, d = roundtrip(T, lo, hi, mode, narrow_range=nr)
                    outs += [tf.cast(tf.dequantize(q[0], -1., 1., "SCALED"), tf.float32),
                             q[1], q[2], d]
    return tf.concat([tf.reshape(o, [-1]) for o in outs], 0)
qa = tf.quantize(m, -1., 1., tf.quint8)
qb = tf.quantize(m[:, :2] * 2, 0., 3., tf.quint8)
ia = tf.quantize(m, -2., 2., tf.qint32)
ib = tf.quantize(m[:2], -0.5, 4., tf.qint32)
"""

EXPRESSIONS = [
    "roundtrip(tf.qint8, -3., 3.)",
    "roundtrip(tf.quint8, -1., 5.)",
    "roundtrip(tf.qint8, -3., 3., 'MIN_FIRST')",
    "roundtrip(tf.quint8, 0.5, 2., 'MIN_FIRST')",
    "roundtrip(tf.qint8, -1., 5., 'SCALED')",
    "roundtrip(tf.qint8, -1., 5., 'SCALED', narrow_range=True)",
    "roundtrip(tf.qint8, -1., 5., 'SCALED', round_mode='HALF_TO_EVEN')",
    "roundtrip(tf.quint8, -2., -1., 'SCALED', narrow_range=True)",
    "roundtrip(tf.qint16, -2., 7., 'MIN_COMBINED')",
    "roundtrip(tf.quint16, 0., 1., 'MIN_FIRST')",
    "roundtrip(tf.qint32, 0., 1., 'SCALED')",
    "roundtrip(tf.qint32, -1., 5., 'MIN_FIRST')",
    "roundtrip(tf.qint8, 1., 1.)",
    "roundtrip(tf.qint8, -1e-4, 1e-4)",
    "roundtrip(tf.qint8, -1., 1., ensure_minimum_range=0.5)",
    "tf.quantize_v2(x, -3., 3., tf.qint8, 'MIN_FIRST')",
    "tf.quantization.quantize(x, -3., 3., tf.qint8, 'SCALED', 'HALF_TO_EVEN')",
    "tf.quantize(m, lo3, -lo3, tf.qint8, axis=0)",
    "tf.quantize(m, lo4, -lo4, tf.quint8, mode='SCALED', axis=-1)",
    "tf.dequantize(tf.quantize(m, lo3, -lo3, tf.qint8, 'SCALED', axis=0)[0], lo3, -lo3,"
    " 'SCALED', axis=0)",
    "tf.quantization.dequantize(tf.quantize(m, lo4, -lo4, tf.qint8, axis=1)[0], lo4, -lo4,"
    " axis=1)",
    "tf.dequantize(tf.quantize(x, -1., 1., tf.qint8)[0], -1., 1., dtype=tf.bfloat16)",
    "tf.quantized_concat(1, [qa[0], qb[0]], [qa[1], qb[1]], [qa[2], qb[2]])",
    "tf.quantized_concat(0, [qa[0], qa[0]], [qa[1], qa[1]], [qa[2], qa[2]])",
    "tf.quantized_concat(0, [ia[0], ib[0]], [ia[1], ib[1]], [ia[2], ib[2]])",
    "tf.quantization.quantized_concat(-1, [ia[0], ia[0]], [-3., -1.], [0., 0.])",
    "sweep()",
    "tf.quantization.quantize_and_dequantize(x, -2., 3.)",
    "tf.quantization.quantize_and_dequantize(x, -2., 3., range_given=True, num_bits=4)",
    "tf.quantization.quantize_and_dequantize(m, lo3, -lo3, range_given=True, axis=0,"
    " narrow_range=True)",
    "tf.quantization.quantize_and_dequantize(m, lo4, -lo4, False, 8, True, 'HALF_UP',"
    " axis=-1)",
    "tf.gradients(tf.quantization.quantize_and_dequantize(x * 2., -2., 3.), x)",
    # TF's errors
    "tf.quantize(x, 1., -1., tf.qint8)",
    "tf.quantize(x, -1., 1., tf.qint8, round_mode='HALF_TO_EVEN')",
    "tf.quantize(m, lo3, -lo3, tf.qint8, 'MIN_FIRST', axis=0)",
    "tf.quantize(m, lo4, -lo4, tf.qint8, axis=0)",
    "tf.quantize(x, -1., 1., tf.qint8, mode='OTHER')",
    "tf.quantize(x, -1., 1., tf.int8)",
    "tf.quantized_concat(1, [qa[0], qb[0]], [qa[1], qb[1]], [qa[2], qb[2]])[0][:, :1]",
    "tf.quantized_concat(0, [qa[0], qb[0]], [qa[1], qb[1]], [qa[2], qb[2]])",
]

test_quantize_ops_match_tf = comparison_test(PRELUDE, EXPRESSIONS)
