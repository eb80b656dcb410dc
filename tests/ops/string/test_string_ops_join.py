"""StringJoin: scalars broadcast against vectors, separator, shape errors."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.ops.string.string_ops import string_join


def test_string_join_broadcasts_scalars():
    with tf.Graph().as_default():
        out = string_join([tf.constant("a"), tf.constant(["x", "y"]), tf.constant("z")], "-")
        assert out.shape.as_list() == [2]
        with tf.Session() as sess:
            assert list(sess.run(out)) == [b"a-x-z", b"a-y-z"]


def test_string_join_shape_mismatch():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.string)
        out = string_join([a, tf.constant(["x", "y"])])
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError, match="Input shapes do not match"):
                sess.run(out, {a: ["1", "2", "3"]})
