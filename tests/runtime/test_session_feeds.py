"""Session.run feeds: keys, conversions, shape checks before anything runs, missing
feeds, unfeedable tensors, bad values.

Expected messages were recorded from TensorFlow 2.21 (compat.v1).
"""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry
from trainflow._src.framework.shape_inference import scalar_shapes

if not registry.is_registered("TestFeedsCounter"):
    def _count(*, ctx):
        ctx.state["n"] = ctx.state.get("n", 0) + 1
        return np.int64(ctx.state["n"])

    registry.register_op("TestFeedsCounter", outputs=["count: int64"], shape_fn=scalar_shapes,
                         kernel=_count, stateful=True)


def _counter():
    from trainflow._src.framework.op_builder import apply_op
    return apply_op("TestFeedsCounter").outputs[0]


@pytest.fixture
def env():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        p = tf.placeholder(tf.float32, [None, 2], name="p")
        p0 = tf.placeholder(tf.int32, [], name="p0")
        pu = tf.placeholder(tf.float32, name="pu")
        ps = tf.placeholder(tf.string, [2], name="ps")
        pid = tf.identity(p, name="pid")
        tf.no_op(name="noop")
    with tf.Session(graph=g) as sess:
        yield sess, g, a, p, p0, pu, ps, pid


def test_feed_keys(env):
    sess, g, a, p, p0, pu, ps, pid = env
    for key in (p, "p:0"):
        np.testing.assert_array_equal(sess.run(pid, {key: [[1, 2]]}), [[1, 2]])

    class VarLike:
        def _as_graph_element(self):
            return p
    np.testing.assert_array_equal(sess.run(pid, {VarLike(): [[3, 4]]}), [[3, 4]])


@pytest.mark.parametrize("key, message", [
    ("p", "Cannot interpret feed_dict key as Tensor: The name 'p' refers to an Operation, not "
          "a Tensor. Tensor names must be of the form \"<op_name>:<output_index>\"."),
    (5, "Cannot interpret feed_dict key as Tensor: Can not convert a int into a Tensor."),
    ("nope:0", "Cannot interpret feed_dict key as Tensor: The name 'nope:0' refers to a Tensor "
               "which does not exist. The operation, 'nope', does not exist in the graph."),
    ("noop", "Cannot interpret feed_dict key as Tensor: The name 'noop' refers to an "
             "Operation, not a Tensor."),
])
def test_bad_feed_keys(env, key, message):
    sess, *_ = env
    with pytest.raises(TypeError) as info:
        sess.run("a:0", {key: 1})
    assert str(info.value).startswith(message), str(info.value)


def test_operation_as_key(env):
    sess, g, *_ = env
    with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor: Can not "
                       "convert a Operation into a Tensor."):
        sess.run("a:0", {g.get_operation_by_name("noop"): 1})


def test_values_are_converted_to_the_tensor_dtype(env):
    sess, g, a, p, p0, pu, ps, pid = env
    out = sess.run(pid, {p: np.zeros([3, 2], np.float64)})
    assert out.dtype == np.float32 and out.shape == (3, 2)
    assert sess.run(p0, {p0: 3.7}) == 3  # truncated, as NumPy (and TF) cast
    assert sess.run(pu, {pu: 3}) == np.float32(3)
    np.testing.assert_array_equal(sess.run(pu, {pu: [[1]]}), [[1.0]])
    out = sess.run(ps, {ps: ["a", b"b"]})
    assert out.dtype == object and list(out) == [b"a", b"b"]
    assert list(sess.run(ps, {ps: np.array(["a", "b"])})) == [b"a", b"b"]


@pytest.mark.parametrize("feed, exc, message", [
    ({"p:0": [[1, 2, 3]]}, ValueError,
     "Cannot feed value of shape (1, 3) for Tensor p:0, which has shape (?, 2)"),
    ({"p:0": [1, 2]}, ValueError,
     "Cannot feed value of shape (2,) for Tensor p:0, which has shape (?, 2)"),
    ({"p0:0": [3]}, ValueError, "Cannot feed value of shape (1,) for Tensor p0:0, which has "
                                "shape ()"),
    ({"p0:0": 2 ** 40}, TypeError,
     "Type of feed value 1099511627776 with type <class 'int'> is not compatible with Tensor "
     "type <class 'numpy.int32'>. Try explicitly setting the type of the feed tensor to a "
     "larger type (e.g. int64)."),
    ({"p:0": [["a", "b"]]}, ValueError, "Cannot feed value [['a', 'b']] for Tensor p:0 of "
                                        "dtype float32: could not convert string to float"),
    ({"ps:0": [1, 2]}, TypeError, "Expected string, but got 1 of type 'int'."),
])
def test_bad_feed_values_fail_before_anything_runs(env, feed, exc, message):
    sess, g, *_ = env
    with g.as_default():
        count = _counter()
    with pytest.raises(exc) as info:
        sess.run([count, "pid:0", "p0:0", "ps:0"], feed)
    assert str(info.value).startswith(message), str(info.value)
    assert sess.run(count) == 1  # the failed run never started


def test_tensor_as_feed_value(env):
    sess, g, a, p, *_ = env
    with pytest.raises(TypeError, match=r"The value of a feed cannot be a tf.Tensor object. "
                       r".* the tensor object was Tensor\(\"a:0\", shape=\(\), dtype=float32\) "
                       r"which was passed to the argument `feed_dict` with key "
                       r"Tensor\(\"p:0\", shape=\(\?, 2\), dtype=float32\)."):
        sess.run("pid:0", {p: a})


@pytest.mark.parametrize("name, message", [
    ("p", "You must feed a value for placeholder tensor 'p' with dtype float and shape [?,2]"),
    ("pu", "You must feed a value for placeholder tensor 'pu' with dtype float"),
    ("ps", "You must feed a value for placeholder tensor 'ps' with dtype string and shape "
           "[2]"),
])
def test_missing_feed_names_the_placeholder(env, name, message):
    sess, g, *_ = env
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(name + ":0")
    assert info.value.message.startswith(message)
    assert info.value.op is g.get_operation_by_name(name)


def test_any_tensor_can_be_fed(env):
    sess, g, a, p, *_ = env
    assert sess.run(a, {a: 5.0}) == np.float32(5.0)
    np.testing.assert_array_equal(sess.run("pid:0", {"pid:0": [[0, 0]]}), [[0, 0]])
    # A fed tensor's producer does not run: p needs no feed here.
    with pytest.raises(ValueError, match="Cannot feed value of shape"):
        sess.run(a, {a: [5.0]})


def test_unfeedable(env):
    sess, g, a, *_ = env
    g.prevent_feeding(a)
    assert not g.is_feedable(a)
    with pytest.raises(ValueError, match=r'Tensor Tensor\("a:0", shape=\(\), dtype=float32\) '
                       r'may not be fed.'):
        sess.run(a, {a: 2.0})


def test_feed_components():
    """Composite keys (SparseTensor-like) expand to several fed tensors."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2])
        y = tf.placeholder(tf.float32, [2])

        class PairKey:
            def _feed_components(self, value):
                return [(x, value[0]), (y, value[1])]

        key = PairKey()
        with tf.Session() as sess:
            out = sess.run([x, y], {key: ([1, 2], [3, 4])})
    np.testing.assert_array_equal(out[0], [1, 2])
    np.testing.assert_array_equal(out[1], [3, 4])
