"""The Optimizer base contract: slots, names, gating, errors and the messages that say why
a variable gets no gradient."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        yield g


def test_minimize_names_slots_and_increments_global_step(graph):
    w = tf.Variable([1.0, 2.0], name="w")
    b = tf.Variable(0.5, name="b")
    step = tf.train.get_or_create_global_step()
    loss = tf.reduce_sum(w * w) + b
    opt = tf.train.AdamOptimizer(0.1)
    train = opt.minimize(loss, global_step=step, name="train")
    assert train.name == "train" and train.type == "AssignAdd"
    assert opt.get_slot_names() == ["m", "v"]
    assert opt.get_slot(w, "m").op.name == "w/Adam"
    assert opt.get_slot(w, "v").op.name == "w/Adam_1"
    # Non-slot variables are colocated with the first variable by name ("b").
    beta1 = [v for v in opt.variables() if v.op.name == "beta1_power"][0]
    assert beta1.op.colocation_groups() == [b"loc:@b"]
    assert train in graph.get_collection(tf.GraphKeys.TRAIN_OP)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run(step) == 1
        assert np.all(sess.run(w) < [1.0, 2.0])


def test_gradient_descent_sparse_update_sums_duplicate_indices(graph):
    emb = tf.Variable(np.zeros((4, 2), np.float32), name="emb")
    loss = tf.reduce_sum(tf.gather(emb, [1, 1, 3]))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(emb), [[0, 0], [-1, -1], [0, 0], [-0.5, -0.5]])


@pytest.mark.parametrize("gate", [tf.train.Optimizer.GATE_NONE, tf.train.Optimizer.GATE_OP,
                                  tf.train.Optimizer.GATE_GRAPH])
def test_gating_modes_give_the_same_update(graph, gate):
    w = tf.Variable([1.0, -1.0], name="w")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(w * w),
                                                            gate_gradients=gate)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [0.8, -0.8], rtol=1e-6)


def test_invalid_gate_gradients(graph):
    w = tf.Variable(1.0)
    with pytest.raises(ValueError, match="gate_gradients must be one of"):
        tf.train.GradientDescentOptimizer(0.1).compute_gradients(w * 2.0, gate_gradients=7)


def test_no_gradients_message_says_why_per_variable(graph):
    used = tf.Variable(1.0, name="used")
    unused = tf.Variable(2.0, name="unused")
    loss = tf.cast(tf.cast(used * 3.0, tf.int32), tf.float32)
    with pytest.raises(ValueError) as info:
        tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=[used, unused])
    message = str(info.value)
    assert "No gradients provided for any variable" in message
    assert "unused:0: not connected to the loss" in message
    assert "used:0: blocked at op" in message and "Cast" in message


def test_errors_for_bad_arguments(graph):
    w = tf.Variable(1.0, name="w")
    opt = tf.train.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match="No variables provided"):
        opt.apply_gradients([])
    with pytest.raises(TypeError, match="Gradient must be"):
        opt.apply_gradients([(object(), w)])
    with pytest.raises(TypeError, match="pairs"):
        opt.apply_gradients([(tf.constant(1.0),)])
    with pytest.raises(TypeError, match="unsupported type"):
        opt.compute_gradients(w * 2.0, var_list=[object()])
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.apply_gradients([(None, w)])
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        tf.train.Optimizer(False, "")
    with pytest.raises(ValueError, match="Invalid type"):
        opt.compute_gradients(tf.constant(3), var_list=[w])
