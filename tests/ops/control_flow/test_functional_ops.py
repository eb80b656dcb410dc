"""tf.map_fn, tf.scan, tf.foldl and tf.foldr: values, structures, static shapes, and
gradients (through the while loop and its TensorArrays) against finite differences."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

X = np.arange(12.0).reshape(4, 3) / 10 - 0.4


def _run(fn):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [4, 3])
        out = fn(x)
        with tf.Session() as sess:
            return sess.run(out, {x: X})


def test_map_fn_values_structures_and_shapes():
    with tf.Graph().as_default():
        x = tf.constant(X)
        m = tf.map_fn(lambda r: tf.reduce_sum(r * r), x)
        assert m.shape.as_list() == [4]
        pair = tf.map_fn(lambda r: (r[0], r * 2.0), x, dtype=(tf.float64, tf.float64))
        nested = tf.map_fn(lambda e: e[0] + e[1]["b"], (x, {"b": x * 3}), dtype=tf.float64)
        ints = tf.map_fn(lambda r: tf.cast(r[0] * 10, tf.int32), x, dtype=tf.int32)
        with tf.Session() as sess:
            mv, (p0, p1), nv, iv = sess.run([m, pair, nested, ints])
    np.testing.assert_allclose(mv, (X * X).sum(1))
    np.testing.assert_allclose(p0, X[:, 0])
    np.testing.assert_allclose(p1, X * 2)
    np.testing.assert_allclose(nv, X * 4)
    assert iv.dtype == np.int32


def test_scan_and_folds():
    ref = [X[0]]
    for r in X[1:]:
        ref.append(ref[-1] * 0.5 + r)
    np.testing.assert_allclose(_run(lambda x: tf.scan(lambda a, r: a * 0.5 + r, x)), ref)
    rev = _run(lambda x: tf.scan(lambda a, r: a + r, x, initializer=tf.zeros([3], tf.float64),
                                 reverse=True))
    np.testing.assert_allclose(rev, np.cumsum(X[::-1], 0)[::-1])
    two = _run(lambda x: tf.scan(lambda a, r: (a[0] + r, a[1] * 2.0), x,
                                 initializer=(tf.zeros([3], tf.float64),
                                              tf.constant(1.0, tf.float64))))
    np.testing.assert_allclose(two[0], np.cumsum(X, 0))
    np.testing.assert_allclose(two[1], [2.0, 4.0, 8.0, 16.0])
    np.testing.assert_allclose(
        _run(lambda x: tf.foldl(lambda a, r: a + tf.reduce_sum(r), x,
                                initializer=tf.constant(0.0, tf.float64))), X.sum())
    acc = X[-1]
    for r in X[-2::-1]:
        acc = acc * 2 + r
    np.testing.assert_allclose(_run(lambda x: tf.foldr(lambda a, r: a * 2.0 + r, x)), acc)


def test_errors():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="callable"):
            tf.map_fn(1, tf.zeros([2]))
        with pytest.raises(ValueError, match="not scalars"):
            tf.map_fn(lambda v: v, tf.constant(1.0))


GRAD_CASES = [
    ("map_fn", lambda x: tf.map_fn(lambda r: tf.sin(r) * tf.reduce_sum(r), x)),
    ("scan", lambda x: tf.scan(lambda a, r: a * tf.cos(r) + r * r, x)),
    ("scan_reverse_init", lambda x: tf.scan(lambda a, r: a * r + 1.0, x,
                                            initializer=tf.ones([3], tf.float64), reverse=True)),
    ("foldl", lambda x: tf.foldl(lambda a, r: a * 0.5 + tf.exp(r), x)),
    ("foldr", lambda x: tf.foldr(lambda a, r: tf.tanh(a + r), x,
                                 initializer=tf.zeros([3], tf.float64))),
]


@pytest.mark.parametrize("name,fn", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients_match_finite_differences(name, fn):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [4, 3])
        y = fn(x)
        with tf.Session() as sess:
            y_shape = list(sess.run(y, {x: X}).shape)
            theoretical, numerical = tf.test.compute_gradient(x, [4, 3], y, y_shape,
                                                              x_init_value=X, delta=1e-6)
    np.testing.assert_allclose(theoretical, numerical, rtol=1e-7, atol=1e-8)
