"""`tf.py_function` (EagerPyFunc): inputs arrive as tensor values with `.numpy()`, results
convert to Tout, errors map as py_func's do, and no gradient flows (LookupError, TF's
gradient needs eager execution). The values are checked against TensorFlow's."""
import textwrap

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors

from tf_interop import needs_tf, run_json

CASES = textwrap.dedent("""
    def build(tf):
        x = tf.constant([[1., 2.], [3., 4.]])
        s = tf.constant(["ab", "c"])
        return [
            tf.py_function(lambda a: a.numpy() * 2, [x], tf.float32),
            tf.py_function(lambda a, b: a.numpy().sum() + b.numpy(), [x, 10.], tf.float32),
            tf.py_function(lambda a: [a.numpy().shape[0], a.numpy()[::-1]], [x],
                           [tf.int32, tf.float32])[1],
            tf.py_function(lambda a: np.array([len(v) for v in a.numpy()], np.int64), [s],
                           tf.int64),
            tf.py_function(func=lambda: np.float64(3.5), inp=[], Tout=tf.float64),
        ]
""")


def _values(outs):
    with tf.Session() as sess:
        return [np.asarray(v).tolist() for v in sess.run(outs)]


@needs_tf
def test_values_match_tf():
    theirs = run_json(CASES + textwrap.dedent("""
        import json
        import numpy as np
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
        with tf.Session() as sess:
            print(json.dumps([np.asarray(v).tolist() for v in sess.run(build(tf))]))
    """))
    env = {"np": np}
    exec(CASES, env)  # noqa: S102 - the cases above
    with tf.Graph().as_default():
        assert _values(env["build"](tf)) == theirs


def test_inputs_have_numpy_and_array_behaviour():
    seen = {}

    def fn(a, b):
        seen["a"], seen["b"] = a.numpy(), b.numpy()
        return a + b

    with tf.Graph().as_default():
        out = tf.py_function(fn, [tf.constant([1, 2]), tf.constant(3)], tf.int32)
        assert out.op.type == "EagerPyFunc" and out.shape.rank is None
        assert _values([out]) == [[4, 5]]
    assert type(seen["a"]) is np.ndarray and isinstance(seen["b"], np.integer)


def test_decorator_form_and_list_tout():
    with tf.Graph().as_default():
        @tf.py_function(inp=[tf.constant(2.)], Tout=[tf.float32])
        def out(a):
            return a * 3

        assert isinstance(out, list) and _values(out) == [6.0]


@pytest.mark.parametrize("fn, tout, cls, message", [
    (lambda a: 1 / 0, tf.float32, errors.UnknownError, "ZeroDivisionError"),
    (lambda a: int("x"), tf.float32, errors.InvalidArgumentError, "ValueError"),
    (lambda a: np.array(["x"]), tf.float32, errors.InvalidArgumentError,
     "0-th value returned by pyfunc_"),
])
def test_errors_map_like_py_func(fn, tout, cls, message):
    with tf.Graph().as_default():
        out = tf.py_function(fn, [tf.constant(1.)], tout)
        with tf.Session() as sess, pytest.raises(cls, match=message):
            sess.run(out)


def test_no_gradient_flows():
    with tf.Graph().as_default():
        x = tf.constant(1.)
        y = tf.py_function(lambda a: a * 2, [x], tf.float32)
        with pytest.raises(LookupError):
            tf.gradients(y, x)


def test_func_must_be_callable():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Expected func to be callable"):
        tf.py_function(3, [], tf.float32)
