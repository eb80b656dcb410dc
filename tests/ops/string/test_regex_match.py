"""RegexFullMatch / StaticRegexFullMatch: whole-string matches, static patterns, bad patterns."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.ops.string.regex_match import regex_full_match


def test_full_match_static_and_dynamic():
    with tf.Graph().as_default():
        s = tf.constant(["s3://bucket/x", "/tmp/s3://", "abc"])
        static = regex_full_match(s, "^s3://.*")
        pattern = tf.placeholder(tf.string, [])
        dynamic = regex_full_match(s, pattern)
        assert static.op.type == "StaticRegexFullMatch" and dynamic.op.type == "RegexFullMatch"
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(static), [True, False, False])
            np.testing.assert_array_equal(sess.run(dynamic, {pattern: "a.c|/tmp.*"}),
                                          [False, True, True])
            with pytest.raises(errors.InvalidArgumentError, match="Invalid pattern"):
                sess.run(dynamic, {pattern: "("})
