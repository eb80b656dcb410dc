"""sort, argsort, searchsorted (LowerBound/UpperBound), histogram_fixed_width(_bins) and
bincount (DenseBincount) and lbeta against TensorFlow: op types built, static shapes, dtypes,
values, gradients and errors."""

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

PRELUDE = """
v = tf.constant([[3., 1., 2., 1.], [0., 5., -1., 7.]])
t = tf.constant(np.arange(24, dtype=np.float64)[::-1].reshape(2, 3, 4) % 7)
i = tf.constant([[5, -3, 2], [2, 2, 9]])
u = tf.constant([3, 200, 0, 7], tf.uint8)
p = tf.placeholder_with_default(np.array([[2., 9., 4.]], np.float32), [None, None])
q = tf.placeholder(tf.float32)
h = tf.constant([-1., 0., 0.5, 1.9, 2., 4.99, 5., 12.])
n = tf.constant([1, 1, 4, 0, 2, 4])
w = tf.constant([1., 2., 3., 4., 5., 6.])
"""

EXPRESSIONS = [
    "tf.sort(v)", "tf.sort(v, direction='DESCENDING')", "tf.sort(v, axis=0)",
    "tf.sort(t, axis=1)", "tf.sort(t, axis=-3, direction='DESCENDING')", "tf.sort(i)",
    "tf.sort(u)", "tf.sort(p)", "tf.sort(v, name='s')", "tf.argsort(v)",
    "tf.argsort(v, direction='DESCENDING')", "tf.argsort(t, axis=1)", "tf.argsort(i, axis=0)",
    "tf.argsort(u, stable=True)", "tf.argsort(p, axis=0)", "tf.sort(v, direction='UP')",
    "tf.sort(v, axis=tf.constant(1))", "tf.sort(v, axis=q)",
    "tf.gradients(tf.reduce_sum(tf.sort(v) * [[1., 2., 3., 4.]]), v)[0]",
    "tf.searchsorted([[1., 2., 3.]], [[2.5, 1.]])",
    "tf.searchsorted([1, 2, 2, 3], [2, 0, 4], side='right')",
    "tf.searchsorted(tf.sort(t), t[..., :2], out_type=tf.int64)",
    "tf.searchsorted(tf.sort(v), [[1.], [1.]], side='left')",
    "tf.searchsorted([1, 2], [1], side='middle')",
    "tf.gradients(tf.reduce_sum(tf.cast(tf.searchsorted([[1., 2.]], v[:1]), tf.float32)), v)",
    "tf.gradients(tf.cast(tf.histogram_fixed_width(h, [0., 5.], 5), tf.float32), h)",
    "tf.histogram_fixed_width(h, [0., 5.], 5)",
    "tf.histogram_fixed_width(h, [0., 5.], nbins=3, dtype=tf.int64)",
    "tf.histogram_fixed_width(tf.constant([1, 5, 9, -2]), [0, 10], 4)",
    "tf.histogram_fixed_width(h, [5., 0.], 5)", "tf.histogram_fixed_width(h, [0., 5.], 0)",
    "tf.histogram_fixed_width(h, [0., 5.], tf.placeholder_with_default(4, []))",
    "tf.histogram_fixed_width_bins(h, [0., 5.], 5)",
    "tf.histogram_fixed_width_bins(tf.reshape(h, [2, 4]), [0., 5.], 3)",
    "tf.histogram_fixed_width_bins(h, [0., 5.], 0)",
    "tf.bincount(n)", "tf.bincount(n, minlength=8)", "tf.bincount(n, maxlength=3)",
    "tf.bincount(n, weights=[.5, 1., 2., 3., 4., 5.])",
    "tf.bincount(n, dtype=tf.float32)", "tf.bincount(tf.reshape(n, [2, 3]))",
    "tf.bincount(tf.zeros([0], tf.int32))", "tf.bincount([1, -1])",
    "tf.math.bincount(n, weights=tf.constant([1., 2., 3., 4., 5., 6.], tf.float64))",
    "tf.gradients(tf.reduce_sum(tf.bincount(n, weights=w) * tf.range(5, dtype=tf.float32)), w)",
    "tf.gradients(tf.reduce_sum(tf.bincount(n, weights=w) ** 2), w)[0]",
]


# TopKV2's gradient (trainflow's, older than this test) builds OneHot where TF 2.21 builds
# ScatterNd: the values agree, the op types differ.
OPS_DIFFER = {"tf.gradients(tf.reduce_sum(tf.sort(v) * [[1., 2., 3., 4.]]), v)[0]"}


test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS, ops_differ=OPS_DIFFER)


LBETA = [
    "tf.lbeta([[1., 2.], [0.5, 3.]])", "tf.math.lbeta(tf.constant([2., 3., 4.], tf.float64))",
    "tf.lbeta(tf.zeros([2, 0]))", "tf.lbeta([[1., 2.]], name='lb')",
    "tf.gradients(tf.reduce_sum(tf.lbeta(v[:, :2] + 3.)), v)[0]",
]


test_lbeta_matches_tf = comparison_test(PRELUDE, LBETA, rtol=1e-5)
