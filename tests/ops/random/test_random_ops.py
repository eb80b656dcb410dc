"""Random ops (ops/random_ops.py, ops/random_kernels.py): TF's graph structure and
seeds, reproducible streams, distributions and errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors


def _names(graph):
    return [op.name for op in graph.get_operations()]


def test_random_normal_structure_and_seeds():
    with tf.Graph().as_default() as g:
        r = tf.random_normal([2, 3])
        assert _names(g) == ["random_normal/shape", "random_normal/mean", "random_normal/stddev",
                             "random_normal/RandomStandardNormal", "random_normal/mul",
                             "random_normal"]
        rnd = g.get_operation_by_name("random_normal/RandomStandardNormal")
        assert (rnd.get_attr("seed"), rnd.get_attr("seed2")) == (0, 0)
        assert r.op.type == "AddV2" and r.shape.as_list() == [2, 3] and r.dtype == tf.float32
        tf.set_random_seed(7)
        r2 = tf.truncated_normal([2], seed=3, dtype=tf.float64)
        op = g.get_operation_by_name("truncated_normal/TruncatedNormal")
        assert (op.get_attr("seed"), op.get_attr("seed2")) == (7, 3)
        assert r2.dtype == tf.float64


def test_random_uniform_structures():
    with tf.Graph().as_default() as g:
        unit = tf.random_uniform([2], seed=3)
        assert unit.name == "random_uniform/RandomUniform:0"
        assert unit.op.get_attr("seed") == 87654321 and unit.op.get_attr("seed2") == 3
        scaled = tf.random_uniform([4, 8], -1.0, 1.0)
        assert scaled.name == "random_uniform_1:0" and scaled.op.type == "AddV2"
        assert [n for n in _names(g) if n.startswith("random_uniform_1/")] == [
            "random_uniform_1/shape", "random_uniform_1/min", "random_uniform_1/max",
            "random_uniform_1/RandomUniform", "random_uniform_1/sub", "random_uniform_1/mul"]
        ints = tf.random_uniform([2], maxval=5, dtype=tf.int32)
        assert ints.name == "random_uniform_2:0" and ints.op.type == "RandomUniformInt"
        assert ints.dtype == tf.int32
        with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
            tf.random_uniform([2], dtype=tf.int64)
        with pytest.raises(ValueError, match="Argument `dtype` got invalid value"):
            tf.random_uniform([2], dtype=tf.int8)


def test_other_op_names_and_static_shapes():
    with tf.Graph().as_default():
        s = tf.random_shuffle([1, 2, 3])
        m = tf.multinomial([[0.0, 1.0]], 3)
        gm = tf.random_gamma([3], [1.0, 2.0])
        po = tf.random_poisson([1.0, 2.0], [3])
        assert s.name == "RandomShuffle:0"
        assert m.name == "multinomial/Multinomial:0"
        assert m.shape.as_list() == [1, 3] and m.dtype == tf.int64
        assert gm.name == "random_gamma/Maximum:0" and gm.shape.as_list() == [3, 2]
        assert po.name == "random_poisson/RandomPoissonV2:0" and po.shape.as_list() == [3, 2]
        assert tf.random.categorical([[0.0, 1.0]], 2, dtype=tf.int32).dtype == tf.int32


def test_seeded_streams_repeat_across_sessions_and_continue_within_one():
    with tf.Graph().as_default():
        r = tf.random_uniform([5], seed=42)
        with tf.Session() as s1:
            a1, a2 = s1.run(r), s1.run(r)
        with tf.Session() as s2:
            b1, b2 = s2.run(r), s2.run(r)
        np.testing.assert_array_equal(a1, b1)
        np.testing.assert_array_equal(a2, b2)
        assert not np.array_equal(a1, a2)
        other = tf.random_uniform([5], seed=43)
        with tf.Session() as s3:
            assert not np.array_equal(s3.run(other), a1)


def test_graph_seed_makes_unseeded_ops_reproducible_and_distinct():
    def build():
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(1234)
            x = tf.random_normal([4])
            y = tf.random_normal([4])
        return g, x, y

    g1, x1, y1 = build()
    g2, x2, y2 = build()
    with tf.Session(graph=g1) as s1, tf.Session(graph=g2) as s2:
        vx1, vy1 = s1.run([x1, y1])
        vx2, vy2 = s2.run([x2, y2])
    np.testing.assert_array_equal(vx1, vx2)
    np.testing.assert_array_equal(vy1, vy2)
    assert not np.array_equal(vx1, vy1)


def test_unseeded_ops_are_nondeterministic():
    with tf.Graph().as_default():
        r = tf.random_uniform([8])
        with tf.Session() as s1, tf.Session() as s2:
            assert not np.array_equal(s1.run(r), s2.run(r))


@pytest.mark.parametrize("dtype", [tf.float16, tf.bfloat16, tf.float32, tf.float64])
def test_float_distributions(dtype):
    n = 20000
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        normal = tf.random_normal([n], mean=1.0, stddev=2.0, dtype=dtype)
        trunc = tf.truncated_normal([n], stddev=1.0, dtype=dtype)
        unif = tf.random_uniform([n], minval=-3.0, maxval=5.0, dtype=dtype)
        unit = tf.random_uniform([n], dtype=dtype)
        with tf.Session() as sess:
            a, b, c, d = sess.run([normal, trunc, unif, unit])
    for x in (a, b, c, d):
        assert x.dtype == dtype.as_numpy_dtype and x.shape == (n,)
    a, b, c, d = (x.astype(np.float64) for x in (a, b, c, d))
    assert abs(a.mean() - 1.0) < 0.08 and abs(a.std() - 2.0) < 0.08
    assert np.abs(b).max() <= 2.0 and abs(b.std() - 0.8796) < 0.03
    assert c.min() >= -3.0 and c.max() <= 5.0 and abs(c.mean() - 1.0) < 0.1
    assert d.min() >= 0.0 and d.max() < 1.0


def test_integer_uniform_and_errors():
    with tf.Graph().as_default():
        r = tf.random_uniform([5000], minval=-2, maxval=3, dtype=tf.int64, seed=1)
        lo = tf.placeholder(tf.int32, [])
        bad = tf.random_uniform([3], minval=lo, maxval=2, dtype=tf.int32)
        neg = tf.random_normal(tf.placeholder_with_default([2, -1], [2]))
        with tf.Session() as sess:
            x = sess.run(r)
            assert x.dtype == np.int64 and set(np.unique(x)) == {-2, -1, 0, 1, 2}
            with pytest.raises(errors.InvalidArgumentError, match="Need minval < maxval: 2 >= 2"):
                sess.run(bad, {lo: 2})
            with pytest.raises(errors.InvalidArgumentError, match="Dimension -1 must be >= 0"):
                sess.run(neg)


def test_shuffle_is_a_permutation_of_rows():
    with tf.Graph().as_default():
        value = np.arange(20).reshape(10, 2)
        s = tf.random_shuffle(value, seed=5)
        with tf.Session() as sess:
            out = sess.run(s)
        assert sorted(map(tuple, out)) == sorted(map(tuple, value))
        assert not np.array_equal(out, value)


def test_multinomial_frequencies():
    logits = np.array([np.log([0.2, 0.3, 0.5]), [-np.inf, 0.0, -np.inf]])
    with tf.Graph().as_default():
        m = tf.multinomial(logits.astype(np.float32), 20000, seed=9, output_dtype=tf.int32)
        with tf.Session() as sess:
            out = sess.run(m)
    assert out.dtype == np.int32 and out.shape == (2, 20000)
    np.testing.assert_allclose(np.bincount(out[0], minlength=3) / 20000.0, [0.2, 0.3, 0.5],
                               atol=0.02)
    assert np.all(out[1] == 1)  # -inf logits are never drawn


def test_gamma_and_poisson_means():
    with tf.Graph().as_default():
        gm = tf.random_gamma([20000], [1.0, 4.0], beta=[2.0, 1.0], seed=3)
        po = tf.random_poisson([0.5, 6.0], [20000], seed=3)
        with tf.Session() as sess:
            g, p = sess.run([gm, po])
    np.testing.assert_allclose(g.mean(axis=0), [0.5, 4.0], rtol=0.05)
    assert g.min() > 0
    np.testing.assert_allclose(p.mean(axis=0), [0.5, 6.0], rtol=0.05)


def test_random_crop():
    value = np.arange(60).reshape(6, 10)
    with tf.Graph().as_default():
        crop = tf.random_crop(value, [2, 3], seed=4)
        too_big = tf.random_crop(value, [7, 1])
        with tf.Session() as sess:
            for _ in range(5):
                out = sess.run(crop)
                r, c = divmod(int(out[0, 0]), 10)
                np.testing.assert_array_equal(out, value[r:r + 2, c:c + 3])
            with pytest.raises(errors.InvalidArgumentError, match="Need value.shape >= size"):
                sess.run(too_big)
