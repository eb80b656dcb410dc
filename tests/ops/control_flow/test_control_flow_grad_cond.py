"""Gradients through tf.cond (Switch / Merge): the gradient graph's structure, that
the untaken branch's gradient never runs, sparse and ref gradients, hessians, and
training through a cond."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry

_counted = []


@registry.RegisterGradient("CondGradTestCountingIdentity")
def _counting_identity_grad(op, grad):
    def record(g):
        _counted.append(op.name)
        return g
    return tf.py_func(record, [grad], grad.dtype, stateful=True)


def _ops_named(graph, prefix):
    return {op.name: op for op in graph.get_operations() if op.name.startswith(prefix)}


def test_gradient_graph_mirrors_tensorflow():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        y = tf.cond(p, lambda: x * 3.0, lambda: tf.sin(x))
        dx = tf.gradients(y, x)[0]
        ops = _ops_named(g, "gradients/cond/")
        merge_grad = ops["gradients/cond/Merge_grad/cond_grad"]
        assert merge_grad.type == "Switch"
        assert [t.name for t in merge_grad.inputs][1] == "cond/pred_id:0"
        sin_switch = ops["gradients/cond/Sin/Switch_grad/cond_grad"]
        mul_switch = ops["gradients/cond/mul/Switch_grad/cond_grad"]
        assert sin_switch.type == mul_switch.type == "Merge"
        # Merge inputs follow the Switch outputs: (false side, true side).
        assert sin_switch.inputs[0].name == "gradients/cond/Sin_grad/mul:0"
        assert mul_switch.inputs[1].name == "gradients/cond/mul_grad/Mul:0"
        assert dx.op.type == "AddN"
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(dx, {x: [1.0, 2.0], p: True}), [3.0, 3.0])
            np.testing.assert_allclose(sess.run(dx, {x: [1.0, 2.0], p: False}),
                                       np.cos([1.0, 2.0]), rtol=1e-6)


@pytest.mark.parametrize("taken", [True, False])
def test_untaken_branch_gradient_does_not_run(taken):
    _counted.clear()
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [2])
        p = tf.placeholder(tf.bool, [])
        with g.gradient_override_map({"Identity": "CondGradTestCountingIdentity"}):
            y = tf.cond(p, lambda: tf.identity(x * 2.0, name="t"),
                        lambda: tf.identity(tf.sin(x), name="f"))
        dx = tf.gradients(y, x)[0]
        with tf.Session() as sess:
            got = sess.run(dx, {x: [1.0, 2.0], p: taken})
    assert _counted == (["cond/t"] if taken else ["cond/f"])
    np.testing.assert_allclose(got, [2.0, 2.0] if taken else np.cos([1.0, 2.0]))


def test_assert_in_untaken_branch_does_not_fire():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2])
        p = tf.placeholder(tf.bool, [])

        def failing():
            with tf.control_dependencies([tf.Assert(False, ["untaken branch ran"])]):
                return x * 10.0
        y = tf.cond(p, lambda: x * x, failing)
        dx = tf.gradients(y, x)[0]
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(dx, {x: [1.0, 2.0], p: True}), [2.0, 4.0])
            with pytest.raises(tf.errors.InvalidArgumentError, match="untaken branch ran"):
                sess.run(dx, {x: [1.0, 2.0], p: False})


def test_gather_in_a_branch_gives_indexed_slices():
    with tf.Graph().as_default():
        emb = tf.Variable(np.arange(12.0).reshape(4, 3), dtype=tf.float32)
        p = tf.placeholder(tf.bool, [])
        y = tf.cond(p, lambda: tf.gather(emb, [1, 3, 1]), lambda: tf.ones([1, 3]) * 2.0)
        grad = tf.gradients(tf.reduce_sum(y * 1.5), emb)[0]
        assert isinstance(grad, tf.IndexedSlices)
        with tf.Session() as sess:
            sess.run(emb.initializer)
            for taken, rows in ((True, {1: 3.0, 3: 1.5}), (False, {})):
                value = sess.run(grad, {p: taken})
                dense = np.zeros((4, 3), np.float32)
                np.add.at(dense, value.indices, value.values)
                want = np.zeros((4, 3), np.float32)
                for row, v in rows.items():
                    want[row] = v
                np.testing.assert_array_equal(dense, want)


def test_indexed_slices_gradient_into_a_cond_output():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        p = tf.placeholder(tf.bool, [])
        y = tf.cond(p, lambda: x * 2.0, lambda: tf.sin(x))
        z = tf.gather(y, [0, 2, 2])
        dx = tf.gradients(tf.reduce_sum(z * [1.0, 2.0, 3.0]), x)[0]
        xv = np.array([0.1, 0.2, 0.3])
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(dx, {x: xv, p: True}), [2.0, 0.0, 10.0])
            np.testing.assert_allclose(sess.run(dx, {x: xv, p: False}),
                                       np.cos(xv) * [1.0, 0.0, 5.0])


def test_ref_switch_gradient_reaches_the_variable():
    with tf.Graph().as_default() as g:
        v = tf.Variable([1.0, 2.0], name="v")
        ref = v.op.outputs[0]
        p = tf.placeholder(tf.bool, [])
        y = tf.cond(p, lambda: tf.identity(ref) * 3.0, lambda: tf.constant([0.5, 0.5]))
        assert "RefSwitch" in {op.type for op in g.get_operations()}
        grad = tf.gradients(tf.reduce_sum(y), v)[0]
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(grad, {p: True}), [3.0, 3.0])
            np.testing.assert_array_equal(sess.run(grad, {p: False}), [0.0, 0.0])


@pytest.mark.parametrize("imported", [False, True])
def test_hessians_through_cond(imported):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [3], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        y = tf.cond(p, lambda: tf.reduce_sum(x ** 3), lambda: tf.reduce_sum(tf.sin(x) * x))
        tf.identity(y, name="y")
    if imported:
        # An imported graph has no cond contexts: the context-free gradients apply.
        graph_def = g.as_graph_def()
        g = tf.Graph()
        with g.as_default():
            tf.import_graph_def(graph_def, name="")
    with g.as_default():
        x, p, y = (g.get_tensor_by_name(n) for n in ("x:0", "p:0", "y:0"))
        h = tf.hessians(y, x)[0]
        xv = np.array([1.0, 2.0, -1.0])
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(h, {x: xv, p: True}), np.diag(6 * xv))
            np.testing.assert_allclose(sess.run(h, {x: xv, p: False}),
                                       np.diag(2 * np.cos(xv) - xv * np.sin(xv)), rtol=1e-12)


def test_training_through_cond_with_gradient_descent():
    rng = np.random.RandomState(0)
    features = rng.randn(32, 3)
    targets = features @ np.array([1.0, -2.0, 0.5]) + 0.3
    with tf.Graph().as_default():
        w = tf.Variable(tf.zeros([3], tf.float64))
        b = tf.Variable(tf.constant(0.0, tf.float64))
        use_l1 = tf.placeholder(tf.bool, [])
        pred = tf.reduce_sum(features * w, axis=1) + b
        loss = tf.cond(use_l1, lambda: tf.reduce_mean(tf.abs(pred - targets)),
                       lambda: tf.reduce_mean(tf.square(pred - targets)))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            before = sess.run(loss, {use_l1: False})
            # One step by hand: the L1 branch's gradient is mean(sign(err) * features).
            sess.run(train, {use_l1: True})
            np.testing.assert_allclose(sess.run(w), 0.1 * np.mean(
                np.sign(targets)[:, None] * features, axis=0))
            for step in range(200):
                sess.run(train, {use_l1: step % 2 == 0})
            after = sess.run(loss, {use_l1: False})
            assert after < before / 100
            np.testing.assert_allclose(sess.run(w), [1.0, -2.0, 0.5], atol=0.05)
