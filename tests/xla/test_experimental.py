"""`tf.xla.experimental.jit_scope`: TF's XLA marks on the ops created inside, inherited by
their gradients, and honoured by the session: marked ops are compiled with the auto-jit
switch off, and `compile_ops=False` keeps ops off XLA with it on."""
import contextlib

import numpy as np
import pytest

import trainflow.compat.v1 as tf

pytest.importorskip("jax")


@pytest.fixture
def switch_off(monkeypatch):
    """No auto-jit from the environment (the suite may run with TRAINFLOW_XLA=1)."""
    monkeypatch.delenv("TF_XLA_FLAGS", raising=False)


def _clusters(sess):
    """The op names of each XLA cluster in the session's plans."""
    return [sorted(op.name for op in seg.ops) for plan in sess._plans.values()
            for seg in plan.ops if seg.type == "XlaCluster"]


def test_marks_scopes_and_nesting():
    with tf.Graph().as_default():
        a = tf.constant(1.0, name="a")
        with tf.xla.experimental.jit_scope():
            b = tf.add(a, 1.0, name="b")
            with tf.xla.experimental.jit_scope(compile_ops=False):
                c = tf.add(b, 1.0, name="c")
        with tf.xla.experimental.jit_scope(separate_compiled_gradients=True):
            d = tf.add(c, 1.0, name="d")
    assert "_XlaCompile" not in a.op.node_def.attr
    assert b.op.get_attr("_XlaCompile") is True
    assert b.op.get_attr("_XlaScope") == b"jit_scope_0"
    assert b.op.get_attr("_XlaSeparateCompiledGradients") is False
    assert c.op.get_attr("_XlaCompile") is False
    assert c.op.get_attr("_XlaScope") == b"jit_scope_0"  # nested: the parent's cluster
    assert d.op.get_attr("_XlaScope") == b"jit_scope_1"
    assert d.op.get_attr("_XlaSeparateCompiledGradients") is True
    assert d.op.node_def.attr["_XlaScope"].s == b"jit_scope_1"


def test_compile_ops_callable_decides_per_node():
    with tf.Graph().as_default():
        x = tf.ones([2, 2])
        with tf.xla.experimental.jit_scope(
                compile_ops=lambda node_def: "matmul" in node_def.op.lower()):
            m = tf.matmul(x, x)
            s = m + 1.0
    assert m.op.get_attr("_XlaCompile") is True
    assert s.op.get_attr("_XlaCompile") is False


def test_gradients_inherit_the_scope():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        with tf.xla.experimental.jit_scope():
            y = tf.square(x, name="y")
        with tf.xla.experimental.jit_scope(separate_compiled_gradients=True):
            z = tf.sin(y, name="z")
        tf.gradients(z, x, name="grads")
        g = tf.get_default_graph()
    square_grad = [op for op in g.get_operations() if op.name.startswith("grads/y_grad/")]
    sin_grad = [op for op in g.get_operations() if op.name.startswith("grads/z_grad/")]
    assert square_grad and sin_grad
    for op in square_grad:
        assert op.get_attr("_XlaCompile") is True
        assert op.get_attr("_XlaScope") == b"jit_scope_0"
    for op in sin_grad:
        assert op.get_attr("_XlaCompile") is True
        assert op.get_attr("_XlaScope") == b"jit_scope_1_grad_grads/"


def test_marked_ops_compile_with_the_switch_off(switch_off):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        pre = tf.multiply(x, 2.0, name="pre")
        with tf.xla.experimental.jit_scope():
            mid = tf.nn.relu(pre - 1.0, name="mid")
            mid2 = tf.exp(mid, name="mid2")
        with tf.xla.experimental.jit_scope():
            other = tf.sqrt(mid2, name="other")
        out = tf.add(other, 1.0, name="out")
        with tf.Session() as sess:
            assert sess._context.xla is None
            got = sess.run(out, {x: [0.0, 1.0, 2.0]})
            clusters = _clusters(sess)
    want = np.sqrt(np.exp(np.maximum(np.array([0.0, 2.0, 4.0]) - 1.0, 0.0))) + 1.0
    np.testing.assert_allclose(got, want, rtol=1e-6)
    # One cluster per scope, holding only the marked ops; the rest ran on NumPy.
    assert clusters == [["mid", "mid2", "sub"], ["other"]]


def test_compile_ops_false_stays_on_numpy_with_the_switch_on(monkeypatch):
    monkeypatch.setenv("TF_XLA_FLAGS", "--tf_xla_auto_jit=2")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        a = tf.square(x, name="a")
        with tf.xla.experimental.jit_scope(compile_ops=False):
            b = tf.negative(a, name="b")
        c = tf.add(b, 1.0, name="c")
        with tf.Session() as sess:
            assert sess.run(c, {x: [1.0, 2.0]}).tolist() == [0.0, -3.0]
            names = [n for cluster in _clusters(sess) for n in cluster]
    assert "b" not in names and {"a", "c"} <= set(names)


def test_marked_training_step_matches_numpy(switch_off):
    def train(mark):
        with tf.Graph().as_default():
            tf.set_random_seed(1)
            x = tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
            w = tf.Variable(np.full((3, 2), 0.5, np.float32), name="w")
            scope = tf.xla.experimental.jit_scope() if mark else contextlib.nullcontext()
            with scope:
                loss = tf.reduce_sum(tf.square(tf.matmul(x, w) - 1.0))
            step = tf.train.AdamOptimizer(0.1).minimize(loss)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                losses = [sess.run([loss, step])[0] for _ in range(5)]
                compiled = _clusters(sess)
                return losses, sess.run(w), compiled

    marked, w_marked, clusters = train(True)
    plain, w_plain, none = train(False)
    np.testing.assert_allclose(marked, plain, rtol=1e-6)
    np.testing.assert_allclose(w_marked, w_plain, rtol=1e-6)
    assert clusters and not none
    # The gradient of the marked loss is compiled too (TF's rule), the Adam update is not.
    names = {n for cluster in clusters for n in cluster}
    assert any(n.startswith("gradients/") for n in names)
    assert not any("Adam" in n for n in names)
