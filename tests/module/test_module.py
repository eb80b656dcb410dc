"""tf.Module (name scopes, variable and sub-module tracking) and tf.init_scope, with the
names and orders TensorFlow 2.21 gives in TF1 graph mode (recorded from it)."""
import pytest

import trainflow.compat.v1 as tf


class Dense(tf.Module):
    def __init__(self, n, name=None):
        super().__init__(name=name)
        with self.name_scope:
            self.w = tf.Variable(tf.ones([2, n]), name="w")
            self.b = tf.Variable(tf.zeros([n]), trainable=False, name="b")

    @tf.Module.with_name_scope
    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


class MLP(tf.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(2), Dense(2, name="second")]
        self.extra = {"z": tf.Variable(1., name="z")}


def test_tracking_and_names_as_tensorflow():
    with tf.Graph().as_default():
        m = MLP()
        assert (m.name, m.name_scope.name) == ("mlp", "mlp/")
        assert [v.name for v in m.variables] == [
            "z:0", "dense/b:0", "dense/w:0", "second/b:0", "second/w:0"]
        assert [v.name for v in m.trainable_variables] == ["z:0", "dense/w:0", "second/w:0"]
        assert [v.name for v in m.non_trainable_variables] == ["dense/b:0", "second/b:0"]
        assert [s.name for s in m.submodules] == ["dense", "second"]
        assert m.layers[0](tf.ones([1, 2])).name == "dense/add:0"
        assert [v.name for v in MLP().variables] == [
            "z_1:0", "dense_1/b:0", "dense_1/w:0", "second_1/b:0", "second_1/w:0"]
        with tf.name_scope("outer"):
            d = Dense(1)
            assert d.w.name == "outer/dense/w:0"
            assert d(tf.ones([1, 2])).name == "outer/dense/add:0"


def test_shared_objects_are_reported_once():
    with tf.Graph().as_default():
        d = Dense(1)
        holder = tf.Module(name="holder")
        holder.a, holder.b, holder.c = d, [d, (d.w,)], {"k": d.w}
        assert holder.submodules == (d,)
        assert [v.name for v in holder.variables] == ["dense/w:0", "dense/b:0"]


@pytest.mark.parametrize("name", ["a b", "1abc", "a/b", "-x"])
def test_invalid_names(name):
    with tf.Graph().as_default(), pytest.raises(ValueError, match="not a valid module name"):
        tf.Module(name=name)


def test_init_scope_clears_control_dependencies_and_keeps_the_name_scope():
    with tf.Graph().as_default() as g:
        with tf.control_dependencies([tf.no_op(name="dep")]):
            with tf.init_scope():
                c = tf.constant(1., name="c")
        assert c.op.control_inputs == []
        with tf.name_scope("s"), tf.init_scope():
            assert tf.constant(1., name="k").name == "s/k:0"

        def body(i):
            with tf.init_scope():
                k = tf.constant(7, name="lifted")
            return i + k
        r = tf.while_loop(lambda i: i < 20, body, [0])
        with tf.Session() as sess:
            assert sess.run(r) == 21
        assert [o.name for o in g.get_operations() if "lifted" in o.name] == ["while/lifted"]


def test_init_scope_leaves_a_cond_branch():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        made = []

        def branch():
            with tf.init_scope():
                made.append(tf.constant(3.))
            return made[-1] * 2.
        out = tf.cond(p, branch, lambda: tf.constant(0.))
        with tf.Session() as sess:
            assert sess.run(made[0]) == 3.
            assert sess.run(out, {p: True}) == 6.
