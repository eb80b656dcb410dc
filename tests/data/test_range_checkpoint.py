"""range_dataset_op_test's 7 iterator checkpoint methods (TF r1.8), ported.

Tally: TF 2.21 passes 2 of the 7 as written (testSaveRestore, testInitThenRestore); both
are ported and pass. The other 5 restore into an iterator that was never initialized
(r1.8 saved the dataset graph in the state; TF 2.x saves only the position), which TF
2.21 refuses with FailedPreconditionError. They are ported twice here: as written (the
restore is FailedPreconditionError, as under TF 2.21), and with the initializer run
before the restore, which is what their intent (repeat, several saves, an exhausted
iterator) needs under TF 2.x.
"""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op

D = tf.data.Dataset


def _save_restore(iterator, path):
    resource = iterator._iterator_resource
    state = apply_op("SerializeIterator", resource_handle=resource).outputs[0]
    save = tf.write_file(path, tf.io.serialize_tensor(state))
    parsed = tf.io.parse_tensor(tf.read_file(path), tf.variant)
    restore = apply_op("DeserializeIterator", resource_handle=resource, serialized=parsed)
    return save, restore


def _build(path, start, stop, num_epochs=None):
    dataset = D.range(start, stop)
    if num_epochs is not None:
        dataset = dataset.repeat(num_epochs)
    iterator = dataset.make_initializable_iterator()
    save, restore = _save_restore(iterator, path)
    return iterator.initializer, iterator.get_next(), save, restore


def _read(sess, get_next, n):
    return [sess.run(get_next) for _ in range(n)]


def _assert_end(sess, get_next):
    with pytest.raises(tf.errors.OutOfRangeError):
        sess.run(get_next)


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "iterator")


def _save_at(path, start, stop, num_epochs=None, read=0):
    with tf.Graph().as_default():
        init, get_next, save, _ = _build(path, start, stop, num_epochs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(init)
            values = _read(sess, get_next, read)
            sess.run(save)
    return values


def test_save_restore(path):  # testSaveRestore
    assert _save_at(path, 2, 10, read=3) == [2, 3, 4]
    with tf.Graph().as_default():
        init, get_next, _, restore = _build(path, 2, 10)
        with tf.Session() as sess:
            sess.run(init)
            sess.run(restore)
            assert _read(sess, get_next, 5) == list(range(5, 10))
            _assert_end(sess, get_next)
    # Saving and restoring in the same session.
    with tf.Graph().as_default():
        init, get_next, save, restore = _build(path, 2, 10)
        with tf.Session() as sess:
            sess.run(init)
            assert _read(sess, get_next, 3) == [2, 3, 4]
            sess.run(save)
            sess.run(restore)
            assert _read(sess, get_next, 5) == list(range(5, 10))
            _assert_end(sess, get_next)


def test_init_then_restore(path):  # testInitThenRestore
    _save_at(path, 2, 10, read=3)
    with tf.Graph().as_default():
        init, get_next, _, restore = _build(path, 2, 10)
        with tf.Session() as sess:
            sess.run(init)
            sess.run(restore)
            assert _read(sess, get_next, 5) == list(range(5, 10))
            _assert_end(sess, get_next)


# -- the five methods that restore into an iterator never initialized ---------------------

def _restore_uninitialized(path, build):
    with tf.Graph().as_default():
        restore = build()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError,
                               match="has not been initialized"):
                sess.run(restore)


def _from_structure_restore(path):
    iterator = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
    return _save_restore(iterator, path)[1]


AS_WRITTEN = [
    ("testRestoreWithoutBuildingDatasetGraph", (2, 10, 5), 27, _from_structure_restore),
    ("testRestoreInModifiedGraph", (2, 10, None), 3, lambda p: _build(p, 2, 8)[3]),
    ("testMultipleSaves", (2, 10, None), 3, lambda p: _build(p, 2, 10)[3]),
    ("testSaveRestoreWithRepeat", (2, 10, 5), 19, lambda p: _build(p, 2, 10, 5)[3]),
    ("testSaveRestoreExhaustedIterator", (2, 10, 5), 40, lambda p: _build(p, 2, 10, 5)[3]),
]


@pytest.mark.parametrize("name,saved,read,restore", AS_WRITTEN, ids=[c[0] for c in AS_WRITTEN])
def test_restore_into_uninitialized_iterator_as_tf_2(path, name, saved, read, restore):
    _save_at(path, *saved, read=read)
    _restore_uninitialized(path, lambda: restore(path))


def test_restore_in_modified_graph_takes_the_new_dataset(path):
    # testRestoreInModifiedGraph, initialized first: the position is restored into the
    # new range (stop 8), as TF 2.21 does.
    _save_at(path, 2, 10, read=3)
    with tf.Graph().as_default():
        init, get_next, _, restore = _build(path, 2, 8)
        with tf.Session() as sess:
            sess.run(init)
            sess.run(restore)
            assert _read(sess, get_next, 3) == [5, 6, 7]
            _assert_end(sess, get_next)


def test_multiple_saves_initialized(path):  # testMultipleSaves, initialized first
    _save_at(path, 2, 10, read=3)
    with tf.Graph().as_default():
        init, get_next, save, restore = _build(path, 2, 10)
        with tf.Session() as sess:
            sess.run(init)
            sess.run(restore)
            assert _read(sess, get_next, 2) == [5, 6]
            sess.run(save)
    with tf.Graph().as_default():
        init, get_next, _, restore = _build(path, 2, 10)
        with tf.Session() as sess:
            sess.run(init)
            sess.run(restore)
            assert _read(sess, get_next, 3) == [7, 8, 9]
            _assert_end(sess, get_next)


def test_save_restore_with_repeat_initialized(path):  # testSaveRestoreWithRepeat
    with tf.Graph().as_default():
        init, get_next, save, restore = _build(path, 2, 10, 5)
        with tf.Session() as sess:
            sess.run(init)
            # No checkpoint written yet: reading it is NotFoundError.
            with pytest.raises(tf.errors.NotFoundError):
                sess.run(restore)
            assert _read(sess, get_next, 19) == list(range(2, 10)) * 2 + [2, 3, 4]
            sess.run(save)
    with tf.Graph().as_default():
        init, get_next, _, restore = _build(path, 2, 10, 5)
        with tf.Session() as sess:
            sess.run(init)
            sess.run(restore)
            assert _read(sess, get_next, 21) == list(range(5, 10)) + list(range(2, 10)) * 2
            _assert_end(sess, get_next)


def test_restore_without_building_dataset_graph_initialized(path):
    # testRestoreWithoutBuildingDatasetGraph: a reinitializable iterator made from the
    # structure alone restores once a dataset of that structure initialized it.
    _save_at(path, 2, 10, 5, read=27)
    with tf.Graph().as_default():
        iterator = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
        init = iterator.make_initializer(D.range(2, 10).repeat(5))
        restore = _save_restore(iterator, path)[1]
        get_next = iterator.get_next()
        with tf.Session() as sess:
            sess.run(init)
            sess.run(restore)
            assert _read(sess, get_next, 13) == list(range(5, 10)) + list(range(2, 10))
            _assert_end(sess, get_next)


def test_save_restore_exhausted_iterator_initialized(path):
    with tf.Graph().as_default():
        init, get_next, save, restore = _build(path, 2, 10, 5)
        with tf.Session() as sess:
            sess.run(init)
            with pytest.raises(tf.errors.NotFoundError):
                sess.run(restore)
            assert _read(sess, get_next, 40) == list(range(2, 10)) * 5
            _assert_end(sess, get_next)
            sess.run(save)
    with tf.Graph().as_default():
        init, get_next, _, restore = _build(path, 2, 10, 5)
        with tf.Session() as sess:
            sess.run(init)
            sess.run(restore)
            _assert_end(sess, get_next)
