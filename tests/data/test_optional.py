"""tf.data.experimental.Optional and get_next_as_optional (TF 1.15's optional_ops_test,
graph-mode parts): values of every nest kind, empty optionals, and an iterator read to
its end without OutOfRangeError."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset
Optional = tf.data.experimental.Optional

# (name, value given to from_value, what get_value returns)
VALUES = [
    ("scalar", lambda: tf.constant(37.0), 37.0),
    ("vector", lambda: np.array([1, 2, 3], np.int64), [1, 2, 3]),
    ("tuple", lambda: (tf.constant(1), (tf.constant("x"), tf.constant([2.0]))),
     (1, (b"x", [2.0]))),
    ("dict", lambda: {"b": tf.constant(True), "a": tf.constant([[1, 2]])},
     {"a": [[1, 2]], "b": True}),
]


def _same(got, want):
    if isinstance(want, dict):
        return sorted(got) == sorted(want) and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, tuple):
        return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))
    return np.array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("name,make,want", VALUES, ids=[v[0] for v in VALUES])
def test_from_value_and_empty(name, make, want):
    with tf.Graph().as_default():
        opt = Optional.from_value(make())
        empty = Optional.none_from_structure(opt.value_structure)
        assert tf.nest.map_structure(lambda c: c.dtype, empty.element_spec) == \
            tf.nest.map_structure(lambda c: c.dtype, opt.element_spec)
        value = opt.get_value()
        with tf.Session() as sess:
            assert sess.run(opt.has_value())
            assert _same(sess.run(value), want)
            assert not sess.run(empty.has_value())
            with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
                sess.run(empty.get_value())


def test_get_value_keeps_static_shapes_and_names():
    with tf.Graph().as_default():
        opt = Optional.from_value((tf.zeros([2, 3]), tf.constant(1, tf.int64)))
        a, b = opt.get_value(name="got")
        assert a.shape.as_list() == [2, 3] and b.shape.as_list() == []
        assert a.op.name == "got" and opt.has_value(name="has").op.name == "has"


@pytest.mark.parametrize("one_shot", [False, True], ids=["initializable", "one_shot"])
def test_get_next_as_optional_reads_to_the_end(one_shot):
    with tf.Graph().as_default():
        ds = D.range(3).map(lambda x: (x, tf.cast(x, tf.float32) * 2))
        it = ds.make_one_shot_iterator() if one_shot else ds.make_initializable_iterator()
        opt = tf.data.experimental.get_next_as_optional(it)
        # One run reads one element: fetch has_value and the value from the same optional.
        has, value = opt.has_value(), opt.get_value()
        with tf.Session() as sess:
            if not one_shot:
                sess.run(it.initializer)
            for i in range(3):
                h, v = sess.run([has, value])
                assert h and v == (i, 2.0 * i)
            for _ in range(2):  # at the end: an empty optional, again and again
                assert not sess.run(has)
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(value)


def test_gradients_flow_through_an_optional():
    # TF registers gradients for OptionalFromValue and OptionalGetValue: d(get(from(x)))/dx.
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0, 3.0])
        y = tf.constant(4.0)
        opt = tf.data.experimental.Optional.from_value((x, y))
        a, b = opt.get_value()
        gx, gy = tf.gradients(tf.reduce_sum(a * a) + 3.0 * b, [x, y])
        with tf.Session() as sess:
            vx, vy = sess.run([gx, gy])
    np.testing.assert_allclose(vx, [2.0, 4.0, 6.0])
    assert vy == 3.0
