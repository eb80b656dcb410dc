"""cache (memory and file), ported from TF's cache_dataset_op_test (7 methods), plus the
file layout and the partial-cache rules."""
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset
COMPONENTS = (np.array([1, 2, 3, 4]), np.array([5, 6, 7, 8]), np.array([9.0, 10.0, 11.0, 12.0]))


def _drain(sess, get_next):
    out = []
    while True:
        try:
            out.append(sess.run(get_next))
        except tf.errors.OutOfRangeError:
            return out


def _as_lists(elements):
    return [[float(c) for c in e] for e in elements]


def test_file_cache_passthrough(tmp_path):  # FileCacheDatasetTest.testCacheDatasetPassthrough
    prefix = str(tmp_path / "cache")
    with tf.Graph().as_default():
        count = tf.placeholder_with_default(tf.constant(5, tf.int64), shape=[])
        filename = tf.placeholder(tf.string, shape=[])
        repeated = D.from_tensor_slices(COMPONENTS).repeat(count)
        cached = repeated.cache(filename)
        assert cached.output_shapes == tuple(c.shape[1:] for c in COMPONENTS)
        iterator = tf.data.Iterator.from_structure(cached.output_types, cached.output_shapes)
        init_fifo = iterator.make_initializer(repeated)
        init_cache = iterator.make_initializer(cached)
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(init_fifo)
            elements = _as_lists(_drain(sess, get_next))
            assert len(elements) == 20
            sess.run(init_cache, {filename: prefix})
            assert _as_lists(_drain(sess, get_next)) == elements
            # TF's layout: a tensor bundle at the prefix.
            assert os.path.exists(prefix + ".index")
            assert os.path.exists(prefix + ".data-00000-of-00001")
            assert not os.path.exists(prefix + "_0.lockfile")
            sess.run(init_cache, {count: 0, filename: prefix})
            assert _as_lists(_drain(sess, get_next)) == elements
            sess.run(init_cache, {count: 0, filename: prefix + "nonsense"})
            assert _drain(sess, get_next) == []


def _two_cached_iterators():
    filename = tf.placeholder(tf.string, shape=[])
    its = [D.from_tensor_slices(COMPONENTS).cache(filename).make_initializable_iterator()
           for _ in range(2)]
    return filename, its, [it.get_next() for it in its]


def test_file_cache_concurrent_writers(tmp_path):  # testConcurrentWriters
    prefix = str(tmp_path / "cache")
    with tf.Graph().as_default():
        filename, its, nexts = _two_cached_iterators()
        with tf.Session() as sess:
            sess.run(its[0].initializer, {filename: prefix})
            sess.run(nexts[0])
            sess.run(its[1].initializer, {filename: prefix})
            with pytest.raises(tf.errors.AlreadyExistsError, match="lockfile already exists"):
                sess.run(nexts[1])
            sess.run(nexts[0])


def test_file_cache_concurrent_readers(tmp_path):  # testConcurrentReaders
    prefix = str(tmp_path / "cache")
    with tf.Graph().as_default():
        filename, its, nexts = _two_cached_iterators()
        with tf.Session() as sess:
            sess.run(its[0].initializer, {filename: prefix})
            elements = _as_lists(_drain(sess, nexts[0]))
            sess.run(its[0].initializer, {filename: prefix})
            sess.run(its[1].initializer, {filename: prefix})
            got = ([], [])
            for k in (1, 0, 1, 0, 0, 1, 0, 1):
                got[k].append([float(c) for c in sess.run(nexts[k])])
            for k in (1, 0):
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(nexts[k])
    assert got[0] == elements and got[1] == elements


def test_memory_cache_passthrough():  # MemoryCacheDatasetTest.testCacheDatasetPassthrough
    with tf.Graph().as_default():
        repeat_count = tf.Variable(tf.constant(10, tf.int64))
        dataset = D.range(3).flat_map(lambda x: D.from_tensors(x).repeat(repeat_count))
        cached = dataset.cache().repeat(2).make_initializable_iterator()
        uncached = dataset.repeat(2).make_initializable_iterator()
        cached_next, uncached_next = cached.get_next(), uncached.get_next()
        with tf.Session() as sess:
            sess.run(repeat_count.initializer)
            sess.run([cached.initializer, uncached.initializer])
            for i in range(3):
                for _ in range(10):
                    assert sess.run(cached_next) == i
                    assert sess.run(uncached_next) == i
            sess.run(repeat_count.assign(0))
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(uncached_next)
            for i in range(3):
                for _ in range(10):
                    assert sess.run(cached_next) == i
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(cached_next)


def test_memory_cache_empty_reading():  # testEmptyCacheReading
    with tf.Graph().as_default():
        count = tf.placeholder_with_default(tf.constant(5, tf.int64), shape=[])
        iterator = D.from_tensor_slices(COMPONENTS).repeat(count).cache() \
            .make_initializable_iterator()
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(iterator.initializer, {count: 0})
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_memory_cache_concurrent_readers():  # testConcurrentReaders
    with tf.Graph().as_default():
        count = tf.placeholder_with_default(tf.constant(5, tf.int64), shape=[])
        dataset = D.range(count).cache()
        i1 = dataset.map(lambda x: x + 1).make_initializable_iterator()
        i2 = dataset.map(lambda x: x + 6).make_initializable_iterator()
        n1, n2 = i1.get_next(), i2.get_next()
        with tf.Session() as sess:
            sess.run(i1.initializer)
            assert [sess.run(n1) for _ in range(3)] == [1, 2, 3]
            sess.run(i2.initializer, {count: 3})
            assert sess.run(n2) == 6 and sess.run(n2) == 7
            assert sess.run(n1) == 4
            assert sess.run([n2, n1]) == [8, 5]
            for n in (n1, n2):
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(n)


def test_memory_cache_take_repeat():  # testCacheTakeRepeat
    with tf.Graph().as_default():
        get_next = D.range(10).cache().take(5).repeat(2).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert _drain(sess, get_next) == [0, 1, 2, 3, 4] * 2


def test_file_cache_partial_pass_leaves_no_cache(tmp_path):
    prefix = str(tmp_path / "partial")
    with tf.Graph().as_default():
        iterator = D.range(10).cache(prefix).make_initializable_iterator()
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(iterator.initializer)
            sess.run(get_next)
            sess.run(iterator.initializer)  # the first pass is abandoned
            assert not os.path.exists(prefix + ".index")
            assert not os.path.exists(prefix + "_0.lockfile")
            assert _drain(sess, get_next) == list(range(10))
    assert os.path.exists(prefix + ".index")


def test_file_cache_is_a_readable_tensor_bundle(tmp_path):
    prefix = str(tmp_path / "bundle")
    with tf.Graph().as_default():
        get_next = D.from_tensor_slices((np.arange(3), np.array([b"a", b"b", b"c"]))) \
            .cache(prefix).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            _drain(sess, get_next)
    reader = tf.train.NewCheckpointReader(prefix)
    assert sorted(reader.get_variable_to_shape_map()) == [
        "      0_0", "      0_1", "      1_0", "      1_1", "      2_0", "      2_1"]
    assert reader.get_tensor("      2_1") == b"c"
