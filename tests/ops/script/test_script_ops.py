"""tf.py_func / tf.numpy_function: values in and out, result checks and TF's
mapping of Python exceptions to error classes."""
import gc

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.ops.script import script_ops


def _run(make):
    g = tf.Graph()
    with g.as_default():
        out = make()
        with tf.Session() as sess:
            return sess.run(out)


def test_single_and_list_results():
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([1.0, 2.0])
        single = tf.py_func(lambda a: a * 2, [x], tf.float32)
        assert isinstance(single, tf.Tensor) and single.op.type == "PyFunc"
        assert single.name == "PyFunc:0" and single.shape.ndims is None
        listed = tf.py_func(lambda a, b: (a, b), [x, tf.constant(2)], [tf.float32, tf.int32])
        one = tf.py_func(lambda a: a, [x], [tf.float32])
        assert isinstance(listed, list) and isinstance(one, list) and len(one) == 1
        assert listed[0].op.get_attr("Tout") == [tf.float32, tf.int32]
        assert listed[0].op.get_attr("token").startswith(b"pyfunc_")
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(single), [2.0, 4.0])
            a, b = sess.run(listed)
            np.testing.assert_array_equal(a, [1.0, 2.0])
            assert b == 2 and b.dtype == np.int32


def test_argument_types_seen_by_the_function():
    seen = []

    def f(*args):
        seen.extend(args)
        return np.float32(0)

    _run(lambda: tf.py_func(f, [tf.constant(1.5), tf.constant([1, 2]), tf.constant("s"),
                                tf.constant(True), tf.constant(["a", "bc"])], tf.float32))
    assert isinstance(seen[0], np.float32) and seen[0] == 1.5
    assert isinstance(seen[1], np.ndarray) and seen[1].dtype == np.int32
    assert seen[2] == b"s" and isinstance(seen[3], np.bool_)
    assert seen[4].dtype == object and list(seen[4]) == [b"a", b"bc"]
    seen[1][0] = 99  # constants reach the function as writable copies


def test_result_conversions():
    assert _run(lambda: tf.py_func(lambda x: 7, [tf.constant(1.0)], tf.int64)) == 7
    assert _run(lambda: tf.py_func(lambda x: "abc", [tf.constant(1.0)], tf.string)) == b"abc"
    out = _run(lambda: tf.py_func(lambda x: np.array(["a", "é"]), [tf.constant(1.0)],
                                  tf.string))
    assert list(out) == [b"a", "é".encode()]
    assert _run(lambda: tf.py_func(lambda: None, [], [])) is None


def test_variable_inputs_are_read():
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1.0, 2.0])
        out = tf.py_func(lambda a: a.sum(), [v], tf.float32)
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(out) == 3.0


@pytest.mark.parametrize("func,tout,message", [
    (lambda x: np.float64(1.0), tf.float32,
     r"0-th value returned by pyfunc_\d+ is double, but expects float"),
    (lambda x: 1.5, tf.float32, "is double, but expects float"),
    (lambda x: np.array([1, 2]), tf.float32, "is int64, but expects float"),
    (lambda x: (x, x), tf.float32, r"pyfunc_\d+ returns 2 values, but expects to see 1 values\."),
    (lambda x: x, [tf.float32, tf.float32], "returns 1 values, but expects to see 2 values"),
    (lambda x: None, tf.float32, "returns 0 values, but expects to see 1 values"),
    (lambda x: 3, tf.string, "is int64, but expects string"),
])
def test_bad_results(func, tout, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        _run(lambda: tf.py_func(func, [tf.constant(1.0)], tout))


class _MyError(Exception):
    pass


@pytest.mark.parametrize("exc,cls", [
    (ValueError("bad value"), errors.InvalidArgumentError),
    (TypeError("bad type"), errors.InvalidArgumentError),
    (StopIteration("done"), errors.OutOfRangeError),
    (MemoryError("mem"), errors.ResourceExhaustedError),
    (NotImplementedError("ni"), errors.UnimplementedError),
    (IndexError("ie"), errors.UnknownError),
    (_MyError("mine"), errors.UnknownError),
    (errors.NotFoundError(None, None, "nf"), errors.UnknownError),
])
def test_exceptions_map_to_tf_errors(exc, cls):
    def f(x):
        raise exc

    with pytest.raises(cls) as info:
        _run(lambda: tf.py_func(f, [tf.constant(1.0)], tf.float32))
    assert type(info.value) is cls
    first = info.value.message.splitlines()[0]
    assert first.endswith(f"{type(exc).__name__}: {exc}")
    assert "Traceback (most recent call last)" in info.value.message
    assert "[[node PyFunc" in info.value.message


def test_stateless_and_numpy_function():
    g = tf.Graph()
    with g.as_default():
        s = tf.py_func(lambda x: x, [1.0], tf.float32, stateful=False)
        n = tf.numpy_function(lambda x: x + 1, [tf.constant(1)], tf.int32, name="np_fn")
        assert s.op.type == "PyFuncStateless" and n.op.type == "PyFunc"
        assert n.op.name == "np_fn"
        with tf.Session() as sess:
            assert sess.run([s, n]) == [1.0, 2]


def test_not_callable():
    with pytest.raises(ValueError, match="Expected func to be callable. Received func=3 of "
                                         "type <class 'int'>."):
        tf.py_func(3, [], tf.float32)


def test_function_lives_as_long_as_its_graph():
    g = tf.Graph()
    with g.as_default():
        out = tf.py_func(lambda: np.int32(5), [], tf.int32)
        token = out.op.get_attr("token").decode()
    gc.collect()
    assert script_ops._py_funcs.get(token) is not None
    with tf.Session(graph=g) as sess:
        assert sess.run(out) == 5
    del g, out, sess
    gc.collect()
    assert script_ops._py_funcs.get(token) is None
