"""Table-driven checks shared by the op tests: table rows as pytest params, static
shapes, and errors raised at graph-building or run time."""
import re

import pytest

import trainflow.compat.v1 as tf
from trainflow.framework import errors


def cases(table):
    """pytest params from rows `(id, *values)`."""
    return [pytest.param(*row[1:], id=row[0]) for row in table]


def static_shapes(t):
    """The static shapes (as str) of a tensor, or of each one of a list or tuple."""
    return [str(x.shape) for x in (t if isinstance(t, (list, tuple)) else [t])]


def raises(cls, message):
    """pytest.raises(cls) for an error whose text holds `message` as it is."""
    return pytest.raises(cls, match=re.escape(message))


def assert_run_error(build, values, message):
    """`build(*placeholders)`, run fed `values`, raises InvalidArgumentError with `message`."""
    with tf.Graph().as_default():
        phs = [tf.placeholder(tf.as_dtype(v.dtype)) for v in values]
        out = build(*phs)
        with tf.Session() as sess:
            with raises(errors.InvalidArgumentError, message):
                sess.run(out, dict(zip(phs, values)))


def gradient_error(build, shapes, values):
    """compute_gradient_error of `build(*float64 placeholders of shapes)` at `values`."""
    with tf.Graph().as_default():
        inputs = [tf.placeholder(tf.float64, s) for s in shapes]
        y = build(*inputs)
        with tf.Session():
            return tf.test.compute_gradient_error(inputs, list(shapes), y, y.shape.as_list(),
                                                  x_init_value=values)
