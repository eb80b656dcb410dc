"""tf.image.non_max_suppression_padded against TensorFlow: one image and batches, padded
and not, thresholds, fewer selections than max_output_size, TF's errors. TF 2.21 builds
a function of its tiled algorithm; trainflow runs NonMaxSuppressionV4 per image, so the
op types differ and the values must not."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
rs = np.random.RandomState(0)
c = rs.rand(2, 3, 30, 2).astype(np.float32)
many = tf.constant(np.concatenate([c, c + rs.rand(2, 3, 30, 2).astype(np.float32) * 0.5], 3))
many_scores = tf.constant(rs.rand(2, 3, 30).astype(np.float32))
boxes = tf.constant([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                     [0, 10.1, 1, 11.1], [0, 100, 1, 101]], tf.float32)
scores = tf.constant([0.9, 0.75, 0.6, 0.95, 0.5, 0.3])
"""

EXPRESSIONS = [
    "tf.image.non_max_suppression_padded(boxes, scores, 3)",
    "tf.image.non_max_suppression_padded(boxes, scores, 6, pad_to_max_output_size=True)",
    "tf.image.non_max_suppression_padded(boxes, scores, 5, 0.5, 0.4,"
    " pad_to_max_output_size=True)",
    "tf.image.non_max_suppression_padded(boxes, scores, 0, pad_to_max_output_size=True)",
    "tf.image.non_max_suppression_padded(many[0, 0], many_scores[0, 0], 10)",
    "tf.image.non_max_suppression_padded(many[0], many_scores[0], 8, 0.3, 0.2,"
    " pad_to_max_output_size=True)",
    "tf.image.non_max_suppression_padded(many, many_scores, 12, 0.4,"
    " pad_to_max_output_size=True)",
    "tf.image.non_max_suppression_padded(many[1], many_scores[1], 40, 0.6, 0.5, True)",
    "tf.image.non_max_suppression_padded(many[0], many_scores[0], 5)",
]

test_nms_padded_matches_tf = comparison_test(PRELUDE, EXPRESSIONS,
                                             ops_differ=frozenset(EXPRESSIONS[:-1]))
