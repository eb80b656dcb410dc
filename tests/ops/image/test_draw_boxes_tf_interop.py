"""tf.image.draw_bounding_boxes (DrawBoundingBoxes, DrawBoundingBoxesV2) against
TensorFlow: default and given colours, 1, 3 and 4 channels, boxes partly or wholly
outside, inverted boxes, half precision, errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
rs = np.random.RandomState(0)
im3 = tf.constant(rs.rand(2, 9, 11, 3).astype(np.float32))
im1 = tf.constant(rs.rand(1, 6, 7, 1).astype(np.float32))
im4 = tf.constant(rs.rand(1, 6, 7, 4).astype(np.float16))
bx = tf.constant([[[0.1, 0.1, 0.6, 0.7], [-0.2, 0.5, 0.4, 1.3], [0.5, 0.5, 0.2, 0.9],
                   [1.2, 0.0, 1.5, 0.3], [0, 0, 1, 1]] * 3,
                  [[0.3, 0.2, 0.35, 0.95], [0.0, -0.5, 0.99, 0.42]] * 6 + [[0, 0, 0, 0]] * 3],
                 tf.float32)
"""

EXPRESSIONS = [
    "tf.image.draw_bounding_boxes(im3, bx)",
    "tf.image.draw_bounding_boxes(im1, bx[:1, :4])",
    "tf.image.draw_bounding_boxes(im4, bx[1:, :3])",
    "tf.image.draw_bounding_boxes(im3, bx, colors=[[0.2, 0.4, 0.6, 1.], [1., 1., 1., 1.]])",
    "tf.image.draw_bounding_boxes(im1, bx[:1], colors=np.zeros([0, 4], np.float32))",
    "tf.image.draw_bounding_boxes(im3[:, :, :, :2], bx)",
    "tf.image.draw_bounding_boxes(im3, bx[:, :, :3])",
]

test_draw_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
