"""tf.image.combined_non_max_suppression against TensorFlow: TF's kernel-test boxes
(image_ops_test / combined NMS cases), class-specific boxes, padding, clipping, errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
grid = tf.constant([[[[0, 0, 1, 1]], [[0, 0.1, 1, 1.1]], [[0, -0.1, 1, 0.9]],
                     [[0, 10, 1, 11]], [[0, 10.1, 1, 11.1]], [[0, 100, 1, 101]]]], tf.float32)
grid_scores = tf.constant([[[0.9, 0.01], [0.75, 0.05], [0.6, 0.01], [0.95, 0], [0.5, 0.01],
                            [0.3, 0.01]]], tf.float32)
rs = np.random.RandomState(0)
corners = rs.rand(2, 12, 3, 2).astype(np.float32)
many = tf.constant(np.concatenate([corners, corners + rs.rand(2, 12, 3, 2).astype(np.float32)],
                                  3))
many_scores = tf.constant(rs.rand(2, 12, 3).astype(np.float32))
"""

EXPRESSIONS = [
    "tf.image.combined_non_max_suppression(grid, grid_scores, 3, 4)",
    "tf.image.combined_non_max_suppression(grid, grid_scores, 3, 4, clip_boxes=False)",
    "tf.image.combined_non_max_suppression(grid, grid_scores, 3, 10, 0.5, 0.02)",
    "tf.image.combined_non_max_suppression(grid, grid_scores, 3, 10, 0.5, 0.02,"
    " pad_per_class=True)",
    "tf.image.combined_non_max_suppression(grid, grid_scores, 1, 10, pad_per_class=True)",
    "tf.image.combined_non_max_suppression(grid, grid_scores, 0, 5)",
    "tf.image.combined_non_max_suppression(grid, -grid_scores - 2, 2, 6)",
    "tf.image.combined_non_max_suppression(many, many_scores, 4, 7, 0.3)",
    "tf.image.combined_non_max_suppression(many, many_scores, 5, 100, 0.6, 0.2, True, False)",
    "tf.image.combined_non_max_suppression(many[:, :, :1], many_scores, 3, 8, 0.4)",
    "tf.image.combined_non_max_suppression(grid, grid_scores, 3, 0)",
    "tf.image.combined_non_max_suppression(grid, grid_scores, -1, 3)",
    "tf.image.combined_non_max_suppression(grid, grid_scores, 2, -1)",
    "tf.image.combined_non_max_suppression(grid, grid_scores, 3, 4, 1.5)",
    "tf.image.combined_non_max_suppression(many[:, :, :2], many_scores, 3, 4)",
]

test_combined_nms_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
