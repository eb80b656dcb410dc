"""Dataset.from_generator (GeneratorDataset with py_func bodies inside a flat_map): TF's
dataset_from_generator_op_test, ported (each test names the TF method it ports)."""
import gc
import threading

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tests.helpers.dataset_run import elements

D = tf.data.Dataset


def _check_reinitializable(generator, want, repeats, output_types=tf.int64):
    with tf.Graph().as_default():
        it = tf.data.make_initializable_iterator(
            D.from_generator(generator, output_types=output_types).repeat(repeats).prefetch(5))
        get_next = it.get_next()
        with tf.Session() as sess:
            for _ in range(2):  # re-initialization calls the generator afresh
                sess.run(it.initializer)
                for _ in range(repeats):
                    for elem in want:
                        np.testing.assert_array_equal(sess.run(get_next), elem)
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(get_next)


def _check_one_shot(generator, want, repeats):
    with tf.Graph().as_default():
        got = elements(D.from_generator(generator, tf.int64).repeat(repeats).prefetch(5),
                       one_shot=True)
    assert len(got) == len(want) * repeats
    for g, w in zip(got, want * repeats):
        np.testing.assert_array_equal(g, w)


def _function():
    for i in range(1, 100):
        yield [i] * i


# (TF method, generator, output_types, one-shot too)
SOURCES = [
    ("testFromGeneratorUsingFunction", _function, tf.int64, True),
    ("testFromGeneratorUsingList", lambda: [[i] * i for i in range(1, 100)], tf.int64, False),
    ("testFromGeneratorUsingNdarray", lambda: np.arange(100, dtype=np.int64), np.int64, False),
    ("testFromGeneratorUsingGeneratorExpression", lambda: ([i] * i for i in range(1, 100)),
     tf.int64, False),
]


@pytest.mark.parametrize("repeats", [1, 5])
@pytest.mark.parametrize("name,generator,types,one_shot", SOURCES, ids=[s[0] for s in SOURCES])
def test_from_generator_sources(name, generator, types, one_shot, repeats):
    want = list(generator())
    _check_reinitializable(generator, want, repeats, types)
    if one_shot:
        _check_one_shot(generator, want, repeats)


def test_from_multiple_concurrent_generators():
    """testFromMultipleConcurrentGenerators: many live iterators of one generator dataset,
    read ahead on prefetch threads."""
    def generator():
        for i in range(1, 10):
            yield ([i] * i, [i, i ** 2, i ** 3])

    want = list(generator())

    def interleave_fn(_):
        return D.from_generator(generator, (tf.int64, tf.int64),
                                ([None], [3])).repeat(3).prefetch(5)

    with tf.Graph().as_default():
        got = elements(D.range(20).interleave(interleave_fn, cycle_length=10,
                                              block_length=len(want)))
    assert len(got) == 3 * 20 * len(want)
    for k, (a, b) in enumerate(got):
        np.testing.assert_array_equal(a, want[k % len(want)][0])
        np.testing.assert_array_equal(b, want[k % len(want)][1])


@pytest.mark.parametrize("dtype", [tf.int8, tf.int32, tf.int64])
def test_from_generator_implicit_conversion(dtype):
    """testFromGeneratorImplicitConversion."""
    with tf.Graph().as_default():
        dataset = D.from_generator(lambda: iter([[1], [2], [3]]), dtype, [1])
        got = elements(dataset)
    assert [g.dtype for g in got] == [dtype.as_numpy_dtype] * 3
    assert [g.tolist() for g in got] == [[1], [2], [3]]


def test_from_generator_string():
    """testFromGeneratorString."""
    with tf.Graph().as_default():
        got = elements(D.from_generator(lambda: iter(["foo", b"bar", "baz"]), tf.string, []))
    assert got == [b"foo", b"bar", b"baz"]


def _errors_then_values(generator, types, shapes, steps):
    """Runs `steps` (a value or an error message pattern each) then expects the end."""
    with tf.Graph().as_default():
        it = tf.data.make_initializable_iterator(D.from_generator(generator, types, shapes))
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            for step in steps:
                if isinstance(step, str):
                    with pytest.raises(tf.errors.InvalidArgumentError, match=step):
                        sess.run(get_next)
                else:
                    got = sess.run(get_next)
                    assert np.array_equal(np.asarray(got), np.asarray(step)), (got, step)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_from_generator_type_error():
    """testFromGeneratorTypeError: an unconvertible element fails, the next follows."""
    values = [np.int64([1, 2, 3]), np.int64([4, 5, 6]), "ERROR", np.int64([7, 8, 9])]
    _errors_then_values(lambda: iter(values), tf.int64, [3],
                        [[1, 2, 3], [4, 5, 6], "The expected type was int64", [7, 8, 9]])


def test_from_generator_shape_error():
    """testFromGeneratorShapeError."""
    values = [np.int64([1, 2, 3]), np.int64([4, 5, 6]), np.int64([7, 8, 9, 10]),
              np.int64([11, 12, 13])]
    _errors_then_values(lambda: iter(values), tf.int64, [3],
                        [[1, 2, 3], [4, 5, 6], r"element of shape \(3,\) was expected",
                         [11, 12, 13]])


def test_from_generator_structure_error():
    """testFromGeneratorStructureError."""
    values = [(1, 2), (3, 4), 5, (6, 7, 8), (9, 10)]
    match = r"The expected structure was \(tf\.int64, tf\.int64\)"
    _errors_then_values(lambda: iter(values), (tf.int64, tf.int64), None,
                        [(1, 2), (3, 4), match, match, (9, 10)])


def test_from_generator_heterogeneous():
    """testFromGeneratorHeterogeneous: unknown shape allows any."""
    _errors_then_values(lambda: iter([1, [2, 3]]), tf.int64, None, [1, [2, 3]])


def test_from_generator_stop_short():
    """testFromGeneratorStopShort: an unfinished generator is no trouble."""
    with tf.Graph().as_default():
        it = tf.data.make_initializable_iterator(D.from_generator(lambda: iter([0, 1, 2]),
                                                                  tf.int64))
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            assert [sess.run(get_next) for _ in range(2)] == [0, 1]


def test_from_generator_destructor_called():
    """testFromGeneratorDestructorCalled: the generator is released at the end."""
    event = threading.Event()

    class GeneratorWrapper:
        def __iter__(self):
            return self

        def __next__(self):
            return 42

        def __del__(self):
            event.set()

    with tf.Graph().as_default():
        it = tf.data.make_initializable_iterator(
            D.from_generator(GeneratorWrapper, tf.int64).take(2))
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            assert [sess.run(get_next) for _ in range(2)] == [42, 42]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)
            gc.collect()
            assert event.is_set()


def test_from_generator_with_args():
    """testFromGeneratorWithArgs."""
    def flat_map_fn(elem):
        def generator_with_arg(n):
            for _ in range(n):
                yield np.array(n, dtype=np.int64)
        return D.from_generator(generator_with_arg, tf.int64, (), args=(elem,))

    with tf.Graph().as_default():
        assert elements(D.range(5).flat_map(flat_map_fn)) == [1, 2, 2, 3, 3, 3, 4, 4, 4, 4]


def test_from_generator_with_two_args():
    """testFromGeneratorWithTwoArgs."""
    def flat_map_fn(elem, message):
        def generator_with_arg(n, msg):
            for i in range(n):
                yield i, msg
        return D.from_generator(generator_with_arg, (tf.int64, tf.string), ((), ()),
                                args=(elem, message))

    with tf.Graph().as_default():
        got = elements(D.zip((D.range(4), D.from_tensors("Hi!").repeat(None)))
                       .flat_map(flat_map_fn))
    assert got == [(i, b"Hi!") for n in range(4) for i in range(n)]


def test_generator_dataset_finalize_function_called():
    """testGeneratorDatasetFinalizeFunctionCalled (the inner GeneratorDataset)."""
    event = threading.Event()

    def finalize_fn(_):
        def finalize_py_func():
            event.set()
            return np.int64(0)
        return tf.py_func(finalize_py_func, [], [tf.int64])

    with tf.Graph().as_default():
        structure = D.from_tensors(np.int32(0))._structure
        dataset = D._generator_dataset(tf.constant(37), lambda x: x, lambda x: x, finalize_fn,
                                       structure).take(2)
        it = tf.data.make_initializable_iterator(dataset)
        get_next = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            assert [sess.run(get_next) for _ in range(2)] == [37, 37]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)
        assert event.is_set()  # at the latest when the session closed the iterator


def test_from_generator_arguments():
    with pytest.raises(TypeError, match="`generator` must be callable"):
        D.from_generator([1, 2], tf.int64)
    with tf.Graph().as_default():
        dataset = D.from_generator(lambda: iter([]), (tf.int64, tf.float32), ([2], None))
        assert dataset.output_types == (tf.int64, tf.float32)
        assert dataset.output_shapes[0].as_list() == [2]
        assert dataset.output_shapes[1].ndims is None
        assert elements(dataset) == []


def test_generator_error_reaches_get_next_with_the_line():
    def bad():
        yield 1
        raise ValueError("broken generator")

    with tf.Graph().as_default():
        get_next = tf.data.make_one_shot_iterator(D.from_generator(bad, tf.int64)).get_next()
        with tf.Session() as sess:
            assert sess.run(get_next) == 1
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(get_next)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)
    assert "broken generator" in str(info.value) and "test_generator.py" in str(info.value)
