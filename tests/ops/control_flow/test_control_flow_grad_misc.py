"""Gradients of the debugging and script ops, as TensorFlow registers them: Print
passes the gradient through, CheckNumerics checks it, Assert and PyFunc have none,
PrintV2 / StringFormat / NoOp have no gradient entry at all."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry


def test_print_passes_the_gradient_to_its_input_only(capsys):
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        data = tf.constant([5.0])
        y = tf.Print(x * 3.0, [data, x], message="value: ")
        gx, gdata = tf.gradients(y, [x, data])
        assert gdata is None
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(gx), [3.0, 3.0])
    # The gradient does not depend on the Print op, so it printed nothing.
    assert capsys.readouterr().err == ""


def test_check_numerics_checks_the_gradient_with_tensorflows_message():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        y = tf.check_numerics(x * 2.0, "my check")
        dy = tf.placeholder(tf.float32, [2])
        grad = tf.gradients(y, x, grad_ys=dy)[0]
        check = grad.op.inputs[0].op
        assert check.type == "CheckNumerics"
        assert check.get_attr("message") == (
            b"Not a number (NaN) or infinity (Inf) values detected in gradient. b'my check'")
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(grad, {dy: [1.0, 0.5]}), [2.0, 1.0])
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"detected in gradient\. b'my check' : Tensor had NaN"):
                sess.run(grad, {dy: [np.nan, 1.0]})


@pytest.mark.parametrize("stateful", [True, False])
def test_py_func_is_not_differentiable(stateful):
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        y = tf.py_func(np.square, [x], tf.float32, stateful=stateful)
        assert tf.gradients(y, x) == [None]
        assert tf.gradients(y + x, x)[0] is not None


def test_registrations_match_tensorflow():
    assert registry.get_gradient("Assert") == (True, None)
    assert registry.get_gradient("PyFunc") == (True, None)
    assert registry.get_gradient("PyFuncStateless") == (True, None)
    for op_type in ("PrintV2", "StringFormat", "NoOp"):
        assert registry.get_gradient(op_type) == (False, None)
    for op_type in ("Print", "CheckNumerics", "Switch", "RefSwitch", "Merge", "RefMerge",
                    "While", "StatelessWhile", "If", "StatelessIf"):
        found, fn = registry.get_gradient(op_type)
        assert found and callable(fn), op_type
