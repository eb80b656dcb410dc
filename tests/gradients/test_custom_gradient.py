"""tf.custom_gradient in graph mode: the user's grad_fn replaces the function's own
gradient, for several inputs/outputs and for variables read inside."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_stable_log1pexp(graph):
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)
        return tf.log(1 + e), lambda dy: dy * (1 - 1 / (1 + e))

    x = tf.constant([0.0, 100.0])
    y = log1pexp(x)
    (dx,) = tf.gradients(y, x)
    assert y.op.type == "IdentityN"
    with tf.Session() as sess:
        yv, dxv = sess.run([y, dx])
    assert np.isinf(yv[1])
    np.testing.assert_allclose(dxv, [0.5, 1.0])


def test_several_inputs_and_outputs(graph):
    @tf.custom_gradient
    def two(a, b):
        def grad(g1, g2):
            return g1 * b * 10.0, g2 * 100.0
        return (a * b, a + b), grad

    a, b = tf.constant(2.0), tf.constant(5.0)
    p, q = two(a, b)
    ga, gb = tf.gradients(p + q, [a, b])
    with tf.Session() as sess:
        assert sess.run([p, q]) == [10.0, 7.0]
        assert sess.run([ga, gb]) == [50.0, 100.0]


def test_variables_read_inside_get_grad_fn_gradients(graph):
    w = tf.Variable(2.0, name="w")
    outside = tf.Variable(3.0, name="outside")
    arg = outside * 1.0

    @tf.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            assert variables == [w]
            return dy * 10.0, [dy * 7.0]
        return x * w, grad

    z = scale(arg)
    gw, gout = tf.gradients(z, [w, outside])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run([z, gw, gout]) == [6.0, 7.0, 10.0]


def test_variables_created_inside_are_passed_too(graph):
    @tf.custom_gradient
    def dense(x):
        w = tf.get_variable("w", initializer=tf.constant(3.0))

        def grad(dy, variables=None):
            assert [v.op.name for v in variables] == ["w"]
            return dy * w, [dy * x * 100.0]
        return x * w, grad

    x = tf.constant(2.0)
    y = dense(x)
    w = tf.global_variables()[0]
    gx, gw = tf.gradients(y, [x, w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run([y, gx, gw]) == [6.0, 3.0, 200.0]


def test_variables_need_a_variables_keyword(graph):
    w = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        return x * w, lambda dy: dy

    with pytest.raises(TypeError, match="keyword argument 'variables'"):
        f(tf.constant(1.0))


def test_keyword_arguments_are_rejected_in_graph_mode(graph):
    @tf.custom_gradient
    def f(x):
        return x, lambda dy: dy

    with pytest.raises(ValueError, match="only when eager execution"):
        f(x=tf.constant(1.0))
