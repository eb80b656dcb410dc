"""batch of sparse elements and padded_batch, ported from TF r1.8's batch_dataset_op_test
(10 methods; from_generator's ragged inputs are made with map/concatenate here)."""
import math

import numpy as np
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset


def _run_all(sess, get_next):
    out = []
    while True:
        try:
            out.append(sess.run(get_next))
        except tf.errors.OutOfRangeError:
            return out


def _assert_sparse_equal(a, b):
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.values, b.values)
    np.testing.assert_array_equal(a.dense_shape, b.dense_shape)


def test_batch_dataset():  # testBatchDataset
    components = (np.arange(7), np.array([[1, 2, 3]]) * np.arange(7)[:, np.newaxis],
                  np.array(37.0) * np.arange(7))
    with tf.Graph().as_default():
        count = tf.placeholder(tf.int64, shape=[])
        batch_size = tf.placeholder(tf.int64, shape=[])
        iterator = D.from_tensor_slices(components).map(
            lambda x, y, z: (tf.square(x), tf.square(y), tf.square(z))) \
            .repeat(count).batch(batch_size).make_initializable_iterator()
        get_next = iterator.get_next()
        assert [t.shape.as_list() for t in get_next] == \
            [[None] + list(c.shape[1:]) for c in components]
        with tf.Session() as sess:
            for n_count, size in ((28, 14), (14, 8)):
                sess.run(iterator.initializer, {count: n_count, batch_size: size})
                batches = _run_all(sess, get_next)
                assert len(batches) == int(math.ceil(n_count * 7 / size))
                for i, batch in enumerate(batches):
                    for component, got in zip(components, batch):
                        for j in range(len(got)):
                            np.testing.assert_array_equal(
                                component[(i * size + j) % 7] ** 2, got[j])
            sess.run(iterator.initializer, {count: 0, batch_size: 8})
            assert _run_all(sess, get_next) == []
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(iterator.initializer, {count: 14, batch_size: 0})


def _sparse(i):
    return tf.SparseTensorValue(indices=[[0]], values=(i * [1]), dense_shape=[1])


def test_batch_sparse():  # testBatchSparse
    with tf.Graph().as_default():
        get_next = D.range(10).map(_sparse).batch(5).make_one_shot_iterator().get_next()
        assert isinstance(get_next, tf.SparseTensor)
        with tf.Session() as sess:
            for i in range(2):
                got = sess.run(get_next)
                assert isinstance(got, tf.SparseTensorValue)
                _assert_sparse_equal(got, tf.SparseTensorValue(
                    [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]],
                    [i * 5, i * 5 + 1, i * 5 + 2, i * 5 + 3, i * 5 + 4], [5, 1]))
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_batch_sparse_with_different_dense_shapes():  # testBatchSparseWithDifferentDenseShapes
    def _ragged(i):
        return tf.SparseTensorValue(
            indices=tf.expand_dims(tf.range(i, dtype=tf.int64), 1),
            values=tf.fill([tf.to_int32(i)], i), dense_shape=[i])

    with tf.Graph().as_default():
        get_next = D.range(10).map(_ragged).batch(5).make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            for i in range(2):
                got = sess.run(get_next)
                indices, values = [], []
                for j in range(5):
                    for k in range(i * 5 + j):
                        indices.append([j, k])
                        values.append(i * 5 + j)
                _assert_sparse_equal(got, tf.SparseTensorValue(
                    np.array(indices).reshape(-1, 2), values, [5, (i + 1) * 5 - 1]))
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_nested_batch_sparse():  # testNestedBatchSparse
    with tf.Graph().as_default():
        get_next = D.range(10).map(_sparse).batch(5).batch(2) \
            .make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = sess.run(get_next)
            _assert_sparse_equal(got, tf.SparseTensorValue(
                [[0, 0, 0], [0, 1, 0], [0, 2, 0], [0, 3, 0], [0, 4, 0],
                 [1, 0, 0], [1, 1, 0], [1, 2, 0], [1, 3, 0], [1, 4, 0]],
                list(range(10)), [2, 5, 1]))
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_batch_shape_error():  # testBatchShapeError
    with tf.Graph().as_default():
        lengths = D.from_tensor_slices(np.array([3, 3, 4], np.int32))
        get_next = lengths.map(lambda n: tf.fill([n], 1.0)).batch(3) \
            .make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Cannot batch tensors with different shapes in component "
                                     r"0. First element had shape \[3\] and element 2 had "
                                     r"shape \[4\]."):
                sess.run(get_next)


def test_padded_batch_dataset():  # testPaddedBatchDataset
    with tf.Graph().as_default():
        seq_lens = tf.placeholder(tf.int32, shape=[None])
        padded_shape = tf.placeholder(tf.int64, shape=[1])
        iterator = D.from_tensor_slices(seq_lens).map(lambda x: tf.fill([x], x)) \
            .padded_batch(4, padded_shapes=padded_shape).make_initializable_iterator()
        get_next = iterator.get_next()
        rng = np.random.RandomState(0)
        lens = rng.randint(20, size=(32,)).astype(np.int32)
        with tf.Session() as sess:
            for shape in ([-1], [25]):
                sess.run(iterator.initializer, {padded_shape: shape, seq_lens: lens})
                for i in range(8):
                    got = sess.run(get_next)
                    width = np.max(got) if shape == [-1] else 25
                    assert got.shape == (4, width)
                    for j in range(4):
                        n = lens[i * 4 + j]
                        np.testing.assert_array_equal(got[j, :n], [n] * n)
                        np.testing.assert_array_equal(got[j, n:], [0] * (width - n))
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(get_next)
            sess.run(iterator.initializer, {padded_shape: [-1], seq_lens: [0, 0, 0, 0]})
            np.testing.assert_array_equal(sess.run(get_next), np.zeros((4, 0)))
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)
            sess.run(iterator.initializer, {padded_shape: [5], seq_lens: [6, 5, 5, 5]})
            with pytest.raises(tf.errors.DataLossError):
                sess.run(get_next)


def test_padded_batch_non_default_padding():  # testPaddedBatchDatasetNonDefaultPadding
    with tf.Graph().as_default():
        seq_lens = tf.placeholder(tf.int32, shape=[None])
        padded_shape = tf.placeholder(tf.int64, shape=[1])

        def fill_tuple(x):
            filled = tf.fill([x], x)
            return filled, tf.as_string(filled)

        iterator = D.from_tensor_slices(seq_lens).map(fill_tuple).padded_batch(
            4, padded_shapes=(padded_shape, padded_shape), padding_values=(-1, "<end>")) \
            .make_initializable_iterator()
        get_next = iterator.get_next()
        lens = np.random.RandomState(1).randint(20, size=(32,)).astype(np.int32)
        with tf.Session() as sess:
            sess.run(iterator.initializer, {padded_shape: [-1], seq_lens: lens})
            for i in range(8):
                ints, strings = sess.run(get_next)
                width = np.max(ints)
                assert ints.shape == strings.shape == (4, width)
                for j in range(4):
                    n = lens[i * 4 + j]
                    np.testing.assert_array_equal(ints[j, :n], [n] * n)
                    np.testing.assert_array_equal(ints[j, n:], [-1] * (width - n))
                    assert list(strings[j, :n]) == [str(n).encode()] * n
                    assert list(strings[j, n:]) == [b"<end>"] * (width - n)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_padded_batch_unicode():  # testPaddedBatchDatasetUnicode
    with tf.Graph().as_default():
        words = [["Простой", "тест", "юникода"], ["никогда", "не", "бывает", "простым"]]
        parts = [D.from_tensors((tf.constant(w), tf.constant(list(range(len(w))))))
                 for w in words]
        dataset = parts[0].concatenate(parts[1])
        padded = dataset.padded_batch(2, padded_shapes=([None], [None]),
                                      padding_values=("", 0))
        get_next = padded.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            strings, ints = sess.run(get_next)
    assert strings[0, 3] == b"" and strings[1, 3] == "простым".encode()
    np.testing.assert_array_equal(ints, [[0, 1, 2, 0], [0, 1, 2, 3]])


def test_padded_batch_shape_specifications():  # testPaddedBatchDatasetShapeSpecifications
    with tf.Graph().as_default():
        dataset = D.from_tensors((tf.placeholder(tf.int32), tf.placeholder(tf.float32),
                                  tf.placeholder(tf.string)))
        variants = [
            dataset.padded_batch(32, padded_shapes=(tf.TensorShape([None]),
                                                    tf.TensorShape([None, None]),
                                                    tf.TensorShape([37]))),
            dataset.padded_batch(32, padded_shapes=([None], [None, None], [37])),
            dataset.padded_batch(32, padded_shapes=([-1], [-1, -1], [37])),
            dataset.padded_batch(32, padded_shapes=(
                tf.constant([-1], dtype=tf.int64), tf.constant([-1, -1], dtype=tf.int64),
                tf.constant([37], dtype=tf.int64))),
        ]
        for padded in variants:
            assert padded.output_shapes[0].as_list() == [None, None]
            assert padded.output_shapes[1].as_list() == [None, None, None]
            assert padded.output_shapes[2].as_list() == [None, 37]


def test_padded_batch_sparse_error():  # testPaddedBatchSparseError
    def _map_fn(i):
        return tf.SparseTensorValue(indices=[[0, 0]], values=(i * [1]),
                                    dense_shape=[1, 1]), i

    with tf.Graph().as_default(), pytest.raises(TypeError):
        D.range(10).map(_map_fn).padded_batch(10, padded_shapes=([1, 1], []))


# -- beyond r1.8's file: TF 1.15's padded_batch behaviour --------------------------------

def _filled():
    return D.range(5).map(lambda x: tf.fill([x], x))


# (name, builder, expected batches, static output shape)
PADDED_CASES = [
    ("drop_remainder_static_batch", lambda: _filled().padded_batch(2, [None],
                                                                   drop_remainder=True),
     [[[0], [1]], [[2, 2, 0], [3, 3, 3]]], [2, None]),
    ("keep_remainder", lambda: _filled().padded_batch(2, [4]),
     [[[0, 0, 0, 0], [1, 0, 0, 0]], [[2, 2, 0, 0], [3, 3, 3, 0]], [[4, 4, 4, 4]]],
     [None, 4]),
    ("padding_value", lambda: _filled().skip(1).padded_batch(
        4, [None], padding_values=tf.constant(-7, tf.int64)),
     [[[1, -7, -7, -7], [2, 2, -7, -7], [3, 3, 3, -7], [4, 4, 4, 4]]], [None, None]),
]


@pytest.mark.parametrize("name,build,want,shape", PADDED_CASES,
                         ids=[c[0] for c in PADDED_CASES])
def test_padded_batch_cases(name, build, want, shape):
    with tf.Graph().as_default():
        dataset = build()
        get_next = dataset.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = _run_all(sess, get_next)
    assert dataset.output_shapes.as_list() == shape
    assert [g.tolist() for g in got] == want


def test_padded_batch_dict_elements():
    with tf.Graph().as_default():
        dataset = D.range(3).map(lambda x: {"a": tf.fill([x], x), "b": x}) \
            .padded_batch(3, {"a": [None], "b": []})
        with tf.Session() as sess:
            got = sess.run(dataset.make_one_shot_iterator().get_next())
    np.testing.assert_array_equal(got["a"], [[0, 0], [1, 0], [2, 2]])
    np.testing.assert_array_equal(got["b"], [0, 1, 2])


def test_padded_batch_op_type():
    # TF 1.15 builds PaddedBatchDatasetV2 whatever drop_remainder is (TF 2.x's runtime
    # cannot re-serialize the V1 op, which stays registered for imported graphs).
    with tf.Graph().as_default() as g:
        D.range(3).map(lambda x: tf.fill([x], x)).padded_batch(2, [None])
        D.range(3).map(lambda x: tf.fill([x], x)).padded_batch(2, [None], drop_remainder=True)
        types = [o.type for o in g.get_operations() if "PaddedBatch" in o.type]
    assert types == ["PaddedBatchDatasetV2", "PaddedBatchDatasetV2"]


@pytest.mark.parametrize("kwargs,error", [
    (dict(padded_shapes=[1, 2]), ValueError),           # rank differs from the input's
    (dict(padded_shapes=[None], padding_values=1.5), TypeError),   # int64 input
    (dict(padded_shapes=[None], padding_values=[0, 1]), ValueError),  # not a scalar
])
def test_padded_batch_argument_errors(kwargs, error):
    with tf.Graph().as_default(), pytest.raises(error):
        D.range(3).map(lambda x: tf.fill([x], x)).padded_batch(2, **kwargs)
