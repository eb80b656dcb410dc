"""ensure_shape, guarantee_const, bitcast, to_complex64/128, timestamp, get_seed and
tables_initializer against TensorFlow: op types, static shapes, dtypes, values, gradients
and errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors

from expr_values import comparison_test
from tf_interop import needs_tf


PRELUDE = """
x = tf.placeholder_with_default(np.ones([2, 3], np.float32), [None, 3])
f = tf.constant([1.0, -2.5], tf.float32)
"""

EXPRESSIONS = [
    "tf.ensure_shape(x, [2, None])", "tf.ensure_shape(x, [2, 3], name='es')",
    "tf.ensure_shape(x, [None, 4])", "tf.ensure_shape(x, None)",
    "tf.gradients(tf.reduce_sum(tf.ensure_shape(x, [2, 3]) * 3.), x)[0]",
    "tf.guarantee_const(f)", "tf.gradients(tf.guarantee_const(f), f)",
    "tf.bitcast(f, tf.uint8)", "tf.bitcast(f, tf.int32)",
    "tf.bitcast(tf.constant([[1, 2], [3, 4]], tf.int32), tf.int64)",
    "tf.bitcast(tf.constant([1, 2, 3], tf.int32), tf.int64)",
    "tf.bitcast(tf.constant([1, 2], tf.uint16), tf.float16)",
    "tf.to_complex64(f)", "tf.to_complex128([1, 2])", "tf.real(tf.to_complex64(f) * 2)",
    "tf.timestamp().dtype == tf.float64 and tf.constant(1)", "tf.shape(tf.timestamp())",
    "tf.constant(list(tf.get_seed(None)) == [None, None])",
    "tf.constant(tf.get_seed(5)[1])", "tf.tables_initializer().type == 'NoOp' and f",
]


test_matches_tf = needs_tf(comparison_test(PRELUDE, EXPRESSIONS))


def test_ensure_shape_checks_when_it_runs():
    # TensorFlow's own message, which its exec'd interop script cannot format.
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.ensure_shape(x, [3, 3])
        with tf.Session() as sess, pytest.raises(
                errors.InvalidArgumentError,
                match=r"Shape of tensor \[2,3\] is not compatible with expected shape "
                      r"\[3,3\]"):
            sess.run(y, {x: np.ones([2, 3])})
