"""tf.gradients and tf.hessians of math-op programs against values TensorFlow wrote
(`clip_ema/gradients.json`): several xs, grad_ys, stop_gradient and the
stop_gradients argument, unconnected xs (None or zeros), a matmul, and the Hessians
of 0.5 x^T A x + b^T x, x^T B x and sum(x^3).

tf.hessians differentiates through the Reshape/Tile/StridedSlice/Pack ops that the
first gradient and `hessians` itself build. Every Hessian is also checked row by row with
tf.gradients of <gradient, e_j>, which stays within math ops where it can.
"""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf

from fixture_paths import FIXTURES


def _fixture():
    with open(os.path.join(FIXTURES, "clip_ema", "gradients.json")) as f:
        return json.load(f)


def _value(entry):
    if entry is None:
        return None
    return np.array(entry["value"], dtype=entry["dtype"])


def _inputs(fx):
    return {k: np.asarray(v, np.float32) for k, v in fx["inputs"].items()}


def _programs(v):
    """The fixture's calls, built from constants of its inputs."""
    x, y, unused = tf.constant(v["x"]), tf.constant(v["y"]), tf.constant(v["unused"])
    w_mat, x_mat = tf.constant(v["W"]), tf.constant(v["X"])
    programs = {}
    f = tf.reduce_sum(x * x * y + tf.sin(x))
    programs["grad_f_wrt_x_y"] = lambda: tf.gradients(f, [x, y])
    programs["grad_ys"] = lambda: tf.gradients(
        [x * 2, x * x], [x], grad_ys=[tf.constant([0.5, 0.5, 0.5]), tf.constant([1., 2., 3.])])
    programs["stop_gradient"] = lambda: tf.gradients(
        tf.reduce_sum(x * tf.stop_gradient(x)), x)
    u = x * 3
    programs["stop_gradients_arg"] = lambda: tf.gradients(tf.reduce_sum(u * x), [x],
                                                          stop_gradients=[u])
    w = tf.reduce_sum(x * x)
    programs["unconnected_none"] = lambda: tf.gradients(w, [x, unused])
    programs["unconnected_zero"] = lambda: tf.gradients(w, [x, unused],
                                                        unconnected_gradients="zero")
    programs["matmul"] = lambda: tf.gradients(
        tf.reduce_sum(tf.square(tf.matmul(x_mat, w_mat))), [x_mat, w_mat])
    return programs


CASES = ["grad_f_wrt_x_y", "grad_ys", "stop_gradient", "stop_gradients_arg",
         "unconnected_none", "unconnected_zero", "matmul"]


@pytest.mark.parametrize("name", CASES)
def test_gradients_match_tensorflow(name):
    fx = _fixture()
    want = [_value(e) for e in fx["gradients"][name]["gradients"]]
    with tf.Graph().as_default():
        grads = _programs(_inputs(fx))[name]()
        assert [g is None for g in grads] == [w is None for w in want]
        with tf.Session() as sess:
            got = sess.run([g for g in grads if g is not None])
    for g, w in zip(got, [w for w in want if w is not None]):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


def _hessian_programs(v):
    a, b, big_b = tf.constant(v["A"]), tf.constant(v["b"]), tf.constant(v["B"])
    return {
        # A x and B x as row sums of A * x (x broadcast along the rows).
        "quadratic_sym": lambda x: 0.5 * tf.reduce_sum(x * tf.reduce_sum(a * x, 1)) +
        tf.reduce_sum(b * x),
        "quadratic_nonsym": lambda x: tf.reduce_sum(x * tf.reduce_sum(big_b * x, 1)),
        "cube": lambda x: tf.reduce_sum(x ** 3),
    }


HESSIANS = ["quadratic_sym", "quadratic_nonsym", "cube"]


def _hessian_case(name):
    fx = _fixture()
    entry = fx["hessians"][name]
    return _inputs(fx), np.asarray(entry["x"], np.float32), _value(entry["hessian"][0])


@pytest.mark.parametrize("name", HESSIANS)
def test_hessians_match_tensorflow(name):
    v, x0, want = _hessian_case(name)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        (h,) = tf.hessians(_hessian_programs(v)[name](x), x)
        with tf.Session() as sess:
            got = sess.run(h, {x: x0})
    assert got.dtype == np.float32 and got.shape == (3, 3)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", HESSIANS)
def test_hessian_rows_by_second_gradients(name):
    v, x0, want = _hessian_case(name)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3])
        (g,) = tf.gradients(_hessian_programs(v)[name](x), x)
        rows = []
        for j in range(3):
            e_j = tf.constant(np.eye(3, dtype=np.float32)[j])
            rows.append(tf.gradients(tf.reduce_sum(g * e_j), x)[0])
        with tf.Session() as sess:
            got = np.stack(sess.run(rows, {x: x0}))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
