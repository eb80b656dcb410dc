"""tf.image.extract_glimpse (ExtractGlimpse, and the ExtractGlimpseV2 op with zero noise)
against TensorFlow: every centred / normalised combination, windows inside, across and
outside the image; v1's uniform noise checked where it is exact (a flat image) and for
its bounds; TF's errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
rs = np.random.RandomState(0)
img = tf.constant(rs.rand(3, 7, 9, 2).astype(np.float32))
flat = tf.constant(np.full([3, 7, 9, 2], 0.25, np.float32))
inside = [[0.1, 0.2], [-0.3, 0.25], [0.0, 0.0]]
pixels = [[3, 4], [2, 5], [4, 6]]
edges = [[0.9, 0.9], [-0.2, 0.3], [0.1, -1.3]]
far = [[1, 2], [4, -1], [6.5, 7.9]]
def v2(image, size, offsets, **kw):
    if hasattr(tf, "raw_ops"):
        return tf.raw_ops.ExtractGlimpseV2(input=image, size=size, offsets=offsets,
                                           uniform_noise=False, noise="zero", **kw)
    from trainflow._src.framework.op_builder import apply_op
    return apply_op("ExtractGlimpseV2", input=image, size=size, offsets=offsets,
                    uniform_noise=False, noise="zero", **kw).outputs[0]
def all_v2(offsets):
    return [v2(img, s, offsets, centered=c, normalized=n) for c in (True, False)
            for n in (True, False) for s in ([3, 4], [7, 9], [1, 1], [5, 2])]
def bounded(offsets, **kw):
    g = tf.image.extract_glimpse(img, [5, 6], offsets, **kw)
    return [tf.reduce_min(g) >= tf.reduce_min(img), tf.reduce_max(g) <= tf.reduce_max(img)]
"""

EXPRESSIONS = [
    "tf.image.extract_glimpse(img, [3, 4], inside)",
    "tf.image.extract_glimpse(img, [2, 3], inside, centered=True, normalized=True)",
    "tf.image.extract_glimpse(img, [3, 3], pixels, centered=False, normalized=False)",
    "tf.image.extract_glimpse(img, [2, 2], [[0.5, 0.5], [-1.5, 1], [1, 0]],"
    " centered=True, normalized=False)",
    "tf.image.extract_glimpse(img, [3, 4], [[0.5, 0.5], [0.25, 0.4], [0.6, 0.3]],"
    " centered=False, normalized=True)",
    "tf.image.extract_glimpse(img, [7, 9], [[0, 0]] * 3)",
    "tf.image.extract_glimpse(flat, [3, 4], edges)",
    "tf.image.extract_glimpse(flat, [4, 5], far, centered=False, normalized=False,"
    " uniform_noise=False)",
    "bounded(edges)",
    "bounded(far, centered=False, normalized=False)",
    "all_v2(inside)",
    "all_v2(edges)",
    "all_v2(far)",
    "all_v2(pixels)",
    "tf.image.extract_glimpse(img, [3, 4, 5], inside)",
    "tf.image.extract_glimpse(img, [3, 4], inside[:2])",
    "tf.image.extract_glimpse(img[0], [3, 4], inside)",
    "tf.image.extract_glimpse(img, [3, 4], [[1.0, 2.0, 3.0]] * 3)",
]

test_glimpse_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)
