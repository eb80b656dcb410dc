"""3-D convolution and pooling, 1-D pools and image.total_variation: values against
direct NumPy loops, static shapes, and gradients against finite differences."""
import itertools

import numpy as np
import pytest

import trainflow.compat.v1 as tf

R = np.random.RandomState(13)
X = R.uniform(-1, 1, (2, 4, 5, 3, 2))
W = R.uniform(-1, 1, (2, 3, 2, 2, 3))
# Distinct values 0.01 apart, so no window holds a near-tie that finite differences cross.
X_SPREAD = R.permutation(X.size).reshape(X.shape) * 0.01


def _conv3d_ref(x, w, strides, padding):
    n, d, h, wd, c = x.shape
    kd, kh, kw, _, co = w.shape
    outs, pads = [], []
    for size, k, s in zip((d, h, wd), (kd, kh, kw), strides):
        if padding == "VALID":
            o = (size - k) // s + 1
            pads.append((0, 0))
        else:
            o = -(-size // s)
            total = max((o - 1) * s + k - size, 0)
            pads.append((total // 2, total - total // 2))
        outs.append(o)
    xp = np.pad(x, [(0, 0)] + pads + [(0, 0)])
    out = np.zeros((n,) + tuple(outs) + (co,))
    for i, j, m in itertools.product(*(range(o) for o in outs)):
        patch = xp[:, i * strides[0]:i * strides[0] + kd, j * strides[1]:j * strides[1] + kh,
                   m * strides[2]:m * strides[2] + kw, :]
        out[:, i, j, m, :] = np.tensordot(patch, w, axes=([1, 2, 3, 4], [0, 1, 2, 3]))
    return out


@pytest.mark.parametrize("strides,padding", [((1, 1, 1), "VALID"), ((1, 1, 1), "SAME"),
                                             ((2, 2, 1), "SAME"), ((1, 2, 2), "VALID")])
def test_conv3d_matches_direct_sum(strides, padding):
    with tf.Graph().as_default(), tf.Session() as sess:
        y = tf.nn.conv3d(X.astype(np.float32), W.astype(np.float32),
                         strides=[1, *strides, 1], padding=padding)
        want = _conv3d_ref(X, W, strides, padding)
        assert y.shape.as_list() == list(want.shape)
        np.testing.assert_allclose(sess.run(y), want, rtol=1e-5, atol=1e-5)


def _pool_ref(x, k, s, padding, fn):
    outs, pads = [], []
    for size, kk, ss in zip(x.shape[1:4], k, s):
        if padding == "VALID":
            outs.append((size - kk) // ss + 1)
            pads.append(0)
        else:
            o = -(-size // ss)
            outs.append(o)
            pads.append(max((o - 1) * ss + kk - size, 0) // 2)
    out = np.zeros((x.shape[0],) + tuple(outs) + (x.shape[4],))
    for idx in itertools.product(*(range(o) for o in outs)):
        sl = tuple(slice(max(0, i * ss - p), min(size, i * ss - p + kk))
                   for i, ss, p, kk, size in zip(idx, s, pads, k, x.shape[1:4]))
        window = x[(slice(None),) + sl + (slice(None),)]
        out[(slice(None),) + idx + (slice(None),)] = fn(window, axis=(1, 2, 3))
    return out


@pytest.mark.parametrize("pool,fn", [(tf.nn.max_pool3d, np.max), (tf.nn.avg_pool3d, np.mean)])
@pytest.mark.parametrize("k,s,padding", [((2, 2, 2), (2, 2, 2), "VALID"),
                                         ((3, 2, 2), (1, 2, 1), "SAME")])
def test_pool3d_matches_windows(pool, fn, k, s, padding):
    with tf.Graph().as_default(), tf.Session() as sess:
        y = pool(X.astype(np.float32), [1, *k, 1], [1, *s, 1], padding)
        want = _pool_ref(X, k, s, padding, fn)
        assert y.shape.as_list() == list(want.shape)
        np.testing.assert_allclose(sess.run(y), want, rtol=1e-5, atol=1e-6)


GRAD_CASES = [
    ("conv3d_input", lambda x, w: tf.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"), 0, np.float64),
    ("conv3d_filter", lambda x, w: tf.nn.conv3d(x, w, [1, 2, 1, 1, 1], "VALID"), 1,
     np.float64),
    ("conv3d_transpose", lambda x, w: tf.nn.conv3d_transpose(
        x, tf.transpose(w, [0, 1, 2, 4, 3]), [2, 4, 5, 3, 3], [1, 1, 1, 1, 1], "SAME"), 0,
     np.float64),
    ("avg_pool3d", lambda x, w: tf.nn.avg_pool3d(x, [1, 2, 3, 2, 1], [1, 1, 2, 1, 1], "SAME"),
     0, np.float64),
    ("max_pool3d", lambda x, w: tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "SAME"),
     0, np.float32),
]


@pytest.mark.parametrize("name,fn,which,dtype", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_finite_differences(name, fn, which, dtype):
    values = [(X_SPREAD if name == "max_pool3d" else X).astype(dtype), W.astype(dtype)]
    with tf.Graph().as_default():
        phs = [tf.placeholder(dtype, v.shape) for v in values]
        y = fn(*phs)
        with tf.Session() as sess:
            y_shape = list(sess.run(y, dict(zip(phs, values))).shape)
            other = {phs[1 - which]: values[1 - which]}
            delta = 1e-6 if dtype == np.float64 else 1e-3
            theoretical, numerical = tf.test.compute_gradient(
                phs[which], list(values[which].shape), y, y_shape,
                x_init_value=values[which], delta=delta, extra_feed_dict=other)
    tol = 1e-6 if dtype == np.float64 else 2e-3
    np.testing.assert_allclose(theoretical, numerical, rtol=tol, atol=tol)


def test_second_order_pool_gradients_build_and_run():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant(X.astype(np.float32))
        y = tf.nn.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 2, 1, 1], "VALID")
        g = tf.gradients(y * y, x)[0]
        gg = tf.gradients(tf.reduce_sum(g * g), x)[0]
        a = tf.nn.avg_pool3d(x, [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID")
        ga = tf.gradients(tf.reduce_sum(tf.gradients(a * a, x)[0] ** 2), x)[0]
        gv, ggv, gav = sess.run([g, gg, ga])
        assert gv.shape == ggv.shape == gav.shape == X.shape


@pytest.mark.parametrize("pool,fn", [(tf.nn.max_pool1d, np.max), (tf.nn.avg_pool1d, np.mean)])
def test_pool1d(pool, fn):
    seq = R.uniform(-1, 1, (2, 7, 3)).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        y = pool(seq, 2, 2, "VALID")
        assert y.shape.as_list() == [2, 3, 3]
        want = np.stack([fn(seq[:, 2 * i:2 * i + 2], axis=1) for i in range(3)], axis=1)
        np.testing.assert_allclose(sess.run(y), want, rtol=1e-6)
        y_ncw = pool(seq.transpose(0, 2, 1), [3], [1], "SAME", data_format="NCW")
        assert y_ncw.shape.as_list() == [2, 3, 7]


def test_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(ValueError, match="Negative dimension"):
            tf.nn.conv3d(tf.zeros([1, 1, 4, 4, 2]), tf.zeros([2, 2, 2, 2, 1]),
                         [1, 1, 1, 1, 1], "VALID")
        with pytest.raises(ValueError):
            tf.nn.conv3d(tf.zeros([1, 4, 4, 4]), tf.zeros([2, 2, 2, 2, 1]),
                         [1, 1, 1, 1, 1], "VALID")
        with pytest.raises(tf.errors.UnimplementedError, match="NDHWC"):
            sess.run(tf.nn.max_pool3d(tf.zeros([1, 2, 4, 4, 4]), [1, 1, 2, 2, 1],
                                      [1, 1, 1, 1, 1], "VALID", data_format="NCDHW"))


def test_total_variation():
    img = R.uniform(0, 1, (3, 4, 2)).astype(np.float32)
    want = np.abs(np.diff(img, axis=0)).sum() + np.abs(np.diff(img, axis=1)).sum()
    with tf.Graph().as_default(), tf.Session() as sess:
        np.testing.assert_allclose(sess.run(tf.image.total_variation(img)), want, rtol=1e-5)
        batch = sess.run(tf.image.total_variation(np.stack([img, 2 * img])))
        np.testing.assert_allclose(batch, [want, 2 * want], rtol=1e-5)
        with pytest.raises(ValueError, match="3 or 4-dimensional"):
            tf.image.total_variation(tf.zeros([3, 3]))
