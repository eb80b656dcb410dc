"""StackV2 / StackPushV2 / StackPopV2 / StackCloseV2: a new stack per run, LIFO order,
TF's errors for an empty, overflowing or closed stack."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.ops.data_flow import stack_ops  # noqa: F401 - registers the ops


def _stack(max_size=-1):
    return apply_op("StackV2", max_size=max_size, elem_type=tf.float32,
                    stack_name="s").outputs[0]


def test_push_pop_lifo_and_errors():
    with tf.Graph().as_default():
        h = _stack()
        a = apply_op("StackPushV2", handle=h, elem=tf.constant([1.0, 2.0])).outputs[0]
        with tf.control_dependencies([a]):
            b = apply_op("StackPushV2", handle=h, elem=tf.constant([3.0, 4.0])).outputs[0]
        with tf.control_dependencies([b]):
            p1 = apply_op("StackPopV2", handle=h, elem_type=tf.float32).outputs[0]
        with tf.control_dependencies([p1]):
            p2 = apply_op("StackPopV2", handle=h, elem_type=tf.float32).outputs[0]
        with tf.control_dependencies([p2]):
            p3 = apply_op("StackPopV2", handle=h, elem_type=tf.float32).outputs[0]
        with tf.Session() as sess:
            got = sess.run([p1, p2])
            np.testing.assert_array_equal(got[0], [3.0, 4.0])
            np.testing.assert_array_equal(got[1], [1.0, 2.0])
            with pytest.raises(errors.InvalidArgumentError, match="Stack is empty"):
                sess.run(p3)
        small = _stack(max_size=1)
        push = apply_op("StackPushV2", handle=small, elem=tf.constant(1.0)).outputs[0]
        with tf.control_dependencies([push]):
            again = apply_op("StackPushV2", handle=small, elem=tf.constant(2.0)).outputs[0]
        closed = _stack()
        close = apply_op("StackCloseV2", handle=closed)
        with tf.control_dependencies([close]):
            late = apply_op("StackPopV2", handle=closed, elem_type=tf.float32).outputs[0]
        with tf.Session() as sess:
            with pytest.raises(errors.InvalidArgumentError, match="overflowed"):
                sess.run(again)
            with pytest.raises(errors.InvalidArgumentError, match="already been closed"):
                sess.run(late)
