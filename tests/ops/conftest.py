"""Fixtures of the op tests."""
import types

import numpy as np
import pytest

import trainflow.compat.v1 as tf


@pytest.fixture
def env():
    """A fresh default graph holding the placeholders and constant the shape and error
    tables build on: x [?, 3], x3 [?, 2, 3], u (unknown shape), c (zeros [2, 3]),
    i (int32 scalar) and iv (int32 [?])."""
    with tf.Graph().as_default() as g:
        yield types.SimpleNamespace(
            g=g, x=tf.placeholder(tf.float32, [None, 3], name="x"),
            x3=tf.placeholder(tf.float32, [None, 2, 3], name="x3"),
            u=tf.placeholder(tf.float32, name="u"),
            c=tf.constant(np.zeros([2, 3], np.float32), name="c"),
            i=tf.placeholder(tf.int32, [], name="i"),
            iv=tf.placeholder(tf.int32, [None], name="iv"))
