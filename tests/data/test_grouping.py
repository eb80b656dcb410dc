"""tf.data.experimental's stateful transformations (scan, group_by_window,
group_by_reducer, bucket_by_sequence_length) and input choosers (sample_from_datasets,
choose_from_datasets, RandomDataset): TF's contrib tests ported (each test names the TF
method it ports)."""
import itertools

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tests.helpers.dataset_run import elements

D = tf.data.Dataset
E = tf.data.experimental


def _counting(start, scan_fn):
    return D.from_tensors(0).repeat().apply(E.scan(start, scan_fn))


def test_scan_count():
    """ScanDatasetTest.testCount."""
    with tf.Graph().as_default():
        start = tf.placeholder(tf.int32, shape=[])
        step = tf.placeholder(tf.int32, shape=[])
        take = tf.placeholder(tf.int64, shape=[])
        it = tf.data.make_initializable_iterator(
            _counting(start, lambda state, _: (state + step, state)).take(take))
        get_next = it.get_next()
        with tf.Session() as sess:
            for start_val, step_val, take_val in [(0, 1, 10), (0, 1, 0), (10, 1, 10),
                                                  (10, 2, 10), (10, -1, 10), (10, -2, 10)]:
                sess.run(it.initializer, {start: start_val, step: step_val, take: take_val})
                for want, _ in zip(itertools.count(start_val, step_val), range(take_val)):
                    assert sess.run(get_next) == want
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(get_next)


def test_scan_fibonacci():
    """ScanDatasetTest.testFibonacci (a list state is one tensor)."""
    with tf.Graph().as_default():
        dataset = D.from_tensors(1).repeat(None).apply(
            E.scan([0, 1], lambda a, _: ([a[1], a[0] + a[1]], a[1])))
        get_next = tf.data.make_one_shot_iterator(dataset).get_next()
        with tf.Session() as sess:
            assert [sess.run(get_next) for _ in range(6)] == [1, 1, 2, 3, 5, 8]


def test_scan_changing_state_shape():
    """ScanDatasetTest.testChangingStateShape: the state's shapes are relaxed until the
    function's new state fits them."""
    def scan_fn(state, value):
        longer = tf.concat([state[0], state[0]], 0)
        larger_rank = tf.expand_dims(state[1], 0)
        return (longer, larger_rank), (state, value)

    with tf.Graph().as_default():
        dataset = D.from_tensors(0).repeat(5).apply(E.scan(([0], 1), scan_fn))
        assert dataset.output_shapes[0][0].as_list() == [None]
        assert dataset.output_shapes[0][1].ndims is None
        assert dataset.output_shapes[1].as_list() == []
        got = elements(dataset)
    assert len(got) == 5
    for i, ((longer, larger_rank), _) in enumerate(got):
        np.testing.assert_array_equal(longer, [0] * 2 ** i)
        np.testing.assert_array_equal(larger_rank, np.array(1, ndmin=i))


def test_scan_incorrect_state_type():
    """ScanDatasetTest.testIncorrectStateType."""
    with tf.Graph().as_default(), pytest.raises(
            TypeError, match="The element types for the new state must match the initial"):
        D.range(10).apply(E.scan(tf.constant(1, tf.int32),
                                 lambda state, _: (tf.constant(1, tf.int64), state)))


def test_scan_incorrect_return_type():
    """ScanDatasetTest.testIncorrectReturnType."""
    with tf.Graph().as_default(), pytest.raises(
            TypeError, match="must return a pair comprising the new state and the output"):
        D.range(10).apply(E.scan(tf.constant(1, tf.int32),
                                 lambda state, _: tf.constant(1, tf.int64)))


def _window_batches(components, key_fn, window, batch, repeat=None, take=None):
    dataset = D.from_tensor_slices(components)
    if repeat:
        dataset = dataset.repeat(repeat)
    dataset = dataset.apply(E.group_by_window(key_fn, lambda _, xs: xs.batch(batch), window))
    return dataset.take(take) if take else dataset


def test_group_by_window_simple():
    """GroupByWindowTest.testSimple."""
    components = np.random.RandomState(1).randint(100, size=(200,)).astype(np.int64)
    with tf.Graph().as_default():
        got = elements(D.from_tensor_slices(components).map(lambda x: x * x).apply(
            E.group_by_window(lambda x: x % 2, lambda _, xs: xs.batch(4), 4)))
    counts = [len(b) for b in got]
    assert all(len({int(v) % 2 for v in b}) == 1 for b in got)
    assert sum(counts) == len(components)
    full = len([c for c in counts if c == 4])
    assert full >= 23 and all(c == 4 for c in counts[:full])


def test_group_by_window_immediate_output():
    """GroupByWindowTest.testImmediateOutput: an endless input still gives windows."""
    components = np.int64([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 0, 0, 2, 2, 0, 0])
    with tf.Graph().as_default():
        got = elements(_window_batches(components, lambda x: x % 3, 4, 4, repeat=-1,
                                       take=12))
    want = [[0] * 4, [1] * 4, [2] * 4, [0] * 4] * 3
    assert [list(b) for b in got] == want


def test_group_by_window_small_groups():
    """GroupByWindowTest.testSmallGroups: the partial windows at the end, by key."""
    components = np.int64([0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0])
    with tf.Graph().as_default():
        got = elements(_window_batches(components, lambda x: x % 2, 4, 4))
    assert [list(b) for b in got] == [[0] * 4, [1] * 4, [0] * 3, [1]]


def test_group_by_window_dynamic_window_size():
    """BucketTest.testDynamicWindowSize: window_size_func per key."""
    def window_size_func(key):
        return tf.gather(tf.constant([5, 10], dtype=tf.int64), key)

    with tf.Graph().as_default():
        got = elements(D.from_tensor_slices(np.arange(100, dtype=np.int64)).apply(
            E.group_by_window(lambda x: x % 2, lambda _, xs: xs.batch(20), None,
                              window_size_func)))
    assert len(got) == 15
    for b in got:
        assert len(b) == (5 if b[0] % 2 == 0 else 10)
        assert len({int(v) % 2 for v in b}) == 1


@pytest.mark.parametrize("kwargs,error", [
    ({}, ValueError), ({"window_size": 2, "window_size_func": lambda k: k}, ValueError)])
def test_group_by_window_arguments(kwargs, error):
    with pytest.raises(error, match="Must pass either window_size or window_size_func"):
        E.group_by_window(lambda x: x, lambda k, w: w, **kwargs)


@pytest.mark.parametrize("key_fn,reduce_fn,match", [
    (lambda x: tf.cast(x, tf.int32), lambda k, w: w, "must return a single tf.int64"),
    (lambda x: x, lambda k, w: k, "must return a `Dataset` object"),
])
def test_group_by_window_bad_functions(key_fn, reduce_fn, match):
    with tf.Graph().as_default(), pytest.raises((TypeError, ValueError), match=match):
        D.range(4).apply(E.group_by_window(key_fn, reduce_fn, 2))


def test_group_by_window_zero_window_size():
    with tf.Graph().as_default():
        dataset = D.range(4).apply(E.group_by_window(
            lambda x: x, lambda k, w: w, window_size_func=lambda k: k * 0))
        with pytest.raises(tf.errors.InvalidArgumentError, match="greater than zero"):
            elements(dataset)


def _reducer_sum():
    return E.Reducer(lambda _: np.int64(0), lambda s, x: s + x, lambda s: s)


# (GroupByReducerTest method, input, key_func, reducer, expected)
REDUCER_CASES = [
    ("testSum", lambda: D.range(2 * 10), lambda x: x % 2, _reducer_sum(),
     [sum(range(0, 20, 2)), sum(range(1, 20, 2))]),
    ("testAverage", lambda: D.range(10).map(lambda x: tf.cast(x, tf.float32)),
     lambda x: tf.cast(tf.floormod(x, 2), tf.int64),
     E.Reducer(lambda _: (0.0, 0.0), lambda s, x: (s[0] + x, s[1] + 1.0),
               lambda s, n: s / n), [4.0, 5.0]),
    ("testConcat", lambda: D.zip((D.from_tensor_slices(np.array(list("abcdefghij"))),
                                  D.range(10))),
     lambda x, y: y % 2,
     E.Reducer(lambda _: "", lambda s, x: s + x[0], lambda s: s),
     [b"acegi", b"bdfhj"]),
    ("testChangingStateShape", lambda: D.range(4), lambda x: x % 2,
     E.Reducer(lambda _: tf.zeros([0], tf.int64), lambda s, x: tf.concat([s, [x]], 0),
               lambda s: s), [[0, 2], [1, 3]]),
]


@pytest.mark.parametrize("name,build,key_fn,reducer,want", REDUCER_CASES,
                         ids=[c[0] for c in REDUCER_CASES])
def test_group_by_reducer(name, build, key_fn, reducer, want):
    with tf.Graph().as_default():
        got = elements(build().apply(E.group_by_reducer(key_fn, reducer)))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_group_by_reducer_type_mismatch():
    """GroupByReducerTest.testTypeMismatch."""
    reducer = E.Reducer(lambda _: tf.constant(1, tf.int32),
                        lambda s, x: tf.constant(1, tf.int64), lambda s: s)
    with tf.Graph().as_default(), pytest.raises(
            TypeError, match="The element types for the new state must match"):
        D.range(10).apply(E.group_by_reducer(lambda _: np.int64(0), reducer))


def test_bucket_by_sequence_length_no_padding():
    """BucketBySequenceLengthTest (no_padding): lengths in [b[i-1], b[i]) batch together."""
    lengths = [1, 5, 2, 7, 3, 8, 4, 9, 6, 2]
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(np.int64(lengths)).apply(E.bucket_by_sequence_length(
            lambda x: tf.cast(x, tf.int32), [3, 6], [2, 2, 3], no_padding=True))
        got = [list(b) for b in elements(dataset)]
    assert got == [[1, 2], [5, 3], [7, 8, 9], [2], [4], [6]]  # the rest by bucket id
    with pytest.raises(ValueError, match="len\\(bucket_batch_sizes\\) must equal"):
        E.bucket_by_sequence_length(lambda x: x, [3, 6], [2, 2])


def test_choose_from_datasets():
    """DirectedInterleaveDatasetTest.testBasic / choose_from_datasets."""
    with tf.Graph().as_default():
        datasets = [D.from_tensors(i).repeat(100) for i in range(5)]
        choice = D.range(5).repeat(2)
        got = elements(E.choose_from_datasets(datasets, choice))
    assert got == list(range(5)) * 2


def test_choose_from_datasets_exhausted_inputs_and_errors():
    with tf.Graph().as_default():
        got = elements(E.choose_from_datasets([D.range(2), D.range(10, 11)],
                                              D.from_tensor_slices(np.int64([0, 1, 1, 0, 0]))))
        assert got == [0, 10, 1]
        with pytest.raises(TypeError, match="scalar `tf.int64`"):
            E.choose_from_datasets([D.range(2)], D.range(3).map(lambda x: tf.cast(x, tf.int32)))
        bad = E.choose_from_datasets([D.range(2)], D.from_tensors(np.int64(3)))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Selector index out of range"):
            elements(bad)


@pytest.mark.parametrize("weights", [[0.5, 0.5], [0.1, 0.9], [0.9, 0.1], None])
def test_sample_from_datasets_distribution(weights):
    """DirectedInterleaveDatasetTest.testSampleFromDatasets: frequencies follow weights."""
    n = 2000
    with tf.Graph().as_default():
        datasets = [D.from_tensors(np.int64(i)).repeat() for i in range(2)]
        got = elements(E.sample_from_datasets(datasets, weights, seed=7).take(n))
    freq = np.bincount(np.asarray(got), minlength=2) / n
    np.testing.assert_allclose(freq, weights or [0.5, 0.5], atol=0.05)


def test_sample_from_datasets_seeded_and_exhausted():
    """With a seed the order repeats for each initialization; inputs run out in turn."""
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        dataset = E.sample_from_datasets([D.range(10), D.range(100, 110)], [0.3, 0.7])
        first, second = elements(dataset), elements(dataset)
    assert first == second
    assert sorted(first) == list(range(10)) + list(range(100, 110))
    with pytest.raises(ValueError, match="vector of length"):
        E.sample_from_datasets([D.range(1), D.range(2)], [0.5, 0.3, 0.2])
    with pytest.raises(TypeError, match="tf.float32"):
        E.sample_from_datasets([D.range(1), D.range(2)], [1, 2])


def test_sample_from_datasets_weights_dataset():
    with tf.Graph().as_default():
        weights = D.from_tensors(np.float32([0.0, 1.0])).repeat()
        got = elements(E.sample_from_datasets([D.range(3), D.range(10, 13)], weights,
                                              seed=3).take(3))
    assert got == [10, 11, 12]


def test_random_dataset_seeds():
    with tf.Graph().as_default():
        a = elements(E.RandomDataset(seed=4).take(3))
        b = elements(E.RandomDataset(seed=4).take(3))
        c = elements(E.RandomDataset(seed=5).take(3))
    assert a == b and a != c
    assert len(set(a)) == 3


def test_device_copies_keep_the_dataset():
    with tf.Graph().as_default():
        dataset = D.range(4).apply(E.copy_to_device("/gpu:0"))
        assert dataset.output_types == tf.int64
        assert elements(dataset.apply(E.prefetch_to_device("/gpu:0", 2))) == [0, 1, 2, 3]


@pytest.mark.parametrize("initial_dist", [None, [0.7, 0.2, 0.1]], ids=["estimated", "given"])
def test_rejection_resample(initial_dist):
    """ResampleTest.testDistribution: the classes of the output follow the target."""
    classes = np.random.RandomState(0).choice(3, size=3000, p=[0.7, 0.2, 0.1]).astype(np.int32)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        dataset = D.from_tensor_slices((classes, np.arange(3000))).apply(
            E.rejection_resample(lambda c, i: c, [1 / 3, 1 / 3, 1 / 3], initial_dist, seed=5))
        assert dataset.output_types == (tf.int32, (tf.int32, tf.int64))
        got = elements(dataset.take(800))
    assert len(got) == 800
    assert all(c == data[0] == classes[data[1]] for c, data in got)
    freq = np.bincount([c for c, _ in got], minlength=3) / len(got)
    np.testing.assert_allclose(freq, [1 / 3] * 3, atol=0.06)


def test_rejection_resample_static_cases():
    """A target equal to the initial distribution keeps the data as it is; a target the
    data must be filtered for drops the rest."""
    with tf.Graph().as_default():
        same = D.range(6).map(lambda x: tf.cast(x % 2, tf.int32)).apply(
            E.rejection_resample(lambda c: c, [0.5, 0.5], [0.5, 0.5]))
        assert [c for c, _ in elements(same)] == [0, 1, 0, 1, 0, 1]
        only_one = D.range(6).map(lambda x: tf.cast(x % 2, tf.int32)).apply(
            E.rejection_resample(lambda c: c, [0.0, 1.0], [0.5, 0.5]))
        assert [c for c, _ in elements(only_one)] == [1, 1, 1]
