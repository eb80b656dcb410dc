"""Optimizer.compute_gradients / minimize with a callable loss and with Tensors in
var_list, as TF 1.x accepts them."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_callable_loss_differentiates_the_variables_it_reads(graph):
    w = tf.Variable(1.0, name="w")
    tf.Variable(2.0, name="unused")
    x = tf.constant([1.0, 2.0])
    opt = tf.train.GradientDescentOptimizer(0.1)
    gv = opt.compute_gradients(lambda: tf.reduce_sum(x * w * w))
    assert [v for _, v in gv] == [w]
    step = opt.minimize(lambda: tf.reduce_sum(x * w * w))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(gv[0][0]) == pytest.approx(6.0)
        sess.run(step)
        assert sess.run(w) == pytest.approx(1.0 - 0.1 * 6.0)


def test_callable_loss_gradients_run_after_the_loss(graph):
    w = tf.Variable(1.0, name="w")
    loss_ops = []

    def loss():
        value = w * 3.0
        loss_ops.append(value.op)
        return value

    (grad, _), = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
    ops = graph.get_operations()
    grad_ops = [op for op in ops if op.name.startswith("gradients/")]
    assert any(loss_ops[0] in op.control_inputs for op in grad_ops)


def test_callable_loss_without_variables_is_value_error(graph):
    with pytest.raises(ValueError):
        tf.train.GradientDescentOptimizer(0.1).minimize(lambda: tf.constant(1.0) * 2.0)


def test_tensors_in_var_list_get_gradients(graph):
    v = tf.Variable([1.0, 2.0], name="v")
    t = v * 2.0
    x = tf.constant([3.0, 4.0])
    gv = tf.train.GradientDescentOptimizer(0.1).compute_gradients(
        tf.reduce_sum(t * x), var_list=[t, v])
    assert gv[0][1] is t and gv[1][1] is v
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        g_t, g_v = sess.run([gv[0][0], gv[1][0]])
    np.testing.assert_allclose(g_t, [3.0, 4.0])
    np.testing.assert_allclose(g_v, [6.0, 8.0])
