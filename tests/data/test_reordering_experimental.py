"""tf.data.experimental functions of the reordering area: cardinality (TF's
cardinality_test cases), dense_to_sparse_batch (its 4 test methods), get_single_element
(2 of 4: the other two need tf.function); cardinality_test's Interleave and parallel
Map cases belong to the parallel area's ops, enumerate_dataset, Counter, ignore_errors,
take_while, unique, unbatch, and tf.data.Options."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset
X = tf.data.experimental
INF, UNK = X.INFINITE_CARDINALITY, X.UNKNOWN_CARDINALITY


def _drain(dataset, feed_dict=None):
    iterator = dataset.make_initializable_iterator()
    get_next = iterator.get_next()
    out = []
    with tf.Session() as sess:
        sess.run(iterator.initializer, feed_dict)
        while True:
            try:
                out.append(sess.run(get_next))
            except tf.errors.OutOfRangeError:
                return out


def _true(_):
    return True


CARDINALITY = [
    ("Batch1", lambda: D.range(5).batch(2, drop_remainder=True), 2),
    ("Batch2", lambda: D.range(5).batch(2, drop_remainder=False), 3),
    ("Batch3", lambda: D.range(5).filter(_true).batch(2), UNK),
    ("Batch4", lambda: D.range(5).repeat().batch(2), INF),
    ("Cache1", lambda: D.range(5).cache(), 5),
    ("Cache2", lambda: D.range(5).cache("foo"), 5),
    ("Concatenate1", lambda: D.range(5).concatenate(D.range(5)), 10),
    ("Concatenate2", lambda: D.range(5).filter(_true).concatenate(D.range(5)), UNK),
    ("Concatenate3", lambda: D.range(5).repeat().concatenate(D.range(5)), INF),
    ("Concatenate4", lambda: D.range(5).concatenate(D.range(5).filter(_true)), UNK),
    ("Concatenate5", lambda: D.range(5).filter(_true).concatenate(D.range(5).filter(_true)),
     UNK),
    ("Concatenate6", lambda: D.range(5).repeat().concatenate(D.range(5).filter(_true)), INF),
    ("Concatenate7", lambda: D.range(5).concatenate(D.range(5).repeat()), INF),
    ("Concatenate8", lambda: D.range(5).filter(_true).concatenate(D.range(5).repeat()), INF),
    ("Concatenate9", lambda: D.range(5).repeat().concatenate(D.range(5).repeat()), INF),
    ("FlatMap", lambda: D.range(5).flat_map(lambda _: D.from_tensors(0)), UNK),
    ("Filter", lambda: D.range(5).filter(_true), UNK),
    ("FromTensors1", lambda: D.from_tensors(0), 1),
    ("FromTensors2", lambda: D.from_tensors((0, 1)), 1),
    ("FromTensorSlices1", lambda: D.from_tensor_slices([0, 0, 0]), 3),
    ("FromTensorSlices2", lambda: D.from_tensor_slices(([0, 0, 0], [1, 1, 1])), 3),
    ("Map1", lambda: D.range(5).map(lambda x: x), 5),
    ("PaddedBatch1", lambda: D.range(5).padded_batch(2, [], drop_remainder=True), 2),
    ("PaddedBatch2", lambda: D.range(5).padded_batch(2, [], drop_remainder=False), 3),
    ("PaddedBatch3", lambda: D.range(5).filter(_true).padded_batch(2, []), UNK),
    ("PaddedBatch4", lambda: D.range(5).repeat().padded_batch(2, []), INF),
    ("Prefetch", lambda: D.range(5).prefetch(buffer_size=1), 5),
    ("Range1", lambda: D.range(0), 0),
    ("Range2", lambda: D.range(5), 5),
    ("Range3", lambda: D.range(5, 10), 5),
    ("Range4", lambda: D.range(10, 5), 0),
    ("Range5", lambda: D.range(5, 10, 2), 3),
    ("Range6", lambda: D.range(10, 5, -2), 3),
    ("Repeat1", lambda: D.range(0).repeat(0), 0),
    ("Repeat2", lambda: D.range(1).repeat(0), 0),
    ("Repeat3", lambda: D.range(0).repeat(5), 0),
    ("Repeat4", lambda: D.range(1).repeat(5), 5),
    ("Repeat5", lambda: D.range(0).repeat(), 0),
    ("Repeat6", lambda: D.range(1).repeat(), INF),
    ("Shuffle", lambda: D.range(5).shuffle(buffer_size=1), 5),
    ("Skip1", lambda: D.range(5).skip(2), 3),
    ("Skip2", lambda: D.range(5).skip(8), 0),
    ("Skip3", lambda: D.range(5).filter(_true).skip(2), UNK),
    ("Skip4", lambda: D.range(5).repeat().skip(2), INF),
    ("Take1", lambda: D.range(5).take(2), 2),
    ("Take2", lambda: D.range(5).take(8), 5),
    ("Take3", lambda: D.range(5).filter(_true).take(2), UNK),
    ("Take4", lambda: D.range(5).repeat().take(2), 2),
    ("Window1", lambda: D.range(5).window(size=2, shift=2, drop_remainder=True), 2),
    ("Window2", lambda: D.range(5).window(size=2, shift=2, drop_remainder=False), 3),
    ("Zip1", lambda: D.zip(D.range(5)), 5),
    ("Zip2", lambda: D.zip((D.range(5), D.range(3))), 3),
    ("Zip3", lambda: D.zip((D.range(5), D.range(3).repeat())), 5),
    ("Zip4", lambda: D.zip((D.range(5).repeat(), D.range(3).repeat())), INF),
    ("Zip5", lambda: D.zip((D.range(5), D.range(3).filter(_true))), UNK),
    ("Shard", lambda: D.range(5).shard(2, 0), 3),
    ("Unbatch", lambda: D.range(6).batch(2).unbatch(), UNK),
    ("Counter", lambda: X.Counter(), INF),
    ("Enumerate", lambda: D.range(4).apply(X.enumerate_dataset()), 4),
]


@pytest.mark.parametrize("name,build,want", CARDINALITY, ids=[c[0] for c in CARDINALITY])
def test_cardinality(name, build, want):  # cardinality_test.testNumElements
    with tf.Graph().as_default():
        with tf.Session() as sess:
            assert sess.run(X.cardinality(build())) == want


def test_dense_to_sparse_batch():  # testDenseToSparseBatchDataset
    components = np.random.RandomState(0).randint(12, size=(100,)).astype(np.int32)
    with tf.Graph().as_default():
        got = _drain(D.from_tensor_slices(components).map(lambda x: tf.fill([x], x))
                     .apply(X.dense_to_sparse_batch(4, [12])))
    assert len(got) == 25
    for start, result in zip(range(0, 100, 4), got):
        part = components[start:start + 4]
        np.testing.assert_array_equal(
            result.indices, np.array([[i, j] for i, c in enumerate(part) for j in range(c)])
            .reshape(-1, 2))
        np.testing.assert_array_equal(result.values, [c for c in part for _ in range(c)])
        np.testing.assert_array_equal(result.dense_shape, [len(part), 12])


def test_dense_to_sparse_batch_unknown_shape():  # testDenseToSparseBatchDatasetWithUnknownShape
    components = np.random.RandomState(1).randint(5, size=(40,)).astype(np.int32)
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(components).map(lambda x: tf.fill([x, x], x)) \
            .apply(X.dense_to_sparse_batch(4, [5, None]))
        assert dataset.output_classes is tf.SparseTensor
        assert dataset.output_shapes.as_list() == [None, 5, None]
        got = _drain(dataset)
    for start, result in zip(range(0, 40, 4), got):
        part = components[start:start + 4]
        np.testing.assert_array_equal(
            result.indices, np.array([[i, j, z] for i, c in enumerate(part) for j in range(c)
                                      for z in range(c)]).reshape(-1, 3))
        np.testing.assert_array_equal(result.dense_shape, [len(part), 5, np.max(part)])


def test_dense_to_sparse_batch_invalid_shape():  # testDenseToSparseBatchDatasetWithInvalidShape
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Dimension -2 must be >= 0"):
        D.from_tensors(tf.constant([[1]])).apply(X.dense_to_sparse_batch(4, [-2]))


def test_dense_to_sparse_batch_shape_errors():  # testDenseToSparseBatchDatasetShapeErrors
    with tf.Graph().as_default():
        value = tf.placeholder(tf.int32)
        iterator = D.from_tensors(value).apply(X.dense_to_sparse_batch(4, [12])) \
            .make_initializable_iterator()
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(iterator.initializer, {value: [[1]]})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="incompatible with the row shape"):
                sess.run(get_next)
            sess.run(iterator.initializer, {value: list(range(13))})
            with pytest.raises(tf.errors.DataLossError, match="larger than the row shape"):
                sess.run(get_next)


@pytest.mark.parametrize("skip,take,error", [
    (0, 1, None), (5, 1, None), (10, 1, None), (100, 1, "Dataset was empty."),
    (0, 2, "Dataset had more than one element.")])
def test_get_single_element(skip, take, error):  # testGetSingleElement
    def make_sparse(x):
        return tf.SparseTensor(tf.reshape(x, [1, 1]), tf.reshape(x, [1]), tf.reshape(x, [1]))

    with tf.Graph().as_default():
        dataset = D.range(100).skip(skip).map(lambda x: (x * x, make_sparse(x))).take(take)
        element = X.get_single_element(dataset)
        with tf.Session() as sess:
            if error:
                with pytest.raises(tf.errors.InvalidArgumentError, match=error):
                    sess.run(element)
                return
            dense, sparse = sess.run(element)
    assert dense == skip * skip
    assert sparse.indices.tolist() == [[skip]] and sparse.values.tolist() == [skip]
    assert sparse.dense_shape.tolist() == [skip]


def test_get_single_element_of_window():  # testWindow
    with tf.Graph().as_default():
        dataset = D.range(10).window(2).flat_map(
            lambda ds: D.from_tensors(X.get_single_element(ds.batch(2))))
        assert [list(e) for e in _drain(dataset)] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]


def test_get_single_element_refuses_non_datasets():
    with pytest.raises(TypeError, match="must be a `tf.data.Dataset` object"):
        X.get_single_element([1, 2])


ELEMENT_CASES = [
    ("enumerate", lambda: D.from_tensor_slices(["a", "b"]).apply(X.enumerate_dataset(5)),
     [(5, b"a"), (6, b"b")]),
    ("counter", lambda: X.Counter(3, -2).take(3), [3, 1, -1]),
    ("counter_int32", lambda: X.Counter(dtype=tf.int32).take(2), [0, 1]),
    ("ignore_errors", lambda: D.from_tensor_slices(np.float32([1., np.nan, 2.]))
     .map(lambda x: tf.check_numerics(x, "nan")).apply(X.ignore_errors()), [1.0, 2.0]),
    ("take_while", lambda: D.range(10).apply(X.take_while(lambda x: x < 4)), [0, 1, 2, 3]),
    ("take_while_none", lambda: D.range(10).apply(X.take_while(lambda x: x > 4)), []),
    ("unique", lambda: D.from_tensor_slices([1, 2, 1, 3, 2]).apply(X.unique()), [1, 2, 3]),
    ("unique_strings", lambda: D.from_tensor_slices(["a", "b", "a"]).apply(X.unique()),
     [b"a", b"b"]),
    ("unbatch_experimental", lambda: D.range(5).batch(2).apply(X.unbatch()), [0, 1, 2, 3, 4]),
    ("unbatch_tuple", lambda: D.from_tensors((np.arange(3), np.ones([3, 2]))).unbatch()
     .map(lambda a, b: a + tf.cast(tf.reduce_sum(b), tf.int64)), [2, 3, 4]),
    ("shuffle_and_repeat_count", lambda: D.range(3).apply(X.shuffle_and_repeat(1, 2)),
     [0, 1, 2, 0, 1, 2]),
]


@pytest.mark.parametrize("name,build,want", ELEMENT_CASES, ids=[c[0] for c in ELEMENT_CASES])
def test_elements(name, build, want):
    with tf.Graph().as_default():
        got = _drain(build())
    assert [tuple(g) if isinstance(g, tuple) else g for g in got] == want


def test_unique_refuses_other_types():
    with tf.Graph().as_default(), pytest.raises(TypeError, match="only supports inputs"):
        D.range(3).map(lambda x: tf.cast(x, tf.float32)).apply(X.unique())


def test_take_while_predicate_must_be_scalar_bool():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="scalar boolean"):
        D.range(3).apply(X.take_while(lambda x: x))


@pytest.mark.parametrize("build,error", [
    (lambda: D.range(3).unbatch(), "Cannot unbatch an input with scalar components."),
    (lambda: D.zip((D.from_tensors(np.zeros([2])), D.from_tensors(np.zeros([3])))).unbatch(),
     "different batch sizes"),
])
def test_unbatch_static_errors(build, error):
    with tf.Graph().as_default(), pytest.raises(ValueError, match=error):
        build()


def test_unbatch_dynamic_batch_mismatch():
    with tf.Graph().as_default():
        a, b = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
        with pytest.raises(tf.errors.InvalidArgumentError, match="same batch size"):
            _drain(D.from_tensors((a, b)).unbatch(), {a: [1, 2], b: [1, 2, 3]})


def test_options_recorded_and_merged():
    with tf.Graph().as_default():
        first = tf.data.Options()
        first.experimental_deterministic = False
        first.experimental_threading.private_threadpool_size = 4
        second = tf.data.Options()
        second.experimental_slack = True
        dataset = D.range(3).with_options(first).map(lambda x: x).with_options(second)
        options = dataset.options()
        assert options.deterministic is False and options.experimental_deterministic is False
        assert options.threading.private_threadpool_size == 4
        assert options.experimental_slack is True
        with pytest.raises(AttributeError, match="Cannot set the property"):
            tf.data.Options().not_an_option = 1
        assert _drain(dataset) == [0, 1, 2]


# -- options_test (8 of its 16 methods: the others need the Options proto, tf.function,
# eager mode or graph rewrites) -----------------------------------------------------------

def test_options_default():  # testOptionsDefault
    with tf.Graph().as_default():
        assert D.range(0).options() == tf.data.Options()


def test_options_once():  # testOptionsOnce
    with tf.Graph().as_default():
        options = tf.data.Options()
        assert D.range(0).with_options(options).cache().options() == options


def test_options_twice_same():  # testOptionsTwiceSame
    options = tf.data.Options()
    options.experimental_optimization.autotune = True
    with tf.Graph().as_default():
        assert D.range(0).with_options(options).with_options(options).options() == options


def test_options_twice_different_options():  # testOptionsTwiceDifferentOptions
    options1, options2 = tf.data.Options(), tf.data.Options()
    options1.experimental_optimization.autotune = True
    options2.experimental_deterministic = False
    with tf.Graph().as_default():
        options = D.range(0).with_options(options1).with_options(options2).options()
    assert options.experimental_optimization.autotune is True
    assert options.experimental_deterministic is False


def test_options_twice_same_option(caplog):  # testOptionsTwiceSameOption
    options1, options2 = tf.data.Options(), tf.data.Options()
    options1.experimental_optimization.autotune = False
    options2.experimental_optimization.autotune = True
    with tf.Graph().as_default():
        options = D.range(0).with_options(options1).with_options(options2).options()
    assert options.experimental_optimization.autotune is True
    assert "Changing the value of option autotune from False to True" in caplog.text


def test_options_merge_from_multiple_inputs():  # testOptionsMergeOptionsFromMultipleInputs
    options1, options2 = tf.data.Options(), tf.data.Options()
    options1.experimental_optimization.autotune = True
    options2.experimental_deterministic = True
    with tf.Graph().as_default():
        ds1 = D.range(0).with_options(options1)
        ds2 = D.range(0).with_options(options2)
        for merged in (D.zip((ds1, ds2)), ds1.concatenate(ds2)):
            options = merged.options()
            assert options.experimental_optimization.autotune is True
            assert options.experimental_deterministic is True


def test_options_have_defaults():  # testOptionsHaveDefaults
    options1, options2 = tf.data.Options(), tf.data.Options()
    assert options1.experimental_optimization is not options2.experimental_optimization
    assert options1.experimental_threading is not options2.experimental_threading
    assert options1.experimental_optimization == X.OptimizationOptions()
    assert options1.experimental_threading == tf.data.ThreadingOptions()


def test_mutating_options_raises_value_error():  # testMutatingOptionsRaiseValueError
    options1, options2 = tf.data.Options(), tf.data.Options()
    options1.experimental_slack = True
    options2.experimental_optimization.autotune = True
    with tf.Graph().as_default():
        ds = D.range(0).with_options(options1).map(lambda x: 2 * x).with_options(options2)
        options = ds.options()
    with pytest.raises(ValueError, match="Mutating"):
        options.experimental_deterministic = True
    with pytest.raises(ValueError, match="Mutating"):
        options.experimental_optimization.map_fusion = True


def test_enumerate_dataset():  # enumerate_dataset_test.testEnumerateDataset
    with tf.Graph().as_default():
        start = tf.constant(20, dtype=tf.int64)
        dataset = D.from_tensor_slices((["a", "b"], [1, 2], [37.0, 38])) \
            .apply(X.enumerate_dataset(start))
        assert tf.data.get_output_types(dataset)[0] == tf.int64
        shapes = tf.data.get_output_shapes(dataset)
        assert shapes[0].as_list() == [] and [s.as_list() for s in shapes[1]] == [[]] * 3
        got = _drain(dataset)
    assert [(i, tuple(e)) for i, e in got] == [(20, (b"a", 1, 37.0)), (21, (b"b", 2, 38.0))]


@pytest.mark.parametrize("start,step,want", [(3, 4, [3, 7, 11]), (0, -1, [0, -1, -2])])
def test_counter(start, step, want):  # counter_test.testCounter
    with tf.Graph().as_default():
        dataset = X.Counter(start, step)
        assert tf.data.get_output_shapes(dataset).as_list() == []
        assert tf.data.get_output_types(dataset) == tf.int64
        get_next = dataset.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert [sess.run(get_next) for _ in want] == want
