"""Tensor: names, shapes, set_shape, eval, and the Python protocols it refuses."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.tensor import OperatorNotAllowedInGraphError


@pytest.fixture
def t():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 3], name="p")
        return tf.identity(p, name="i")


def test_properties(t):
    assert t.name == "i:0" and t.op.name == "i" and t.value_index == 0
    assert t.dtype is tf.float32
    assert t.shape.as_list() == [None, 3] and t.get_shape() is t.shape
    assert t.device == "" and t.graph is t.op.graph
    assert repr(t) == "<tf.Tensor 'i:0' shape=(?, 3) dtype=float32>"
    assert str(t) == 'Tensor("i:0", shape=(?, 3), dtype=float32)'
    assert t.op.outputs[0] is t


def test_set_shape(t):
    t.set_shape([2, 3])
    assert t.shape.as_list() == [2, 3]
    t.set_shape([None, None])
    assert t.shape.as_list() == [2, 3]
    with pytest.raises(ValueError, match=r"Dimension 1 in both shapes must be equal, but are "
                       r"3 and 4. Shapes are \[2,3\] and \[2,4\]."):
        t.set_shape([2, 4])
    with pytest.raises(ValueError, match="Shapes must be equal rank, but are 2 and 1"):
        t.set_shape([3])
    with tf.Graph().as_default():
        u = tf.placeholder(tf.float32, name="u")
        u.set_shape([None, 5])
        assert u.shape.as_list() == [None, 5]


def test_hash_and_equality_are_identity(t):
    with t.graph.as_default():
        other = tf.identity(t)
    assert {t: 1}[t] == 1 and t in {t} and t in [t]
    assert t == t and (t != other) and not (t == other)
    assert hash(t) == hash(t)


def test_refused_protocols(t):
    with pytest.raises(OperatorNotAllowedInGraphError, match="Using a symbolic `tf.Tensor` "
                       "as a Python `bool` is not allowed"):
        bool(t)
    with pytest.raises(TypeError, match="Iterating over a symbolic `tf.Tensor` is not "
                       "allowed"):
        iter(t)
    with pytest.raises(TypeError, match=r"len is not well defined for a symbolic Tensor "
                       r"\(i:0\). Please call `x.shape`"):
        len(t)
    with pytest.raises(NotImplementedError, match=r"Cannot convert a symbolic tf.Tensor "
                       r"\(i:0\) to a numpy array"):
        np.asarray(t)


def test_eval(t):
    with pytest.raises(ValueError, match=r"Cannot evaluate tensor using `eval\(\)`: No default "
                       r"session is registered. Use `with sess.as_default\(\)` or pass an "
                       r"explicit session to `eval\(session=sess\)`"):
        t.eval()
    with tf.Session(graph=t.graph) as sess:
        out = t.eval(feed_dict={"p:0": [[1, 2, 3]]})
        np.testing.assert_array_equal(out, [[1, 2, 3]])
        out = t.eval(feed_dict={"p:0": [[4, 5, 6]]}, session=sess)
        np.testing.assert_array_equal(out, [[4, 5, 6]])
    with tf.Session(graph=tf.Graph()) as other:
        with pytest.raises(ValueError, match="Cannot use the given session to evaluate tensor"):
            t.eval(session=other)
        with pytest.raises(ValueError, match="Cannot use the default session to evaluate "
                           "tensor: the tensor's graph is different"):
            t.eval()


def test_override_operator_installs_methods():
    from trainflow._src.framework.tensor import Tensor
    had = "__matmul_test__" in vars(Tensor)
    Tensor._override_operator("__matmul_test__", lambda self: "called")
    try:
        with tf.Graph().as_default():
            assert tf.constant(1).__matmul_test__() == "called"
    finally:
        if not had:
            delattr(Tensor, "__matmul_test__")
