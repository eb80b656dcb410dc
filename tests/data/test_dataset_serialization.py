"""The serialization tests of TF's core dataset kinds (contrib r1.x
`kernel_tests/serialization/*_serialization_test.py` on `dataset_serialization_test_base`),
ported: `run_core_tests` saves the iterator state to a file with SerializeIterator /
SerializeTensor / WriteFile and restores it with ReadFile / ParseTensor /
DeserializeIterator in a fresh graph and session, at TF's break points.

`run_core_tests` makes TF's checks but two: verify_restore_in_modified_graph and
verify_restore_in_empty_graph need the dataset inside the state (TensorFlow saves the
dataset's graph; trainflow saves the position and restores it into the iterator's own,
initialized dataset)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.ops.dataset import iterator_state
from trainflow._src.ops.dataset.dataset_value import as_dataset

D = tf.data.Dataset


class Checks:
    """TF's DatasetSerializationTestBase checks, for one pipeline builder."""

    def __init__(self, path, ds_fn, num_outputs, verify_exhausted=True):
        self.path, self.ds_fn, self.n = str(path), ds_fn, num_outputs
        self.verify_exhausted = verify_exhausted

    def _graph(self):
        it = self.ds_fn().make_initializable_iterator()
        resource = it._iterator_resource
        state = apply_op("SerializeIterator", resource_handle=resource).outputs[0]
        save = tf.write_file(self.path, tf.io.serialize_tensor(state))
        parsed = tf.io.parse_tensor(tf.read_file(self.path), tf.variant)
        restore = apply_op("DeserializeIterator", resource_handle=resource, serialized=parsed)
        return it.initializer, it.get_next(), save, restore

    def outputs(self, break_points, verify_exhausted=None, reset=False):
        """Elements read with a save and a restore (fresh graph and session) at each
        break point; with `reset`, the restored iterator is re-initialized instead."""
        verify_exhausted = self.verify_exhausted if verify_exhausted is None \
            else verify_exhausted
        out, start = [], 0
        for k, point in enumerate(list(break_points) + [self.n]):
            with tf.Graph().as_default():
                init, nxt, save, restore = self._graph()
                with tf.Session() as sess:
                    sess.run(init)
                    if k > 0:
                        sess.run(restore)
                        if reset:
                            sess.run(init)
                            return [sess.run(nxt) for _ in range(self.n)]
                    out += [sess.run(nxt) for _ in range(point - start)]
                    start = point
                    if k == len(break_points):
                        if verify_exhausted:
                            with pytest.raises(tf.errors.OutOfRangeError):
                                sess.run(nxt)
                    else:
                        sess.run(save)
        return out

    def run_core_tests(self):
        full = self.outputs([])
        assert len(full) == self.n
        _same(self.outputs([0]), full)                       # verify_unused_iterator
        _same(self.outputs([self.n]), full)                  # verify_fully_used_iterator
        if self.verify_exhausted:                             # verify_exhausted_iterator
            with tf.Graph().as_default():
                init, nxt, save, restore = self._graph()
                with tf.Session() as sess:
                    sess.run(init)
                    for _ in range(self.n):
                        sess.run(nxt)
                    with pytest.raises(tf.errors.OutOfRangeError):
                        sess.run(nxt)
                    sess.run(save)
                    sess.run(restore)
                    with pytest.raises(tf.errors.OutOfRangeError):
                        sess.run(nxt)
        points = sorted(set(np.linspace(0, self.n, 10, dtype=int).tolist()))
        _same(self.outputs(points), full)                    # verify_multiple_breaks
        if self.n:
            _same(self.outputs([self.n // 2], reset=True), full)  # reset_restored_iterator


def _same(got, want):
    assert len(got) == len(want), (len(got), len(want))
    for g, w in zip(got, want):
        if isinstance(w, (tuple, list)):
            _same(list(g), list(w))
        elif isinstance(w, dict):
            assert sorted(g) == sorted(w)
            _same([g[k] for k in sorted(w)], [w[k] for k in sorted(w)])
        else:
            np.testing.assert_array_equal(g, w)


@pytest.fixture
def core(tmp_path):
    def run(ds_fn, num_outputs, verify_exhausted=True):
        Checks(tmp_path / "iterator", ds_fn, num_outputs, verify_exhausted).run_core_tests()
    return run


def _slices3(multiplier, n):
    return (np.arange(n), np.array([[1, 2, 3]]) * np.arange(n)[:, np.newaxis],
            np.array(multiplier) * np.arange(n))


# -- range_dataset_serialization_test ----------------------------------------------------------
def test_range_save_restore(tmp_path):
    checks = Checks(tmp_path / "iterator", lambda: D.range(2, 10), 8)
    assert checks.outputs([3]) == list(range(2, 10))  # other sessions
    with tf.Graph().as_default():  # the same session
        init, nxt, save, restore = checks._graph()
        with tf.Session() as sess:
            sess.run(init)
            assert [sess.run(nxt) for _ in range(3)] == [2, 3, 4]
            sess.run(save)
            sess.run(restore)
            assert [sess.run(nxt) for _ in range(5)] == [5, 6, 7, 8, 9]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)


def test_range_core(core):
    core(lambda: D.range(2, 10), 8)


# -- sequence_dataset_serialization_test (skip, take, repeat) ---------------------------------
def _tens():
    return D.from_tensor_slices((np.arange(10),))


@pytest.mark.parametrize("count,n", [(4, 6), (20, 0), (10, 0), (-1, 0), (0, 10)])
def test_skip(core, count, n):
    core(lambda: _tens().skip(count), n)


@pytest.mark.parametrize("count,n", [(4, 4), (20, 10), (10, 10), (-1, 10), (0, 0)])
def test_take(core, count, n):
    core(lambda: _tens().take(count), n)


@pytest.mark.parametrize("transform", ["skip", "take", "repeat"])
def test_invalid_count_is_rank_error(transform):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            getattr(_tens(), transform)([1, 2])


@pytest.mark.parametrize("count,n", [(10, 30), (0, 0)], ids=["finite", "empty"])
def test_repeat(core, count, n):
    core(lambda: _tens().take(3).repeat(count), n)


def test_infinite_repeat(core):
    core(lambda: _tens().take(3).repeat(-1), 20, verify_exhausted=False)
    core(lambda: _tens().take(0).repeat(-1), 0)


# -- dataset_constructor_serialization_test --------------------------------------------------
def test_from_tensors_core(core):
    core(lambda: D.from_tensors((np.array(1), np.array([1, 2, 3]), np.array(37.0))), 1)


def test_from_tensor_slices_core(core):
    components = (np.tile(np.array([[1], [2], [3], [4]]), 20),
                  np.tile(np.array([[12], [13], [14], [15]]), 22),
                  np.array([37.0, 38.0, 39.0, 40.0]))
    core(lambda: D.from_tensor_slices(components), 4)
    core(lambda: D.from_tensor_slices({"foo": [1, 2, 3], "bar": [[4.0], [5.0], [6.0]]}), 3)


# -- batch, concatenate, zip, filter, flat_map, map, prefetch ---------------------------------
def test_batch_core(core):
    core(lambda: D.from_tensor_slices(_slices3(15.0, 8)).batch(2), 4)


def test_concatenate_core(core):
    def build():
        first = (np.tile(np.array([[1], [2], [3], [4]]), 20),
                 np.tile(np.array([[12], [13], [14], [15]]), 4))
        second = (np.tile(np.array([[5], [6], [7], [8], [9]]), 20),
                  np.tile(np.array([[16], [17], [18], [19], [20]]), 15))
        return D.from_tensor_slices(first).concatenate(D.from_tensor_slices(second))
    core(build, 9)


@pytest.mark.parametrize("arr,n", [([37.0, 38.0, 39.0, 40.0], 4), ([1.0, 2.0], 2)])
def test_zip_core(core, arr, n):
    def build():
        parts = [D.from_tensor_slices(c) for c in (
            np.tile(np.array([[1], [2], [3], [4]]), 20),
            np.tile(np.array([[12], [13], [14], [15]]), 22), np.array(arr))]
        return D.zip((parts[0], (parts[1], parts[2])))
    core(build, n)


def test_filter_core(core):
    core(lambda: D.range(100).filter(lambda x: tf.not_equal(tf.mod(x, 3), 2)),
         sum(x % 3 != 2 for x in range(100)))


def test_filter_dict_core(core):
    core(lambda: D.range(10).map(lambda x: {"foo": x * 2, "bar": x ** 2})
         .filter(lambda d: tf.equal(d["bar"] % 2, 0)).map(lambda d: d["foo"] + d["bar"]), 5)


def test_flat_map_core(core):
    core(lambda: D.range(0, 25, 5).flat_map(lambda x: D.range(x, x + 5)), 25)


def test_map_then_flat_map(core):
    core(lambda: D.range(5).flat_map(
        lambda _: D.range(100).map(lambda y: 10 * tf.to_int32(y))), 500)


def test_map_save_restore_core(core):
    core(lambda: D.from_tensor_slices(_slices3(37.0, 7)).map(
        lambda x, y, z: (tf.square(x), tf.square(y), tf.square(z))).repeat(14), 98)


def test_map_capture_constant(core):
    core(lambda: D.from_tensors(0).repeat(10).map(lambda x: x + tf.constant(5)), 10)


def test_prefetch_core(core):
    """TF's test shuffles after the prefetch (shuffle is another area's kind)."""
    core(lambda: D.range(100).prefetch(10), 100)


# -- serialization_integration_test ------------------------------------------------------------
def test_concurrent_saves_of_many_pipelines(tmp_path):
    pipelines, n, brk = 100, 100, 10
    path = str(tmp_path / "iterator")

    def build():
        inits, nexts = [], []
        for i in range(pipelines):
            with tf.name_scope(f"input_pipeline_{i}"):
                it = D.range(n).prefetch(10).make_initializable_iterator()
                tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS,
                                     tf.data.experimental.make_saveable_from_iterator(it))
                inits.append(it.initializer)
                nexts.append(it.get_next())
        return inits, nexts, tf.train.Saver()

    outputs = [[] for _ in range(pipelines)]
    with tf.Graph().as_default():
        inits, nexts, saver = build()
        with tf.Session() as sess:
            sess.run(inits)
            for _ in range(brk):
                for i, v in enumerate(sess.run(nexts)):
                    outputs[i].append(v)
            saver.save(sess, path)
    with tf.Graph().as_default():
        inits, nexts, saver = build()
        with tf.Session() as sess:
            saver.restore(sess, path)  # (the restore initializes them first)
            for _ in range(n - brk):
                for i, v in enumerate(sess.run(nexts)):
                    outputs[i].append(v)
    for out in outputs:
        assert out == list(range(n))


# -- verify_error_on_save: state outside the pipeline (TF 2's external_state_policy) -------
def _resource_variable(name, dtype):
    with tf.variable_scope("", reuse=tf.AUTO_REUSE):
        return tf.get_variable(name, (), dtype, initializer=tf.zeros_initializer(),
                               use_resource=True)


def _random_times(x):
    return tf.random_uniform((), 0, 10, dtype=tf.int32) * tf.to_int32(x)


EXTERNAL_STATE = [
    ("map_stateful_function", lambda: D.range(100).map(_random_times), "RandomUniformInt"),
    ("map_captures_variable", lambda: D.from_tensors(0).repeat(10).map(
        lambda x: x + _resource_variable("counter", tf.int32).read_value()), "counter"),
    ("flat_map_captures_variable", lambda: D.range(5).flat_map(
        lambda _: D.from_tensors(_resource_variable("test_var", tf.float32).read_value())),
     "test_var"),
    ("flat_map_stateful_ops", lambda: D.range(5).flat_map(
        lambda _: D.range(100).map(_random_times)), "RandomUniformInt"),
]


@pytest.mark.parametrize("name,build,culprit", EXTERNAL_STATE,
                         ids=[c[0] for c in EXTERNAL_STATE])
def test_external_state_on_save(name, build, culprit):
    with tf.Graph().as_default():
        it = build().make_initializable_iterator()
        nxt = it.get_next()
        resource = it._iterator_resource
        fail, warn, ignore = (apply_op("SerializeIterator", resource_handle=resource,
                                       external_state_policy=p).outputs[0] for p in (2, 0, 1))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(it.initializer)
            sess.run(nxt)
            with pytest.raises(tf.errors.FailedPreconditionError, match="is stateful"):
                sess.run(fail)
            sess.run([warn, ignore])  # TF 2's default: saved, with a warning
    with tf.Graph().as_default():
        ds = build()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = as_dataset(sess.run(ds._variant_tensor))
        assert any(culprit in s for s in iterator_state.external_state(value))


def test_pure_pipelines_have_no_external_state():
    with tf.Graph().as_default():
        ds = D.range(5).flat_map(lambda x: D.range(x).map(lambda y: y * tf.constant(3, tf.int64)))
        with tf.Session() as sess:
            value = as_dataset(sess.run(ds._variant_tensor))
    assert iterator_state.external_state(value) == []
