"""encode_base64 / decode_base64, string_strip / tf.strings.strip and serialize_tensor /
parse_tensor against TensorFlow: values, static shapes and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
s = tf.constant([["hello", "a?b>c"], ["", "  two words \\t\\n"]])
m = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) / 3.)
"""

EXPRESSIONS = [
    "tf.encode_base64(s)", "tf.encode_base64(s, pad=True)", "tf.io.encode_base64('\\xff\\xfe')",
    "tf.decode_base64(tf.encode_base64(s))", "tf.io.decode_base64(tf.encode_base64(s, True))",
    "tf.decode_base64(['aGVsbG8', 'YT9iPmM=', ''])", "tf.decode_base64('a')",
    "tf.decode_base64('a*bc')", "tf.string_strip(s)", "tf.strings.strip(' x ')",
    "tf.parse_tensor(tf.serialize_tensor(m), tf.float32)",
    "tf.io.parse_tensor(tf.io.serialize_tensor(s), tf.string)",
    "tf.parse_tensor(tf.serialize_tensor(tf.constant(7, tf.int64)), tf.int64)",
    "tf.parse_tensor(tf.serialize_tensor(m), tf.int32)", "tf.parse_tensor('junk', tf.int32)",
    "tf.shape(tf.serialize_tensor(m))",
]


test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
