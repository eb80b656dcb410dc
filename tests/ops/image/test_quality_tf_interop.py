"""tf.image.psnr, ssim, image_gradients, sobel_edges and the YIQ / YUV conversions
against TensorFlow: values, static shapes and errors (op types differ where TF adds
its run-time shape asserts)."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
rs = np.random.RandomState(0)
a = tf.constant(rs.rand(2, 16, 16, 3).astype(np.float32))
b = a * 0.7 + tf.constant(rs.rand(2, 16, 16, 3).astype(np.float32)) * 0.2
u8 = tf.constant((rs.rand(1, 12, 12, 1) * 255).astype(np.uint8))
big = tf.constant(rs.rand(2, 176, 176, 2).astype(np.float32))
odd = tf.constant(rs.rand(1, 51, 47, 1).astype(np.float32))
img = tf.constant(rs.rand(1, 5, 6, 2).astype(np.float32))
rgb = tf.constant(rs.rand(4, 3).astype(np.float32))
"""

EXPRESSIONS = [
    "tf.image.psnr(a, b, 1.0)", "tf.image.psnr(u8, u8 // 2, 255)",
    "tf.image.psnr(a[0], b[0], 2.0)",
    "tf.image.ssim(a, b, 1.0)", "tf.image.ssim(u8, u8 // 2 + 20, 255)",
    "tf.image.ssim(a, b, 1.0, filter_size=5, filter_sigma=0.8, k1=0.02, k2=0.05)",
    "tf.image.ssim(a, b, 1.0, return_index_map=True)", "tf.image.ssim(a[:, :, :, :2], b, 1.0)",
    "tf.image.ssim_multiscale(big, big * 0.8 + 0.1, 1.0)",
    "tf.image.ssim_multiscale(big[0], big[1], 1.0, power_factors=(0.3, 0.7), filter_size=5)",
    "tf.image.ssim_multiscale(odd, odd * 0.5, 1.0, filter_size=3)",
    "tf.image.image_gradients(img)", "tf.image.image_gradients(img[0])",
    "tf.image.sobel_edges(img)", "tf.image.sobel_edges(a)",
    "tf.image.rgb_to_yiq(rgb)", "tf.image.yiq_to_rgb(tf.image.rgb_to_yiq(a))",
    "tf.image.rgb_to_yuv(rgb)", "tf.image.yuv_to_rgb(rgb)",
]

test_quality_matches_tf = comparison_test(PRELUDE, EXPRESSIONS, rtol=1e-5,
                                          ops_differ=frozenset(EXPRESSIONS))
