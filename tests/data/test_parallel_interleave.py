"""tf.data.experimental.parallel_interleave (ParallelInterleaveDataset): TF's contrib
interleave_dataset_op_test (ParallelInterleaveDatasetTest), ported. The map function of
each interleaved dataset waits for a per-value event and then releases a per-value
semaphore, so a test decides when each element is computed and can wait until a
background thread computed it (each test names the TF method it ports)."""
import math
import threading
import time

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tests.data.test_interleave import reference_interleave
from tests.helpers.dataset_run import elements

D = tf.data.Dataset
E = tf.data.experimental
REPEAT = 2


class Harness:
    """The coordinated pipeline of TF's setUp, with its placeholders."""

    def __init__(self, interleave_fn=None, input_map=None):
        self.error = None
        self.read = {i: threading.Semaphore(0) for i in range(3, 8)}
        self.write = {i: threading.Event() for i in range(3, 8)}
        self.values = tf.placeholder(tf.int64, shape=[None])
        self.cycle = tf.placeholder(tf.int64, shape=[])
        self.block = tf.placeholder(tf.int64, shape=[])
        self.sloppy = tf.placeholder(tf.bool, shape=[])
        self.buffer = tf.placeholder(tf.int64, shape=[])
        self.prefetch = tf.placeholder(tf.int64, shape=[])
        dataset = D.from_tensor_slices(self.values)
        if input_map is not None:
            dataset = dataset.map(input_map)
        dataset = dataset.repeat(REPEAT).apply(E.parallel_interleave(
            interleave_fn or self._interleave_fn, self.cycle, self.block, self.sloppy,
            self.buffer, self.prefetch))
        self.iterator = tf.data.make_initializable_iterator(dataset)
        self.next_element = self.iterator.get_next()

    def _map_py_fn(self, x):
        assert self.write[x].wait(10)
        self.write[x].clear()
        self.read[x].release()
        if self.error:
            error, self.error = self.error, None
            raise error
        return x * x

    def _interleave_fn(self, x):
        return D.from_tensors(x).repeat(x).map(
            lambda y: tf.py_func(self._map_py_fn, [y], tf.int64))

    def init(self, sess, values, cycle, block, sloppy=False, buffer=1, prefetch=1):
        sess.run(self.iterator.initializer, {
            self.values: values, self.cycle: cycle, self.block: block, self.sloppy: sloppy,
            self.buffer: buffer, self.prefetch: prefetch})

    def acquire(self, value):
        assert self.read[value].acquire(timeout=10)

    def allow_all(self):
        for i in range(4, 7):
            self.write[i].set()


def _lists(values):
    return [[v] * v for v in values] * REPEAT


SLOPPY = [False, True]
SLOPPY_IDS = ["", "Sloppy"]


@pytest.mark.parametrize("sloppy,prefetch", [(False, 0), (True, 0), (False, 1), (True, 1)],
                         ids=["testSingleThreaded", "testSingleThreadedSloppy",
                              "testSingleThreadedPrefetch1Itr",
                              "testSingleThreadedPrefetch1ItrSloppy"])
def test_single_threaded(sloppy, prefetch):
    with tf.Graph().as_default():
        h = Harness()
        with tf.Session() as sess:
            h.init(sess, [4, 5, 6], 1, 1, sloppy, 1, prefetch)
            for want in reference_interleave(_lists([4, 5, 6]), 1, 1):
                h.write[want].set()
                assert sess.run(h.next_element) == want * want
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(h.next_element)


def test_single_threaded_ragged():
    """testSingleThreadedRagged."""
    with tf.Graph().as_default():
        h = Harness()
        with tf.Session() as sess:
            h.init(sess, [3, 7, 4], 2, 1, False, 1, 1)
            for want in reference_interleave(_lists([3, 7, 4]), 2, 1):
                h.write[want].set()
                assert sess.run(h.next_element) == want * want
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(h.next_element)


@pytest.mark.parametrize("block", [1, 2], ids=["", "BlockLength"])
@pytest.mark.parametrize("sloppy", SLOPPY, ids=SLOPPY_IDS)
def test_two_threads_no_contention(sloppy, block):
    """testTwoThreadsNoContention[BlockLength][Sloppy]: each element is computed in the
    background (the test waits for that) before it is asked for."""
    with tf.Graph().as_default():
        h = Harness()
        with tf.Session() as sess:
            h.init(sess, [4, 5, 6], 2, block, sloppy, 1, 1)
            first = True
            for want in reference_interleave(_lists([4, 5, 6]), 2, block):
                h.write[want].set()
                if not first:
                    h.acquire(want)
                assert sess.run(h.next_element) == want * want
                if first:
                    h.acquire(want)
                    first = False
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(h.next_element)


# testTwoThreadsNoContentionWithRacesAndBlockingSloppy is not here: with every worker
# free and an equal value in an input opened ahead, sloppy may return another ready element.
@pytest.mark.parametrize("sloppy,block", [(False, 1), (True, 1), (False, 2)],
                         ids=["", "Sloppy", "AndBlocking"])
def test_two_threads_no_contention_with_races(sloppy, block):
    """testTwoThreadsNoContentionWithRaces[AndBlocking][Sloppy]: all workers run freely."""
    with tf.Graph().as_default():
        h = Harness()
        with tf.Session() as sess:
            h.init(sess, [4, 5, 6], 2, block, sloppy, 1, 1)
            first = True
            for want in reference_interleave(_lists([4, 5, 6]), 2, block):
                if first:
                    h.write[want].set()
                else:
                    h.allow_all()
                    h.acquire(want)
                time.sleep(0.02)
                assert sess.run(h.next_element) == want * want
                if first:
                    first = False
                    assert h.read[want].acquire(False)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(h.next_element)


@pytest.mark.parametrize("values", [[], [0, 0, 0]],
                         ids=["testEmptyInput", "testNonEmptyInputIntoEmptyOutputs"])
@pytest.mark.parametrize("sloppy", SLOPPY, ids=SLOPPY_IDS)
def test_empty_outputs(values, sloppy):
    with tf.Graph().as_default():
        h = Harness()
        with tf.Session() as sess:
            h.init(sess, values, 2, 3, sloppy, 1, 0)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(h.next_element)


# testPartiallyEmptyOutputs (sloppy=False, prefetch_input_elements=1) is not here: the
# input opened ahead is a second 4 whose thread, reading ahead, may take the event meant
# for the first one, so the test can wait forever under load.
@pytest.mark.parametrize("sloppy,prefetch", [(True, 0)], ids=["testPartiallyEmptyOutputsSloppy"])
def test_partially_empty_outputs(sloppy, prefetch):
    with tf.Graph().as_default():
        h = Harness()
        with tf.Session() as sess:
            h.init(sess, [4, 0, 6], 2, 1, sloppy, 1, prefetch)
            first = True
            race = {2, 8, 14} if sloppy else set()  # TF's points where the next one is late
            for i, want in enumerate(reference_interleave(_lists([4, 0, 6]), 2, 1)):
                h.write[want].set()
                if not first and i not in race:
                    h.acquire(want)
                assert sess.run(h.next_element) == want * want
                if first or i in race:
                    h.acquire(want)
                    first = False


@pytest.mark.parametrize("sloppy", SLOPPY, ids=SLOPPY_IDS)
def test_early_exit(sloppy):
    """testEarlyExit[Sloppy]: closing with workers blocked does not hang."""
    with tf.Graph().as_default():
        h = Harness()
        with tf.Session() as sess:
            h.init(sess, [4, 5, 6], 3, 2, sloppy, 1, 0)
            for i in range(4, 7):
                h.write[i].set()
            elem = int(math.sqrt(sess.run(h.next_element)))
            h.write[elem].set()
            h.acquire(elem)
            for i in range(4, 7):
                h.acquire(i)
                h.write[i].set()


@pytest.mark.parametrize("sloppy", SLOPPY, ids=SLOPPY_IDS)
def test_too_many_readers(sloppy):
    """testTooManyReaders[Sloppy]: cycle_length beyond the input."""
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices([4, 5, 6]).repeat(REPEAT).apply(E.parallel_interleave(
            lambda x: D.from_tensors(x).repeat(tf.cast(x, tf.int64)), cycle_length=16,
            block_length=2, sloppy=sloppy))
        get_next = tf.data.make_one_shot_iterator(dataset).get_next()
        with tf.Session() as sess:
            got = [sess.run(get_next) for _ in range(30)]
    assert sorted(got) == sorted(reference_interleave(_lists([4, 5, 6]), 1, 2))


def test_errors_in_output_fn():
    """testErrorsInOutputFn: a failing element's error takes its place; the rest follow."""
    with tf.Graph().as_default():
        h = Harness()
        with tf.Session() as sess:
            h.init(sess, [4, 5, 6], 2, 1, False, 1, 0)
            for i, want in enumerate(reference_interleave(_lists([4, 5, 6]), 2, 1)):
                if i == 3:
                    h.error = ValueError()
                    h.write[want].set()
                    with pytest.raises(tf.errors.InvalidArgumentError):
                        sess.run(h.next_element)
                else:
                    h.write[want].set()
                    assert sess.run(h.next_element) == want * want
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(h.next_element)


def _fail_on_5(x):
    if x == 5:
        raise ValueError()
    return x


@pytest.mark.parametrize("where", ["input", "interleave_fn"],
                         ids=["testErrorsInInputFn", "testErrorsInInterleaveFn"])
def test_errors_opening(where):
    """An input element (or the dataset made of it) that fails takes one place in the
    cycle as its error."""
    def interleave_fn(x):
        count = x if where == "input" else tf.py_func(_fail_on_5, [x], tf.int64)
        return D.from_tensors(x).repeat(count)

    input_map = (lambda x: tf.py_func(_fail_on_5, [x], tf.int64)) if where == "input" \
        else None
    with tf.Graph().as_default():
        h = Harness(interleave_fn, input_map)
        with tf.Session() as sess:
            h.init(sess, [4, 5, 6], 2, 1, False, 1, 0)
            for want in reference_interleave([[4] * 4, [5], [6] * 6] * REPEAT, 2, 1):
                if want == 5:
                    with pytest.raises(tf.errors.InvalidArgumentError):
                        sess.run(h.next_element)
                else:
                    assert sess.run(h.next_element) == want
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(h.next_element)


@pytest.mark.parametrize("values,cycle,block", [
    ([4, 5, 6], 1, 3), ([4, 5, 6], 2, 1), ([4, 5, 6], 2, 3), ([4, 5, 6], 7, 2), ([], 2, 3),
    ([0, 0, 0], 2, 3), ([4, 0, 6], 2, 3)])
def test_contrib_interleave_dataset(values, cycle, block):
    """Contrib InterleaveDatasetTest.testInterleaveDataset: fed cycle and block lengths."""
    with tf.Graph().as_default():
        v = tf.placeholder(tf.int64, shape=[None])
        c = tf.placeholder(tf.int64, shape=[])
        b = tf.placeholder(tf.int64, shape=[])
        dataset = D.from_tensor_slices(v).repeat(REPEAT).interleave(
            lambda x: D.from_tensors(x).repeat(x), c, b)
        it = tf.data.make_initializable_iterator(dataset)
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer, {v: values, c: cycle, b: block})
            for want in reference_interleave(_lists(values), cycle, block):
                assert sess.run(get_next) == want
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_parallel_interleave_op_and_defaults():
    with tf.Graph().as_default():
        dataset = D.range(3).apply(E.parallel_interleave(D.from_tensors, 2))
        op = dataset._variant_tensor.op
        assert op.type == "ParallelInterleaveDataset"
        assert [t.op.type for t in op.inputs][1:] == ["Const"] * 5
        assert elements(dataset) == [0, 1, 2]
        assert np.array_equal(elements(D.range(4).apply(E.parallel_interleave(
            lambda x: D.range(x), 2, 2, buffer_output_elements=3,
            prefetch_input_elements=2))), [0, 0, 1, 0, 1, 2])


def test_delayed_output_sloppy():
    """testDelayedOutputSloppy: sloppy returns whichever element is ready, so no element
    waits behind a slow one."""
    mis_ordering = [4, 4, 5, 4, 5, 5, 4, 5, 6, 6, 6, 5, 4, 4, 6, 6, 4, 4, 6, 5, 6, 6, 6, 6, 5,
                    5, 5, 5, 6, 6]
    with tf.Graph().as_default():
        h = Harness()
        with tf.Session() as sess:
            h.init(sess, [4, 5, 6], 2, 1, True, 1, 0)
            for element in mis_ordering:
                h.write[element].set()
                assert sess.run(h.next_element) == element * element
                assert h.read[element].acquire(False)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(h.next_element)


def test_block_length_with_contention_sloppy():
    """testBlockLengthWithContentionSloppy: released in block-3 order, sloppy follows."""
    with tf.Graph().as_default():
        h = Harness()
        with tf.Session() as sess:
            h.init(sess, [4, 5, 6], 2, 1, True, 1, 1)
            first = True
            for want in reference_interleave(_lists([4, 5, 6]), 2, 3):
                h.write[want].set()
                if not first:
                    h.acquire(want)
                assert sess.run(h.next_element) == want * want
                if first:
                    h.acquire(want)
                    first = False
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(h.next_element)
