"""Gradients of the incomplete gamma / zeta, cumulative logsumexp, sparse and
unsorted-mean segment ops, depth/space rearrangements and batch_gather, against
finite differences (float64); and the forward values against references."""
import collections
import math

import numpy as np
import pytest

import trainflow.compat.v1 as tf

Case = collections.namedtuple("Case", "id fn inputs grad")
R = np.random.RandomState(9)
A = np.array([[0.5, 1.5, 3.0], [2.0, 7.5, 12.0]])
X = np.array([[0.7, 2.0, 1.2], [4.0, 6.0, 20.0]])
ROWS = R.uniform(-1, 1, (4, 3))
IDX = np.array([0, 2, 2, 3, 1], np.int32)
SEG = np.array([0, 0, 1, 3, 3], np.int32)
UIDS = np.array([1, -1, 1, 0], np.int32)
IMG = R.uniform(-1, 1, (2, 2, 3, 8))
IMG_S = R.uniform(-1, 1, (1, 4, 6, 2))
SCAN = R.uniform(-2, 2, (2, 5))


def case(id_, fn, inputs, grad=(0,)):
    return Case(id_, fn, [np.asarray(v) for v in inputs], grad)


CASES = [
    case("Igamma", tf.igamma, [A, X], (0, 1)),
    case("Igammac", tf.igammac, [A, X], (0, 1)),
    case("Zeta", lambda x, q: tf.zeta(x, q), [A + 1.5, X], (1,)),
    case("CumulativeLogsumexp", lambda x: tf.math.cumulative_logsumexp(x, axis=1), [SCAN]),
    case("CumulativeLogsumexp_excl_rev",
         lambda x: tf.math.cumulative_logsumexp(x, axis=1, exclusive=True, reverse=True)[:, :-1],
         [SCAN]),
    case("SparseSegmentSum", lambda d: tf.sparse.segment_sum(d, IDX, SEG), [ROWS]),
    case("SparseSegmentMean", lambda d: tf.sparse.segment_mean(d, IDX, SEG), [ROWS]),
    case("SparseSegmentSqrtN", lambda d: tf.sparse.segment_sqrt_n(d, IDX, SEG), [ROWS]),
    case("SparseSegmentMeanWithNumSegments",
         lambda d: tf.sparse_segment_mean(d, IDX, SEG, num_segments=6), [ROWS]),
    case("SparseSegmentSumWithNumSegments",
         lambda d: tf.sparse_segment_sum(d, IDX, SEG, num_segments=5), [ROWS]),
    case("unsorted_segment_mean", lambda d: tf.unsorted_segment_mean(d, UIDS, 3), [ROWS]),
    case("unsorted_segment_sqrt_n", lambda d: tf.math.unsorted_segment_sqrt_n(d, UIDS, 3),
         [ROWS]),
    case("DepthToSpace", lambda x: tf.depth_to_space(x, 2), [IMG]),
    case("DepthToSpace_NCHW", lambda x: tf.nn.depth_to_space(x, 2, data_format="NCHW"),
         [IMG.transpose(0, 3, 1, 2).copy()]),
    case("SpaceToDepth", lambda x: tf.space_to_depth(x, 2), [IMG_S]),
    case("SpaceToDepth_NCHW", lambda x: tf.nn.space_to_depth(x, 2, data_format="NCHW"),
         [IMG_S.transpose(0, 3, 1, 2).copy()]),
    case("batch_gather", lambda p: tf.batch_gather(p, [[2, 0], [1, 1], [0, 2], [1, 0]]),
         [ROWS]),
]


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_gradient_matches_finite_differences(c):
    with tf.Graph().as_default():
        phs = [tf.placeholder(tf.float64, v.shape) for v in c.inputs]
        y = c.fn(*phs)
        with tf.Session() as sess:
            feed = dict(zip(phs, c.inputs))
            y_shape = list(np.shape(sess.run(y, feed)))
            for i in c.grad:
                others = {p: v for j, (p, v) in enumerate(zip(phs, c.inputs)) if j != i}
                theoretical, numerical = tf.test.compute_gradient(
                    phs[i], list(c.inputs[i].shape), y, y_shape, x_init_value=c.inputs[i],
                    delta=1e-6, extra_feed_dict=others)
                np.testing.assert_allclose(theoretical, numerical, rtol=1e-6, atol=1e-7,
                                           err_msg=f"{c.id}: input {i}")


def _p_ref(a, x):
    """P(a, x) for integer or half-integer a, from P(1/2, x) = erf(sqrt x) or
    P(1, x) = 1 - e^-x and P(a + 1, x) = P(a, x) - x^a e^-x / Gamma(a + 1)."""
    b = a - math.floor(a) or 1.0
    p = math.erf(math.sqrt(x)) if b == 0.5 else 1.0 - math.exp(-x)
    while b < a:
        p -= x ** b * math.exp(-x) / math.gamma(b + 1)
        b += 1
    return p


def test_incomplete_gamma_values_and_domain():
    with tf.Graph().as_default(), tf.Session() as sess:
        p, q = sess.run([tf.igamma(A, X), tf.igammac(A, X)])
        edge = sess.run(tf.igamma([1.0, -1.0, 1.0, 2.0], [0.0, 1.0, -1.0, np.inf]))
        z = sess.run(tf.zeta(np.array([2.0, 1.0, 0.5, 4.0]), [1.0, 1.0, 1.0, 2.5]))
    want = np.array([[_p_ref(a, x) for a, x in zip(ra, rx)] for ra, rx in zip(A, X)])
    np.testing.assert_allclose(p, want, rtol=1e-12)
    np.testing.assert_allclose(p + q, 1.0, rtol=1e-12)
    assert edge[0] == 0.0 and np.isnan(edge[1]) and np.isnan(edge[2]) and edge[3] == 1.0
    hurwitz = sum((2.5 + k) ** -4.0 for k in range(100000))
    np.testing.assert_allclose(z, [np.pi ** 2 / 6, np.inf, np.nan, hurwitz], rtol=1e-10)


def test_segment_values_and_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.sparse.segment_mean(ROWS, IDX, SEG))
        want = np.stack([ROWS[[0, 2]].mean(0), ROWS[[2]].mean(0), np.zeros(3),
                         ROWS[[3, 1]].mean(0)])
        np.testing.assert_allclose(got, want)
        got = sess.run(tf.unsorted_segment_mean(ROWS, UIDS, 3))
        np.testing.assert_allclose(got, [ROWS[3], (ROWS[0] + ROWS[2]) / 2, np.zeros(3)])
        assert tf.sparse_segment_sum(ROWS, IDX, SEG, num_segments=7).shape.as_list() == [7, 3]
        with pytest.raises(tf.errors.InvalidArgumentError, match="not increasing"):
            sess.run(tf.sparse_segment_sum(ROWS, [0, 1], [1, 0]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
            sess.run(tf.sparse_segment_sum(ROWS, [0, 9], [0, 0]))


def test_depth_space_roundtrip_shapes_and_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        d2s = tf.depth_to_space(IMG, 2)
        assert d2s.shape.as_list() == [2, 4, 6, 2]
        np.testing.assert_array_equal(sess.run(tf.space_to_depth(d2s, 2)), IMG)
        with pytest.raises(ValueError, match="divisible"):
            tf.depth_to_space(tf.zeros([1, 2, 2, 3]), 2)
        with pytest.raises(ValueError, match="parallel_stack needs fully defined"):
            tf.parallel_stack([tf.placeholder(tf.float32, [None])])
        stacked = tf.parallel_stack([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        assert stacked.op.type == "ParallelConcat" and stacked.shape.as_list() == [3, 2]
        np.testing.assert_array_equal(sess.run(stacked), [[1, 2], [3, 4], [5, 6]])
