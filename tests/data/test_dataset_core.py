"""The core of tf.data: sources, element-wise transformations, iterators (TF 1.15's
behaviour, as its dataset kernel tests state it)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tests.helpers.dataset_run import elements

D = tf.data.Dataset


def _slices():
    return D.from_tensor_slices((np.arange(6, dtype=np.float32), np.arange(6)))


# (name, pipeline builder, expected elements)
CASES = [
    ("from_tensors", lambda: D.from_tensors(np.array([1, 2])), [np.array([1, 2])]),
    ("range", lambda: D.range(5), [0, 1, 2, 3, 4]),
    ("range_start_stop_step", lambda: D.range(2, 11, 3), [2, 5, 8]),
    ("range_negative_step", lambda: D.range(5, 1, -2), [5, 3]),
    ("range_empty", lambda: D.range(5, 1), []),
    ("slices_dict", lambda: D.from_tensor_slices({"b": [1, 2], "a": [3, 4]}),
     [{"a": 3, "b": 1}, {"a": 4, "b": 2}]),
    ("map_tuple", lambda: _slices().map(lambda x, y: (x * 2, y + 1)).take(2),
     [(0.0, 1), (2.0, 2)]),
    ("map_single", lambda: D.range(3).map(lambda x: x * x), [0, 1, 4]),
    ("map_captures", lambda: D.range(3).map(lambda x: x + tf.constant(10, tf.int64)),
     [10, 11, 12]),
    ("filter", lambda: D.range(7).filter(lambda x: tf.equal(x % 3, 0)), [0, 3, 6]),
    ("flat_map", lambda: D.range(4).flat_map(lambda i: D.from_tensors(i).repeat(i)),
     [1, 2, 2, 3, 3, 3]),
    ("batch", lambda: D.range(7).batch(3), [[0, 1, 2], [3, 4, 5], [6]]),
    ("batch_drop_remainder", lambda: D.range(7).batch(3, drop_remainder=True),
     [[0, 1, 2], [3, 4, 5]]),
    ("repeat", lambda: D.range(2).repeat(3), [0, 1, 0, 1, 0, 1]),
    ("repeat_empty_forever", lambda: D.range(0).repeat(), []),
    ("take", lambda: D.range(10).take(3), [0, 1, 2]),
    ("take_all", lambda: D.range(3).take(-1), [0, 1, 2]),
    ("skip", lambda: D.range(5).skip(3), [3, 4]),
    ("skip_all", lambda: D.range(5).skip(-1), []),
    ("zip", lambda: D.zip((D.range(3), D.range(10, 12))), [(0, 10), (1, 11)]),
    ("concatenate", lambda: D.range(2).concatenate(D.range(5, 7)), [0, 1, 5, 6]),
    ("prefetch", lambda: D.range(20).prefetch(3), list(range(20))),
    ("prefetch_autotune", lambda: D.range(5).map(lambda x: x + 1).prefetch(tf.data.AUTOTUNE),
     [1, 2, 3, 4, 5]),
    ("apply", lambda: D.range(4).apply(lambda d: d.skip(2)), [2, 3]),
]


def _equal(got, want):
    if isinstance(want, dict):
        return sorted(got) == sorted(want) and all(_equal(got[k], want[k]) for k in want)
    if isinstance(want, tuple):
        return len(got) == len(want) and all(_equal(g, w) for g, w in zip(got, want))
    return np.array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("one_shot", [False, True], ids=["initializable", "one_shot"])
@pytest.mark.parametrize("name,build,want", CASES, ids=[c[0] for c in CASES])
def test_pipeline_elements(name, build, want, one_shot):
    with tf.Graph().as_default():
        got = elements(build(), one_shot=one_shot)
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert _equal(g, w), (g, w)


# (name, builder, output_types, output_shapes)
STRUCTURE_CASES = [
    ("range", lambda: D.range(3), tf.int64, []),
    ("slices", _slices, (tf.float32, tf.int64), ([], [])),
    ("batch_unknown", lambda: D.range(3).batch(2), tf.int64, [None]),
    ("batch_drop", lambda: D.range(3).batch(2, drop_remainder=True), tf.int64, [2]),
    ("map_dict", lambda: D.range(3).map(lambda x: {"x": x, "y": tf.cast(x, tf.float32)}),
     {"x": tf.int64, "y": tf.float32}, {"x": [], "y": []}),
]


@pytest.mark.parametrize("name,build,types,shapes", STRUCTURE_CASES,
                         ids=[c[0] for c in STRUCTURE_CASES])
def test_output_types_and_shapes(name, build, types, shapes):
    with tf.Graph().as_default():
        ds = build()
        assert tf.data.get_output_types(ds) == types
        got = tf.nest.map_structure(lambda s: s.as_list(), tf.data.get_output_shapes(ds))
        assert got == shapes


def test_initializable_iterator_takes_placeholders():
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int64, [])
        ds = D.range(n).map(lambda x: x * 2)
        assert elements(ds, {n: 3}) == [0, 2, 4]


def test_one_shot_iterator_refuses_placeholders():
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int64, [])
        with pytest.raises(ValueError, match="one-shot iterator"):
            D.range(n).make_one_shot_iterator()


def test_get_next_before_initializer_is_failed_precondition():
    with tf.Graph().as_default():
        it = D.range(3).make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
                sess.run(nxt)


def test_reinitializable_iterator_switches_datasets():
    with tf.Graph().as_default():
        train, valid = D.range(10, 13), D.range(3)
        it = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
        nxt = it.get_next()
        init_train, init_valid = it.make_initializer(train), it.make_initializer(valid)
        with tf.Session() as sess:
            sess.run(init_train)
            assert sess.run(nxt) == 10
            sess.run(init_valid)
            assert [sess.run(nxt) for _ in range(3)] == [0, 1, 2]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)


def test_make_initializer_refuses_other_types():
    with tf.Graph().as_default():
        it = tf.data.Iterator.from_structure(tf.int64, [])
        with pytest.raises(TypeError, match="Expected output types"):
            it.make_initializer(D.from_tensors(np.float32(1.0)))


def test_feedable_iterator_reads_the_handle_fed():
    with tf.Graph().as_default():
        a, b = D.range(3).repeat(), D.range(100, 103)
        handle = tf.placeholder(tf.string, [])
        it = tf.data.Iterator.from_string_handle(handle, a.output_types, a.output_shapes)
        nxt = it.get_next()
        ia, ib = a.make_one_shot_iterator(), b.make_initializable_iterator()
        with tf.Session() as sess:
            ha, hb = sess.run([ia.string_handle(), ib.string_handle()])
            sess.run(ib.initializer)
            assert [sess.run(nxt, {handle: ha}) for _ in range(2)] == [0, 1]
            assert sess.run(nxt, {handle: hb}) == 100
            assert sess.run(nxt, {handle: ha}) == 2


def test_map_error_reaches_get_next_and_iteration_goes_on():
    with tf.Graph().as_default():
        ds = D.from_tensor_slices([1.0, 0.0, 2.0]).map(
            lambda x: tf.check_numerics(1.0 / x, "inverse"))
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            assert sess.run(nxt) == 1.0
            with pytest.raises(tf.errors.InvalidArgumentError, match="inverse"):
                sess.run(nxt)
            assert sess.run(nxt) == 0.5


def test_batch_of_ragged_elements_is_invalid_argument():
    with tf.Graph().as_default():
        ds = D.range(1, 4).map(lambda n: tf.range(n)).batch(2)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot batch tensors"):
            elements(ds)


def test_closing_the_session_stops_prefetch_threads():
    import threading
    before = {t for t in threading.enumerate()}
    with tf.Graph().as_default():
        it = D.range(1000).prefetch(5).make_one_shot_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(nxt)
    left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not [t for t in left if "tf.data" in t.name]
