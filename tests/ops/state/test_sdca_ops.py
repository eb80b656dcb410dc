"""SdcaShrinkL1 and SdcaFprint against TF 2.21's results (fingerprints recorded by
data/gen_sdca_reference.py)."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry


def test_shrink_l1_matches_tensorflow():
    with tf.Graph().as_default():
        a = tf.Variable(np.array([1.0, -0.3, 0.05, -2.0], np.float32))
        b = tf.Variable(np.array([[0.5, -0.1]], np.float32))
        op = tf.train.sdca_shrink_l1([a, b], l1=0.2, l2=2.0)
        assert op.type == "SdcaShrinkL1" and op.name == "SdcaShrinkL1"
        assert op.get_attr("num_features") == 2 and not op.outputs
        assert registry.get("SdcaShrinkL1").gradient is None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(op)
            got_a, got_b = sess.run([a, b])
    # TF 2.21: [0.9, -0.20000002, 0, -1.9] and [[0.4, -0.0]]
    np.testing.assert_array_equal(got_a, np.float32([0.9, -0.20000002, 0.0, -1.9]))
    np.testing.assert_array_equal(got_b, np.float32([[0.4, -0.0]]))
    assert np.signbit(got_b[0, 1])


def test_shrink_l1_takes_float32_only():
    with tf.Graph().as_default():
        with pytest.raises(TypeError):
            tf.train.sdca_shrink_l1([tf.Variable([1.0], dtype=tf.float64)], l1=0.1, l2=1.0)


def _fprint_reference():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                        "sdca_reference.json")
    with open(path) as f:
        return json.load(f)["fprint"]


def test_fprint_matches_tensorflow():
    ref = _fprint_reference()
    with tf.Graph().as_default():
        out = tf.train.sdca_fprint(ref["inputs"])
        assert out.op.type == "SdcaFprint" and out.dtype == tf.int64
        assert out.shape.as_list() == [len(ref["inputs"]), 2]
        assert registry.get("SdcaFprint").gradient is None
        with tf.Session() as sess:
            got = sess.run(out)
    np.testing.assert_array_equal(got, np.int64(ref["expected"]))


def test_fprint_needs_a_vector():
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            tf.train.sdca_fprint([["a"]])
        p = tf.placeholder(tf.string)
        out = tf.train.sdca_fprint(p)
        assert out.shape.as_list() == [None, 2]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input must be a vector, "
                               r"got shape \[1,1\]"):
                sess.run(out, {p: [["a"]]})
