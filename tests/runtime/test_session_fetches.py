"""Session.run fetches: every structure TF accepts, names, ops, duplicates, errors,
NumPy scalar results and results that never alias session state.

Expected results and messages were recorded from TensorFlow 2.21 (compat.v1).
"""
import collections

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.state import state_ops

NT = collections.namedtuple("NT", ["a", "b"])


@pytest.fixture
def env():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        b = tf.constant([1, 2], name="b")
        tf.constant(["x", "yy"], name="s")
        tf.constant("q", name="s0")
        tf.constant(True, name="bo")
        noop = tf.no_op(name="noop")
        v = state_ops.variable_op_v2([2], tf.float32, name="v")
        init = state_ops.assign(v, np.array([1.0, 2.0], np.float32), name="init")
        tf.identity(v, name="vid")
    sess = tf.Session(graph=g)
    yield sess, g, a, b, noop, init
    sess.close()


def _check(value, expected):
    """Compares nested results, including container types and NumPy scalar types."""
    assert type(value) is type(expected), (value, expected)
    if isinstance(expected, dict):
        assert list(value) == list(expected)
        for k in expected:
            _check(value[k], expected[k])
    elif isinstance(expected, (list, tuple)):
        assert len(value) == len(expected)
        for x, y in zip(value, expected):
            _check(x, y)
    elif isinstance(expected, np.ndarray):
        assert value.dtype == expected.dtype
        np.testing.assert_array_equal(value, expected)
    else:
        assert value == expected


ONE = np.float32(1.0)
B = np.array([1, 2], np.int32)


def test_single_values(env):
    sess, *_ = env
    _check(sess.run("a:0"), ONE)
    _check(sess.run("b:0"), B)
    _check(sess.run("s:0"), np.array([b"x", b"yy"], dtype=object))
    _check(sess.run("s0:0"), b"q")
    _check(sess.run("bo:0"), np.bool_(True))


def test_nested_structures(env):
    sess, g, a, b, noop, _ = env
    _check(sess.run([a, b]), [ONE, B])
    _check(sess.run((a, b)), (ONE, B))
    _check(sess.run([a, [b, (a,)]]), [ONE, [B, (ONE,)]])
    _check(sess.run({"x": a, "y": [b]}), {"x": ONE, "y": [B]})
    _check(sess.run(NT(a, b)), NT(ONE, B))
    _check(sess.run(NT(a=[a], b={"k": b})), NT([ONE], {"k": B}))
    od = sess.run(collections.OrderedDict([("z", a), ("y", b)]))
    _check(od, collections.OrderedDict([("z", ONE), ("y", B)]))
    dd = sess.run(collections.defaultdict(list, {"k": a}))
    assert isinstance(dd, collections.defaultdict) and dd["k"] == ONE
    _check(sess.run([]), [])
    _check(sess.run({}), {})
    _check(sess.run(()), ())
    _check(sess.run([[]]), [[]])


def test_operations_names_and_duplicates(env):
    sess, g, a, b, noop, _ = env
    assert sess.run(noop) is None
    _check(sess.run([noop, a]), [None, ONE])
    assert sess.run("noop") is None
    _check(sess.run(["a:0", "b"]), [ONE, None])
    _check(sess.run([a, a, "a:0"]), [ONE, ONE, ONE])
    _check(sess.run({"x": a, "y": a}), {"x": ONE, "y": ONE})


@pytest.mark.parametrize("fetch, exc, message", [
    (None, TypeError, 'Argument `fetch` = None has invalid type "NoneType". Cannot be None'),
    (["a:0", None], TypeError, 'Argument `fetch` = None has invalid type "NoneType"'),
    (5, TypeError, 'Argument `fetch` = 5 has invalid type "int" must be a string or Tensor. '
                   "(Can not convert a int into a Tensor or Operation.)"),
    ("nope:0", ValueError, "Argument `fetch` = nope:0 cannot be interpreted as a Tensor. "
                           "(\"The name 'nope:0' refers to a Tensor which does not exist."),
    ("nope", ValueError, "Argument `fetch` = nope cannot be interpreted as a Tensor. (\"The "
                         "name 'nope' refers to an Operation not in the graph.\")"),
])
def test_bad_fetches(env, fetch, exc, message):
    sess, *_ = env
    with pytest.raises(exc) as info:
        sess.run(fetch)
    assert str(info.value).startswith(message), str(info.value)


def test_fetch_from_another_graph(env):
    sess, *_ = env
    with tf.Graph().as_default():
        other = tf.constant(1)
    with pytest.raises(ValueError, match=r"cannot be interpreted as a Tensor. \(Tensor "
                       r"Tensor\(\"Const:0\", shape=\(\), dtype=int32\) is not an element of "
                       r"this graph.\)"):
        sess.run(other)


def test_uninitialized_variable(env):
    sess, g, *_ = env
    for fetch in ("vid:0", "v:0"):
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="Attempting to use uninitialized value v"):
            sess.run(fetch)


def test_results_never_alias_session_state(env):
    sess, g, a, b, noop, init = env
    sess.run(init)
    for name in ("v:0", "vid:0", "init:0"):
        out = sess.run(name)
        out[0] = 100.0
    _check(sess.run("v:0"), np.array([1.0, 2.0], np.float32))
    out = sess.run(b)
    out[0] = 99
    _check(sess.run(b), B)
    both = sess.run([g.get_tensor_by_name("v:0"), g.get_tensor_by_name("vid:0")])
    assert not np.shares_memory(both[0], both[1])


def test_fed_values_are_copied():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [1, 2])
        i = tf.identity(p)
        with tf.Session() as sess:
            fed = np.ones((1, 2), np.float32)
            for t in (p, i):
                out = sess.run(t, {p: fed})
                out[0, 0] = 5
            np.testing.assert_array_equal(fed, [[1, 1]])


def test_scalar_results_are_numpy_scalars():
    with tf.Graph().as_default():
        p0 = tf.placeholder(tf.int32, [])
        with tf.Session() as sess:
            assert type(sess.run(tf.constant(1))) is np.int32
            assert type(sess.run(tf.constant(2.0, tf.float64))) is np.float64
            assert type(sess.run(p0, {p0: 3})) is np.int32
            assert type(sess.run(tf.identity(p0), {p0: 3})) is np.int32
            assert type(sess.run(tf.constant(2 ** 63))) is np.uint64


def test_objects_with_as_graph_element_and_fetch_components(env):
    sess, g, a, *_ = env

    class VarLike:
        def _as_graph_element(self):
            return a

    class Pair:
        def __init__(self, x, y):
            self.x, self.y = x, y

        def _fetch_components(self):
            return [self.x, self.y], lambda values: ("pair", values[0], values[1])

    assert sess.run(VarLike()) == ONE
    [(tag, x, y)] = sess.run([Pair(a, "b:0")])
    assert tag == "pair" and x == ONE
    np.testing.assert_array_equal(y, B)
    assert sess.run(Pair(a, a)) == ("pair", ONE, ONE)


def test_not_fetchable(env):
    sess, g, a, *_ = env
    g.prevent_fetching(a.op)
    with pytest.raises(ValueError, match="has been marked as not fetchable"):
        sess.run(a)
