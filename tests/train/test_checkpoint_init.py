"""tf.train.init_from_checkpoint: names, variables, partitions, scopes and '/' rules."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


@pytest.fixture
def ckpt(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2), name="old/emb")
        tf.Variable([1.0, 2.0], name="old/inner/w")
        tf.Variable([3.0], name="top")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, str(tmp_path / "m"))
    return str(tmp_path)


def _values(variables):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(variables)


def test_name_variable_and_partition_mappings(ckpt):
    with tf.Graph().as_default():
        a = tf.get_variable("a", [2])
        b = tf.Variable(tf.zeros([1]), name="b")
        p = tf.get_variable("p", [4, 2], partitioner=tf.fixed_size_partitioner(3))
        q = tf.get_variable("q", [4, 2], partitioner=tf.fixed_size_partitioner(2))
        tf.train.init_from_checkpoint(ckpt, {"old/inner/w": "a", "top": b, "old/emb": p})
        tf.train.init_from_checkpoint(ckpt, {"old/emb": "q"})
        got = _values([a, b, p.as_tensor(), q.as_tensor()])
        assert a.initializer.inputs[1].op.type == "RestoreV2"
    np.testing.assert_array_equal(got[0], [1.0, 2.0])
    np.testing.assert_array_equal(got[1], [3.0])
    np.testing.assert_array_equal(got[2], np.arange(8).reshape(4, 2))
    np.testing.assert_array_equal(got[3], np.arange(8).reshape(4, 2))


def test_scope_mappings(ckpt):
    with tf.Graph().as_default():
        with tf.variable_scope("new"):
            emb = tf.get_variable("emb", [4, 2], partitioner=tf.fixed_size_partitioner(2))
            w = tf.get_variable("inner/w", [2])
        tf.train.init_from_checkpoint(ckpt, {"old/": "new/"})
        got = _values([emb.as_tensor(), w])
    np.testing.assert_array_equal(got[0], np.arange(8).reshape(4, 2))
    np.testing.assert_array_equal(got[1], [1.0, 2.0])
    with tf.Graph().as_default():
        with tf.variable_scope("x"):
            emb = tf.get_variable("emb", [4, 2])
        tf.train.init_from_checkpoint(ckpt, {"old/": "x/"})
        np.testing.assert_array_equal(_values(emb), np.arange(8).reshape(4, 2))
    with tf.Graph().as_default():
        top = tf.get_variable("top", [1])
        tf.train.init_from_checkpoint(ckpt, {"/": "/"})  # root to root: every variable
        np.testing.assert_array_equal(_values(top), [3.0])


@pytest.mark.parametrize("mapping, match", [
    ({"missing": "a"}, "Tensor missing is not found in"),
    ({"top": "a"}, r"Shape of variable a:0 \(\(2,\)\) doesn't match"),
    ({"old/emb": "new/"}, "should map to scope only old/emb"),
    ({"nothere/": "a_scope/"}, None),
])
def test_errors(ckpt, mapping, match):
    with tf.Graph().as_default():
        tf.get_variable("a", [2])
        with tf.variable_scope("a_scope"):
            tf.get_variable("v", [1])
        if match is None:
            with pytest.raises(ValueError, match="Tensor nothere/v .* is not found"):
                tf.train.init_from_checkpoint(ckpt, mapping)
        else:
            with pytest.raises(ValueError, match=match):
                tf.train.init_from_checkpoint(ckpt, mapping)
