"""tf.einsum: one Einsum op, NumPy's values, static shapes, and gradients against
finite differences (float64)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

R = np.random.RandomState(5)
A = R.uniform(-1, 1, (2, 3))
B = R.uniform(-1, 1, (3, 4))
C = R.uniform(-1, 1, (2, 3, 4))
D = R.uniform(-1, 1, (2, 4, 5))
V = R.uniform(-1, 1, (3,))
S5 = R.uniform(-1, 1, (1, 3, 4))

CASES = [
    ("ij,jk->ik", [A, B]),
    ("ij,jk", [A, B]),
    ("ij->ji", [A]),
    ("ij->", [A]),
    ("ij->j", [A]),
    ("i,i->", [V, V]),
    ("i,j->ij", [V, V]),
    ("bij,bjk->bik", [C, D]),
    ("...ij,...jk->...ik", [C, D]),
    ("...jk,kl->...jl", [C, D[0]]),
    ("bij,jk->b", [C, B.T.copy()]),
    ("ijk->kij", [C]),
    ("ij,kjl->il", [A, R.uniform(-1, 1, (2, 3, 5))]),
    ("...ij,...jk->...ik", [S5, D]),
]


@pytest.mark.parametrize("eq,inputs", CASES, ids=[c[0] for c in CASES])
def test_forward_matches_numpy(eq, inputs):
    with tf.Graph().as_default():
        out = tf.einsum(eq, *[tf.constant(x, tf.float32) for x in inputs])
        assert out.op.type == "Einsum"
        want = np.einsum(eq, *inputs)
        assert out.shape.as_list() == list(want.shape)
        with tf.Session() as sess:
            got = sess.run(out)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("eq,inputs", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_finite_differences(eq, inputs):
    with tf.Graph().as_default():
        phs = [tf.placeholder(tf.float64, x.shape) for x in inputs]
        y = tf.einsum(eq, *phs)
        y_shape = list(np.einsum(eq, *inputs).shape)
        with tf.Session():
            for i, x in enumerate(inputs):
                others = {p: v for j, (p, v) in enumerate(zip(phs, inputs)) if j != i}
                theoretical, numerical = tf.test.compute_gradient(
                    phs[i], list(x.shape), y, y_shape, x_init_value=x, delta=1e-6,
                    extra_feed_dict=others)
                np.testing.assert_allclose(theoretical, numerical, rtol=1e-6, atol=1e-7)


def test_unknown_shapes_and_errors():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32)
        assert tf.einsum("ij,jk->ik", x, tf.zeros([3, 4])).shape.as_list() == [None, 4]
        assert tf.einsum("ij,jk->ik", x, y).shape.as_list() == [None, None]
        with pytest.raises(ValueError, match="sizes 3 and 4"):
            tf.einsum("ij,jk->ik", x, tf.zeros([4, 4]))
        with pytest.raises(ValueError, match="does not appear"):
            tf.einsum("ij->k", x)
        with pytest.raises(TypeError, match="Invalid keyword"):
            tf.einsum("ij->i", x, bogus=1)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(tf.einsum("ij,jk->ik", x, y), {x: np.ones((2, 3)), y: np.ones((2, 2))})


def test_repeated_labels_run_but_have_no_gradient():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3, 3])
        t = tf.einsum("ii->", x)
        with tf.Session() as sess:
            assert sess.run(t, {x: np.eye(3) * 2}) == 6.0
        with pytest.raises(LookupError, match="repeat a label"):
            tf.gradients(t, x)
