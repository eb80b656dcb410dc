"""tf.image.non_max_suppression, non_max_suppression_with_scores (hard and soft) and
non_max_suppression_overlaps against TensorFlow: indices, scores, shapes, errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
boxes = tf.constant([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11],
                     [0, 10.1, 1, 11.1], [0, 100, 1, 101], [1, 1, 0, 0], [0, 0, 0, 0]],
                    tf.float32)
scores = tf.constant([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.9, 0.99])
rs = np.random.RandomState(0)
corners = rs.rand(40, 2).astype(np.float32)
many = tf.constant(np.concatenate([corners, corners + rs.rand(40, 2).astype(np.float32)], 1))
many_scores = tf.constant(rs.rand(40).astype(np.float32))
overlaps = tf.constant(rs.rand(6, 6).astype(np.float32))
"""

EXPRESSIONS = [
    "tf.image.non_max_suppression(boxes, scores, 3)",
    "tf.image.non_max_suppression(boxes, scores, 10)",
    "tf.image.non_max_suppression(boxes, scores, 10, 0.3, 0.55)",
    "tf.image.non_max_suppression(boxes, scores, 0)",
    "tf.image.non_max_suppression(many, many_scores, 15, 0.2)",
    "tf.image.non_max_suppression(boxes, tf.constant([0.5] * 8), 8, 0.5)",
    "tf.image.non_max_suppression_with_scores(boxes, scores, 10)",
    "tf.image.non_max_suppression_with_scores(boxes, scores, 10, soft_nms_sigma=0.5)",
    "tf.image.non_max_suppression_with_scores(many, many_scores, 20, 1.0, 0.1, 0.3)",
    "tf.image.non_max_suppression_overlaps(overlaps, tf.constant(np.arange(6.), tf.float32), 6)",
    "tf.image.non_max_suppression_overlaps(overlaps, tf.constant(np.arange(6.), tf.float32), 4,"
    " 0.7, 1.5)",
    "tf.image.non_max_suppression(boxes, scores, 3, 1.5)",
    "tf.image.non_max_suppression(boxes[:, :3], scores, 3)",
    "tf.image.non_max_suppression(boxes, scores[:4], 3)",
]

test_nms_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
