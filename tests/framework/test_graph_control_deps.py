"""Graph.control_dependencies: nesting, None, dominated inputs, tensors and ops.

Expected control inputs were recorded from TensorFlow 2.21 (compat.v1 graph mode).
"""
import pytest

import trainflow.compat.v1 as tf


def _ctrl(t):
    return [o.name for o in t.op.control_inputs]


def test_nesting_none_and_dominated_inputs():
    with tf.Graph().as_default() as g:
        a = tf.constant(1, name="a")
        b = tf.constant(2, name="b")
        with g.control_dependencies([a]):
            c = tf.constant(3, name="c")
            with g.control_dependencies([b]):
                d = tf.constant(4, name="d")
                with g.control_dependencies(None):
                    e = tf.constant(5, name="e")
                    with g.control_dependencies([c]):
                        f = tf.constant(5, name="f")
                # c was created inside the [a] block, not the [b] one: only b is added.
                h = tf.identity(c, name="h")
            i = tf.identity(c, name="i")
            j = tf.identity(b, name="j")
            # a is a data input: no control edge to it.
            k = tf.identity(a, name="k")
            with g.control_dependencies([a.op, b]):
                m = tf.constant(1, name="m")
            with g.control_dependencies([a]):
                n = tf.constant(1, name="n")
    assert _ctrl(c) == ["a"]
    assert _ctrl(d) == ["a", "b"]
    assert _ctrl(e) == []
    assert _ctrl(f) == ["c"]
    assert _ctrl(h) == ["b"]
    assert _ctrl(i) == []
    assert _ctrl(j) == ["a"]
    assert _ctrl(k) == []
    assert _ctrl(m) == ["a", "b"]
    assert _ctrl(n) == ["a"]


def test_control_inputs_are_marked_and_exported():
    with tf.Graph().as_default() as g:
        a = tf.constant(1, name="a")
        with g.control_dependencies([a]):
            b = tf.constant(1, name="b")
    assert a.op.get_attr("_has_manual_control_dependencies") is True
    assert list(b.op.node_def.input) == ["^a"]
    assert a.op._control_outputs == [b.op]


def test_enter_returns_none_and_empty_list():
    with tf.Graph().as_default() as g:
        a = tf.constant(1, name="a")
        with g.control_dependencies([a]) as entered:
            assert entered is None
        with g.control_dependencies([]):
            assert tf.constant(1).op.control_inputs == []
        with tf.control_dependencies([a]):
            assert _ctrl(tf.constant(1)) == ["a"]


def test_names_and_variables_like_objects():
    with tf.Graph().as_default() as g:
        a = tf.constant(1, name="a")

        class VarLike:
            def _as_graph_element(self):
                return a
        with g.control_dependencies(["a"]):
            assert _ctrl(tf.constant(1)) == ["a"]
        with g.control_dependencies(["a:0"]):
            assert _ctrl(tf.constant(1)) == ["a"]
        with g.control_dependencies([VarLike()]):
            assert _ctrl(tf.constant(1)) == ["a"]


def test_bad_control_inputs():
    with tf.Graph().as_default() as g:
        a = tf.constant(1, name="a")
        with pytest.raises(TypeError, match="Can not convert a int into a Tensor or Operation"):
            g.control_dependencies([5])
        with pytest.raises(TypeError):
            g.control_dependencies(a)  # a Tensor is not a list
    with tf.Graph().as_default():
        other = tf.constant(1)
    with pytest.raises(ValueError, match="is not an element of this graph"):
        g.control_dependencies([other])


def test_control_dependencies_are_per_thread():
    import threading
    with tf.Graph().as_default() as g:
        a = tf.constant(1, name="a")
        seen = []

        def worker():
            with g.as_default():
                seen.append(_ctrl(tf.constant(2)))

        with g.control_dependencies([a]):
            t = threading.Thread(target=worker)
            t.start()
            t.join()
    assert seen == [[]]
