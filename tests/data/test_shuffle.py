"""shuffle and shuffle_and_repeat, ported from TF's shuffle_dataset_op_test (5 methods)
and contrib's shuffle_dataset_op_test (shuffle_and_repeat, 6 methods)."""
import collections

import numpy as np
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset
sar = tf.data.experimental.shuffle_and_repeat


def _drain(sess, get_next, n=None):
    out = []
    while n is None or len(out) < n:
        try:
            out.append(sess.run(get_next))
        except tf.errors.OutOfRangeError:
            break
    return out


def _tuple_list(elements):
    return sorted(tuple(float(c) for c in e) for e in elements)


def test_shuffle_dataset():  # testShuffleDataset
    components = (np.array([1, 2, 3, 4]), np.array([5, 6, 7, 8]),
                  np.array([9.0, 10.0, 11.0, 12.0]))
    with tf.Graph().as_default():
        count = tf.placeholder_with_default(tf.constant(5, tf.int64), shape=[])
        buffer_size = tf.placeholder(tf.int64, shape=[])
        seed = tf.placeholder(tf.int64, shape=[])
        repeated = D.from_tensor_slices(components).repeat(count)
        shuffled = repeated.shuffle(buffer_size, seed)
        assert shuffled.output_shapes == tuple(c.shape[1:] for c in components)
        iterator = tf.data.Iterator.from_structure(shuffled.output_types,
                                                   shuffled.output_shapes)
        init_fifo = iterator.make_initializer(repeated)
        init_shuffle = iterator.make_initializer(shuffled)
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(init_fifo)
            fifo = _drain(sess, get_next)
            assert len(fifo) == 20

            def run(size, s, extra=None):
                sess.run(init_shuffle, {buffer_size: size, seed: s, **(extra or {})})
                return [tuple(float(c) for c in e) for e in _drain(sess, get_next)]

            first = run(100, 37)
            assert sorted(first) == _tuple_list(fifo)
            assert run(100, 37) == first
            other = run(100, 1037)
            assert other != first and sorted(other) == sorted(first)
            assert sorted(run(2, 37)) == _tuple_list(fifo)
            assert run(2, 37, {count: 0}) == []


def test_seed_zero():  # testSeedZero
    with tf.Graph().as_default():
        get_next = D.range(10).shuffle(10, seed=0).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            elems = _drain(sess, get_next)
    assert sorted(elems) == list(range(10))
    with tf.Graph().as_default():
        seed = tf.placeholder(tf.int64, shape=[])
        iterator = D.range(10).shuffle(10, seed=seed).make_initializable_iterator()
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(iterator.initializer, {seed: 0})
            assert _drain(sess, get_next) == elems


def test_default_arguments():  # testDefaultArguments
    with tf.Graph().as_default():
        get_next = D.from_tensor_slices([0, 1, 2, 3, 4]).shuffle(5).repeat() \
            .make_one_shot_iterator().get_next()
        counts = collections.Counter()
        with tf.Session() as sess:
            for _ in range(50):
                counts[int(sess.run(get_next))] += 1
    assert all(counts[i] == 10 for i in range(5))


def test_no_reshuffle_each_iteration():  # testShuffleNoReshuffleEachIteration
    with tf.Graph().as_default():
        get_next = D.range(10).shuffle(10, reshuffle_each_iteration=False).batch(10) \
            .repeat(3).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            first = sess.run(get_next)
            np.testing.assert_array_equal(first, sess.run(get_next))
            np.testing.assert_array_equal(first, sess.run(get_next))
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_reshuffle_each_iteration():  # testShuffleReshuffleEachIteration
    with tf.Graph().as_default():
        get_next = D.range(10).shuffle(10, seed=3, reshuffle_each_iteration=True).batch(10) \
            .repeat(3).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            first = list(sess.run(get_next))
            for _ in range(2):
                nxt = list(sess.run(get_next))
                assert nxt != first and sorted(nxt) == sorted(first)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_graph_seed_fixes_the_order():
    def order():
        with tf.Graph().as_default():
            tf.set_random_seed(7)
            get_next = D.range(20).shuffle(20).make_one_shot_iterator().get_next()
            with tf.Session() as sess:
                return _drain(sess, get_next)
    assert order() == order()


def test_shuffle_op_and_attrs():
    with tf.Graph().as_default() as g:
        D.range(3).shuffle(4, seed=5, reshuffle_each_iteration=False)
        op = [o for o in g.get_operations() if o.type == "ShuffleDataset"][0]
        assert op.get_attr("reshuffle_each_iteration") is False
        assert [t.op.name for t in op.inputs][1:] == ["buffer_size", "seed", "seed2"]


def test_buffer_size_zero_is_invalid_argument():
    with tf.Graph().as_default():
        iterator = D.range(3).shuffle(0).make_initializable_iterator()
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="buffer_size must be greater than zero"):
            sess.run(iterator.initializer)


# -- shuffle_and_repeat_test (tf.data.experimental), 11 methods ----------------------------

def _gen_outputs(build, num_outputs, verify_exhausted=True):
    with tf.Graph().as_default():
        get_next = build().make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            out = [sess.run(get_next) for _ in range(num_outputs)]
            if verify_exhausted:
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(get_next)
    return [int(o) if np.ndim(o) == 0 else o for o in out]


def _build(seed, count=5, num_elements=20):
    return D.range(num_elements).apply(sar(buffer_size=5, count=count, seed=seed))


def test_sar_correct_output():  # testCorrectOutput
    output = _gen_outputs(lambda: _build(10), 100)
    assert sorted(output) == sorted(list(range(20)) * 5)
    for i in range(5):
        assert sorted(output[i * 20:(i + 1) * 20]) == list(range(20))


def test_sar_reshuffling():  # testReshuffling
    output = _gen_outputs(lambda: _build(10), 100)
    for i in range(4):
        assert output[i * 20:(i + 1) * 20] != output[(i + 1) * 20:(i + 2) * 20]


def test_sar_same_order_for_same_seeds():  # testSameOrderForSameSeeds
    assert _gen_outputs(lambda: _build(10), 100) == _gen_outputs(lambda: _build(10), 100)


def test_sar_different_order_for_different_seeds():  # testDifferentOrderForDifferentSeeds
    a, b = _gen_outputs(lambda: _build(10), 100), _gen_outputs(lambda: _build(20), 100)
    assert a != b and sorted(a) == sorted(b)


@pytest.mark.parametrize("count", [None, -1], ids=["testCountNone", "testCountMinusOne"])
def test_sar_endless_counts(count):
    a = _gen_outputs(lambda: _build(10, count=count), 100, verify_exhausted=False)
    b = _gen_outputs(lambda: _build(20, count=count), 100, verify_exhausted=False)
    assert a != b and sorted(a) == sorted(b)


def test_sar_infinite_outputs():  # testInfiniteOutputs
    for count in (None, -1):
        with pytest.raises(BaseException, match="DID NOT RAISE"):
            _gen_outputs(lambda c=count: _build(10, count=c), 100)


def test_sar_infinite_empty():  # testInfiniteEmpty
    for count in (None, -1):
        with pytest.raises(tf.errors.OutOfRangeError):
            _gen_outputs(lambda c=count: _build(10, count=c, num_elements=0), 100)


def test_sar_large_buffer_size():  # testLargeBufferSize
    assert len(_gen_outputs(lambda: D.range(20).apply(sar(buffer_size=21)), 1,
                            verify_exhausted=False)) == 1


def test_sar_very_large_buffer_size():  # testVeryLargeBufferSize
    epochs = 1000 * 1000
    out = _gen_outputs(lambda: D.range(500).batch(100).apply(
        sar(buffer_size=5 * epochs, count=epochs)), 10, verify_exhausted=False)
    for i in range(2):
        epoch = sorted(out[i * 5:(i + 1) * 5], key=lambda b: b[0])
        np.testing.assert_array_equal(epoch, np.arange(500).reshape([5, 100]))


def test_sar_rerandomize_on_replicate():  # testRerandomizeOnReplicate
    def build():
        return D.range(100).apply(sar(buffer_size=100, count=2))
    a = _gen_outputs(build, 200)
    b = _gen_outputs(build, 200)
    assert sorted(a) == sorted(b) and a != b
