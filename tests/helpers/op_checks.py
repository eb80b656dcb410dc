"""Table-driven checks shared by the op tests: table rows as pytest params, static
shapes, and errors raised at graph-building or run time."""
import re

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors


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


def jacobians(phs, values, i, y, y_shape, delta):
    """(theoretical, numerical) Jacobians of `y` with respect to placeholder `phs[i]` at
    `values[i]`, the other placeholders fed their `values` (in the default session)."""
    others = {p: v for j, (p, v) in enumerate(zip(phs, values)) if j != i}
    return tf.test.compute_gradient(phs[i], list(values[i].shape), y, y_shape,
                                    x_init_value=values[i], delta=delta, extra_feed_dict=others)


def assert_gradients_match_finite_differences(fn, inputs, which, rtol, atol, label):
    """`fn(*float64 placeholders)` fed `inputs`: for each input index in `which`, the
    gradient's Jacobian matches central differences (delta 1e-6) to rtol/atol."""
    import numpy as np
    with tf.Graph().as_default():
        phs = [tf.placeholder(tf.float64, v.shape) for v in inputs]
        y = fn(*phs)
        with tf.Session() as sess:
            y_shape = list(np.shape(sess.run(y, dict(zip(phs, inputs)))))
            for i in which:
                theoretical, numerical = jacobians(phs, inputs, i, y, y_shape, 1e-6)
                np.testing.assert_allclose(theoretical, numerical, rtol=rtol, atol=atol,
                                           err_msg=f"{label}: input {i}")
