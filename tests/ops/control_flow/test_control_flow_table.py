"""Table of the control-flow, check and script ops: forward values against NumPy.

Each entry is data: a name, a function building the op from input tensors, the
sample inputs (fed through placeholders) and a NumPy reference. Gradient checks
join this table later.
"""
import collections

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.control_flow import control_flow_ops

Case = collections.namedtuple("Case", "name build inputs reference")

_X = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)
_Y = np.array([[2.0, 1.0, -0.5], [4.0, 2.0, 8.0]], np.float32)


def _power_loop(x, n):
    return tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * x),
                         [0, tf.ones_like(x)])[1]


TABLE = [
    Case("cond_true", lambda x, y: tf.cond(tf.constant(True), lambda: x * y, lambda: x + y),
         [_X, _Y], lambda x, y: x * y),
    Case("cond_false", lambda x, y: tf.cond(tf.constant(False), lambda: x * y, lambda: x + y),
         [_X, _Y], lambda x, y: x + y),
    Case("cond_on_data", lambda x: tf.cond(tf.reduce_sum(x) > 0.0, lambda: x * 2.0, lambda: -x),
         [_X], lambda x: x * 2.0 if x.sum() > 0 else -x),
    Case("cond_outer_tensor", lambda x, y: tf.cond(tf.reduce_sum(y) > 100.0, lambda: x,
                                                   lambda: y),
         [_X, _Y], lambda x, y: y),
    Case("nested_cond", lambda x: tf.cond(
        tf.reduce_max(x) > 0.0,
        lambda: tf.cond(tf.reduce_min(x) < 0.0, lambda: tf.abs(x), lambda: x),
        lambda: tf.zeros_like(x)), [_X], np.abs),
    Case("case", lambda x, y: tf.case([(tf.reduce_sum(x) < 0.0, lambda: x),
                                       (tf.reduce_sum(y) > 0.0, lambda: x - y)],
                                      default=lambda: y),
         [_X, _Y], lambda x, y: x - y),
    Case("while_power", lambda x: _power_loop(x, 3), [_X], lambda x: x ** 3),
    Case("while_max_iterations", lambda x: tf.while_loop(
        lambda a: tf.reduce_sum(a) < 1e9, lambda a: a + x, [x], maximum_iterations=4),
        [_X], lambda x: 5 * x),
    Case("while_two_vars", lambda x, y: tf.while_loop(
        lambda i, a, b: i < 2, lambda i, a, b: (i + 1, a + b, a * b), [0, x, y])[1:],
        [_X, _Y], lambda x, y: [x + y + x * y, (x + y) * (x * y)]),
    Case("check_numerics", lambda x: tf.check_numerics(x, "x"), [_X], lambda x: x),
    Case("print", lambda x: tf.Print(x, [], message=""), [_X], lambda x: x),
    Case("with_dependencies", lambda x, y: control_flow_ops.with_dependencies(
        [tf.no_op()], x * y), [_X, _Y], lambda x, y: x * y),
    Case("tuple", lambda x, y: control_flow_ops.tuple([x * 2.0, y + 1.0])[1], [_X, _Y],
         lambda x, y: y + 1.0),
    Case("py_func", lambda x: tf.py_func(np.square, [x], tf.float32), [_X], np.square),
]


@pytest.mark.parametrize("case", TABLE, ids=[c.name for c in TABLE])
def test_forward_matches_numpy(case):
    g = tf.Graph()
    with g.as_default():
        placeholders = [tf.placeholder(tf.as_dtype(v.dtype), v.shape) for v in case.inputs]
        out = case.build(*placeholders)
        with tf.Session() as sess:
            got = sess.run(out, dict(zip(placeholders, case.inputs)))
    want = case.reference(*case.inputs)
    if isinstance(want, list):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-6)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-6)
