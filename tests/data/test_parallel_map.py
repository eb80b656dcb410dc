"""Dataset.map, sequential and with num_parallel_calls (ParallelMapDatasetV2): TF's
map_dataset_op_test, ported (each test names the TF method it ports)."""
import collections
import threading
import time

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tests.helpers.dataset_run import elements

D = tf.data.Dataset
PARALLEL = [None, 1, 2, 8, tf.data.AUTOTUNE]
PAR_IDS = ["sequential", "p1", "p2", "p8", "autotune"]


def _components(n=7):
    return (np.arange(n), np.array([[1, 2, 3]]) * np.arange(n)[:, np.newaxis],
            np.array(37.0) * np.arange(n))


def _squares(components, calls, count):
    return D.from_tensor_slices(components).map(
        lambda x, y, z: (tf.square(x), tf.square(y), tf.square(z)),
        num_parallel_calls=calls).repeat(count)


def _drain(sess, get_next):
    out = []
    while True:
        try:
            out.append(sess.run(get_next))
        except tf.errors.OutOfRangeError:
            return out


@pytest.mark.parametrize("calls", PARALLEL, ids=PAR_IDS)
def test_map_dataset(calls):
    """testMapDataset / testParallelMapDataset: in order, single- and multi-threaded use."""
    components = _components()
    with tf.Graph().as_default():
        count = tf.placeholder(tf.int64, shape=[])
        dataset = _squares(components, calls, count)
        if calls is not None:
            dataset = dataset.prefetch(2)
        it = tf.data.make_initializable_iterator(dataset)
        get_next = it.get_next()
        assert [c.shape[1:] for c in components] == [tuple(t.shape.as_list())
                                                      for t in get_next]
        with tf.Session() as sess:
            sess.run(it.initializer, {count: 3})
            got = _drain(sess, get_next)
            assert len(got) == 21
            for k, result in enumerate(got):
                for comp, value in zip(components, result):
                    np.testing.assert_array_equal(comp[k % 7] ** 2, value)
            sess.run(it.initializer, {count: 4})
            results = []
            threads = [threading.Thread(target=lambda: results.extend(_drain(sess, get_next)))
                       for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(int(r[0]) for r in results) == sorted([i * i for i in range(7)] * 4)


def test_implicit_dispose_parallel_map_dataset():
    """testImplicitDisposeParallelMapDataset: an unfinished pipeline's threads stop on
    close (and none is left behind)."""
    before = threading.active_count()
    components = _components(1000)
    with tf.Graph().as_default():
        dataset = _squares(components, 100, 1000).prefetch(100).prefetch(100)
        it = tf.data.make_initializable_iterator(dataset)
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            for _ in range(3):
                sess.run(get_next)
            assert threading.active_count() > before
    deadline = time.monotonic() + 5
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert threading.active_count() == before


@pytest.mark.parametrize("calls,prefetch", [(None, 2), (2, 0), (2, 2)],
                         ids=["prefetch_error", "parallel_map_error", "both"])
def test_error_then_continue(calls, prefetch):
    """testParallelMapError / testPrefetchError / testParallelMapUnspecifiedOutputSize:
    the failing element's error arrives in order, the next elements follow."""
    components = np.array([1., 2., 3., np.nan, 5.], np.float32)
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(components).map(
            lambda x: tf.check_numerics(x, "message"), num_parallel_calls=calls)
        if prefetch:
            dataset = dataset.prefetch(prefetch)
        it = tf.data.make_initializable_iterator(dataset)
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            assert [sess.run(get_next) for _ in range(3)] == [1., 2., 3.]
            with pytest.raises(tf.errors.InvalidArgumentError, match="message"):
                sess.run(get_next)
            assert sess.run(get_next) == 5.
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


@pytest.mark.parametrize("calls", [None, 2], ids=["sequential", "parallel"])
def test_capture_iterator(calls):
    """testCaptureIterator: the function reads another iterator."""
    with tf.Graph().as_default():
        captured = tf.data.make_initializable_iterator(D.range(10))
        dataset = D.range(10).map(lambda x: x * captured.get_next(), num_parallel_calls=calls)
        it = tf.data.make_initializable_iterator(dataset)
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(captured.initializer)
            sess.run(it.initializer)
            assert sorted(_drain(sess, get_next)) == [i * i for i in range(10)]


@pytest.mark.parametrize("calls", [None, 2], ids=["sequential", "parallel"])
def test_capture_queue(calls):
    """testCaptureQueue: the function dequeues; the closed queue's OutOfRange ends it."""
    values = np.random.RandomState(0).randint(100, size=[50])
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(50, tf.int64, shapes=[])
        enqueue, close = queue.enqueue_many(values), queue.close()
        dataset = D.from_tensors(0).repeat(-1).map(lambda _: queue.dequeue(),
                                                   num_parallel_calls=calls)
        it = tf.data.make_initializable_iterator(dataset)
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(enqueue)
            sess.run(close)
            sess.run(it.initializer)
            got = _drain(sess, get_next)
    assert sorted(got) == sorted(values.tolist())


Example = collections.namedtuple("Example", ["label", "image"])

# (TF method, builder, expected elements)
ELEMENT_CASES = [
    ("testMapDict", lambda c: D.range(10).map(lambda x: {"foo": x * 2, "bar": x ** 2},
                                              num_parallel_calls=c)
     .map(lambda d: d["foo"] + d["bar"], num_parallel_calls=c),
     [i * 2 + i ** 2 for i in range(10)]),
    ("testMapNamedtuple", lambda c: D.zip((D.range(4), D.range(4).map(lambda x: -x)))
     .map(Example, num_parallel_calls=c)
     .map(lambda e: e._replace(image=2 * e.image), num_parallel_calls=c)
     .map(lambda e: (e.label, e.image)),
     [(i, -2 * i) for i in range(4)]),
    ("testReturnList", lambda c: D.range(5).map(lambda x: [x, tf.constant(37.0)],
                                                num_parallel_calls=c),
     [(i, 37.0) for i in range(5)]),
    ("testMultiOutputPyFunc", lambda c: D.range(5).map(
        lambda x: tf.py_func(lambda v: (v, np.array(37.0)), [x], [tf.int64, tf.float64]),
        num_parallel_calls=c), [(i, 37.0) for i in range(5)]),
    ("testConstantOutput", lambda c: D.range(5).map(lambda x: [x, "hello", 10],
                                                    num_parallel_calls=c),
     [(i, b"hello", 10) for i in range(5)]),
    ("testUseStepContainerInMap", lambda c: D.from_tensors(np.arange(6)).map(
        lambda e: tf.map_fn(lambda x: x * x, e), num_parallel_calls=c),
     [np.arange(6) ** 2]),
    ("testParallelMapOutOfRangeError", lambda c: D.range(105).map(
        lambda x: tf.py_func(lambda i: _raise_stop() if i == 100 else i, [x], tf.int64),
        num_parallel_calls=c), list(range(100))),
    ("testShortCircuitCapturedInput", lambda c: D.range(3).map(
        lambda x: tf.constant(42, tf.int64), num_parallel_calls=c), [42, 42, 42]),
    ("testShortCircuit_swap", lambda c: D.zip((D.range(3), D.range(3, 6))).map(
        lambda x, y: (y, x), num_parallel_calls=c), [(3, 0), (4, 1), (5, 2)]),
    ("testShortCircuit_project", lambda c: D.zip((D.range(3), D.range(3, 6))).map(
        lambda x, y: x, num_parallel_calls=c), [0, 1, 2]),
    ("testShortCircuit_replicate", lambda c: D.range(2).map(
        lambda x: (x, x), num_parallel_calls=c), [(0, 0), (1, 1)]),
    ("testCaseAndCondInMap", lambda c: D.from_tensor_slices(np.arange(6)).map(
        lambda x: tf.cond(tf.equal(x % 2, 0), lambda: x * 2, lambda: x // 2),
        num_parallel_calls=c), [0, 0, 4, 1, 8, 2]),
]


def _raise_stop():
    raise StopIteration()


def _equal(got, want):
    if isinstance(want, tuple):
        return len(got) == len(want) and all(_equal(g, w) for g, w in zip(got, want))
    return np.array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("calls", [None, 3], ids=["sequential", "parallel"])
@pytest.mark.parametrize("name,build,want", ELEMENT_CASES, ids=[c[0] for c in ELEMENT_CASES])
def test_map_elements(name, build, want, calls):
    with tf.Graph().as_default():
        got = elements(build(calls))
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert _equal(g, w), (g, w)


@pytest.mark.parametrize("calls", [None, 2], ids=["sequential", "parallel"])
def test_prefetch_reads_ahead(calls):
    """testPrefetch: prefetch(buffer) calls the function buffer elements ahead."""
    ev = threading.Event()

    def _py(x):
        if x == 5:
            ev.set()
        return x * x

    with tf.Graph().as_default():
        size = tf.placeholder(tf.int64, shape=[])
        dataset = D.range(100).map(lambda x: tf.py_func(_py, [x], tf.int64),
                                   num_parallel_calls=calls).prefetch(size)
        it = tf.data.make_initializable_iterator(dataset)
        get_next = it.get_next()
        with tf.Session() as sess:
            for buffer_size in [1, 10, 100]:
                sess.run(it.initializer, {size: buffer_size})
                assert _drain(sess, get_next) == [i * i for i in range(100)]
            if calls is None:
                for buffer_size in range(1, 5):
                    ev.clear()
                    sess.run(it.initializer, {size: buffer_size})
                    for i in range(5 - buffer_size + 1):
                        assert not ev.is_set()
                        assert sess.run(get_next) == i * i
                    assert ev.wait(5)


def test_return_value_error():
    """testReturnValueError: a function returning None is refused."""
    with tf.Graph().as_default(), pytest.raises((TypeError, ValueError)):
        D.from_tensors([1.0, 2.0]).map(lambda x: None)


@pytest.mark.parametrize("value,match", [(0, "greater than zero"), (-2, "greater than zero")])
def test_invalid_num_parallel_calls(value, match):
    with tf.Graph().as_default():
        dataset = D.range(3).map(lambda x: x, num_parallel_calls=value)
        with pytest.raises(tf.errors.InvalidArgumentError, match=match):
            elements(dataset)


def test_error_names_the_op_and_line():
    """An error inside the function names the failing op and the user's line."""
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices([1.0, 0.0]).map(
            lambda x: tf.check_numerics(1.0 / x, "bad value"), num_parallel_calls=2)
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            elements(dataset)
    text = str(info.value)
    assert "bad value" in text and "CheckNumerics" in text and "test_parallel_map.py" in text


def test_py_func_error_names_the_line():
    def boom(x):
        raise ValueError("boom %d" % x)

    with tf.Graph().as_default():
        dataset = D.range(2).map(lambda x: tf.py_func(boom, [x], tf.int64),
                                 num_parallel_calls=2)
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            elements(dataset)
    text = str(info.value)
    assert "boom 0" in text and "PyFunc" in text and "test_parallel_map.py" in text


def test_map_and_batch():
    """tf.data.experimental.map_and_batch (MapAndBatchDataset)."""
    with tf.Graph().as_default():
        dataset = D.range(10).apply(tf.data.experimental.map_and_batch(
            lambda x: x * 2, 4, num_parallel_calls=2))
        got = elements(dataset)
        assert dataset.output_shapes.as_list() == [None]
        dropped = D.range(10).apply(tf.data.experimental.map_and_batch(
            lambda x: x * 2, 4, drop_remainder=True))
        assert dropped.output_shapes.as_list() == [4]
        assert [list(b) for b in elements(dropped)] == [[0, 2, 4, 6], [8, 10, 12, 14]]
    assert [list(b) for b in got] == [[0, 2, 4, 6], [8, 10, 12, 14], [16, 18]]


def test_parallel_map_runs_concurrently():
    """num_parallel_calls=4 runs four calls at once (each waits for the others)."""
    barrier = threading.Barrier(4, timeout=10)

    def wait(x):
        barrier.wait()
        return x

    with tf.Graph().as_default():
        dataset = D.range(8).map(lambda x: tf.py_func(wait, [x], tf.int64),
                                 num_parallel_calls=4)
        assert elements(dataset) == list(range(8))


def _case_fn(x, y, with_cond):
    def multiply():
        return x * 2

    def divide():
        return x // 2

    def defaults_two():
        return tf.cond(tf.equal(tf.mod(x, 2), 0), multiply, divide, name="cond_mult")

    pairs = {tf.logical_or(tf.equal(y, 2), tf.equal(y, 3)): defaults_two if with_cond
             else divide}
    return tf.case(pairs, default=multiply, exclusive=True)


@pytest.mark.parametrize("with_cond", [False, True],
                         ids=["testCaseInWhileInMap", "testCaseAndCondInWhileInMap"])
@pytest.mark.parametrize("num", [2, 3, 4])
def test_case_in_while_in_map(with_cond, num):
    """tf.case (and tf.cond) inside tf.map_fn inside the map function."""
    row = np.arange(6)
    with tf.Graph().as_default():
        got = elements(D.from_tensors(row).map(
            lambda e: tf.map_fn(lambda x: _case_fn(x, num, with_cond), e),
            num_parallel_calls=2))
    if num in (2, 3):
        want = [(x // 2 if x % 2 else x * 2) if with_cond else x // 2 for x in row]
    else:
        want = [x * 2 for x in row]
    np.testing.assert_array_equal(got[0], want)


def test_stateful_map_keeps_state_across_iterators():
    """testStatefulMapKeepsStateAcrossIterators: a repeated random map is not replayed."""
    with tf.Graph().as_default():
        dataset = D.from_tensors(0).repeat(10).map(
            lambda _: tf.random_uniform((), seed=11)).repeat(1000).batch(10)
        get_next = tf.data.make_one_shot_iterator(dataset).get_next()
        with tf.Session() as sess:
            first = sess.run(get_next)
            assert any(np.any(first != sess.run(get_next)) for _ in range(99))


@pytest.mark.parametrize("calls", [None, 2], ids=["sequential", "parallel"])
def test_capture_same_resource_multiple_times(calls):
    """testCaptureSameResourceMultipleTimes: two queue objects naming one shared queue."""
    values = np.random.RandomState(2).randint(100, size=[40])
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(200, tf.int64, shapes=[], shared_name="shared_queue")
        queue_2 = tf.FIFOQueue(200, tf.int64, shapes=[], shared_name="shared_queue")
        enqueue, close = queue.enqueue_many(values), queue.close()
        dataset = D.from_tensors(0).repeat(-1).map(
            lambda _: (queue.dequeue(), queue_2.dequeue()), num_parallel_calls=calls)
        it = tf.data.make_initializable_iterator(dataset)
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(enqueue)
            sess.run(close)
            sess.run(it.initializer)
            got = _drain(sess, get_next)
    assert len(got) == 20
    assert sorted(v for pair in got for v in pair) == sorted(values.tolist())


@pytest.mark.parametrize("calls", [None, 1], ids=["sequential", "parallel"])
def test_capture_variable(calls):
    """testCaptureVariable: the function updates a resource variable."""
    with tf.Graph().as_default():
        counter = tf.get_variable("counter", (), tf.int32, use_resource=True)
        dataset = D.from_tensors(0).repeat(10).map(lambda _: counter.assign_add(1),
                                                   num_parallel_calls=calls)
        it = tf.data.make_initializable_iterator(dataset)
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(counter.initializer)
            sess.run(it.initializer)
            got = _drain(sess, get_next)
            assert sess.run(counter) == 10
    assert sorted(got) == list(range(1, 11))
    if calls is None:
        assert got == list(range(1, 11))


def test_capture_uninitialized_variable_error():
    """testCaptureUninitializedVariableError (TF 2.x's FailedPrecondition, r1.x's
    NotFound)."""
    with tf.Graph().as_default():
        counter = tf.get_variable("counter", (), tf.int32, use_resource=True)
        dataset = D.from_tensors(0).repeat(10).map(lambda _: counter.assign_add(1))
        it = tf.data.make_initializable_iterator(dataset)
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            with pytest.raises((tf.errors.NotFoundError, tf.errors.FailedPreconditionError)):
                sess.run(get_next)
