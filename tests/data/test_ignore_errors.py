"""ignore_errors, ported from TF's experimental ignore_errors_test (4 of 6 methods;
testParallelMapIgnoreError and testTFRecordDatasetIgnoreError need the parallel map and
the TFRecord reader of the other tf.data areas, and testReadFileIgnoreError runs its
read_file map serially here)."""
import logging
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf

D = tf.data.Dataset
X = tf.data.experimental
COMPONENTS = np.array([1., 2., 3., np.nan, 5.]).astype(np.float32)


def _elements(dataset):
    iterator = dataset.make_initializable_iterator()
    get_next = iterator.get_next()
    out = []
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        while True:
            try:
                out.append(sess.run(get_next))
            except tf.errors.OutOfRangeError:
                return out


def test_map_ignore_error():  # testMapIgnoreError
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(COMPONENTS).map(
            lambda x: tf.check_numerics(x, "message")).apply(X.ignore_errors())
        assert _elements(dataset) == [1., 2., 3., 5.]


def test_ignore_error_with_log_warning(caplog):  # testIgnoreError_withLogWarning
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(COMPONENTS).map(
            lambda x: tf.check_numerics(x, "message")).apply(X.ignore_errors(log_warning=True))
        with caplog.at_level(logging.WARNING):
            assert _elements(dataset) == [1., 2., 3., 5.]
    assert "Tensor had NaN values" in caplog.text


def test_read_file_ignore_error(tmp_path):  # testReadFileIgnoreError (serial map)
    filenames = [str(tmp_path / f"file_{i}.txt") for i in range(5)]
    for name in filenames:
        with open(name, "w") as f:
            f.write(name)
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(filenames).map(tf.read_file).prefetch(2) \
            .apply(X.ignore_errors())
        assert _elements(dataset) == [n.encode() for n in filenames]
        os.remove(filenames[0])
        assert _elements(dataset) == [n.encode() for n in filenames[1:]]


def test_zip_ignore_error():  # testZipIgnoreError
    with tf.Graph().as_default():
        a = D.from_tensor_slices([1., 2., 0., 4.])
        b = a.map(lambda x: tf.check_numerics(1. / x, "error"))
        got = _elements(D.zip((b, a)).apply(X.ignore_errors()))
    assert got == [(1. / x, x) for x in (1., 2., 4.)]


def test_errors_pass_without_ignore_errors():
    with tf.Graph().as_default():
        dataset = D.from_tensor_slices(COMPONENTS).map(lambda x: tf.check_numerics(x, "bad"))
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad"):
            _elements(dataset)
