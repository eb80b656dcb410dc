"""Port of TensorFlow's lookup_ops_test, graph mode: MutableHashTable (scalar and vector
values, save/restore through a Saver under TF's checkpoint keys) and DenseHashTable's
insert / remove / lookup. Each test names the TF test method it ports."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.train import checkpoint_utils

MutableHashTable = tf.lookup.experimental.MutableHashTable
DenseHashTable = tf.lookup.experimental.DenseHashTable
_KEYS = ["brain", "salad", "surgery", "tarkus"]


def test_mutable_hash_table():  # MutableHashTableOpTest.testMutableHashTable
    with tf.Graph().as_default(), tf.Session() as sess:
        table = MutableHashTable(tf.string, tf.int64, -1)
        assert sess.run(table.size()) == 0
        sess.run(table.insert(tf.constant(_KEYS), tf.constant([0, 1, 2, 3], tf.int64)))
        assert sess.run(table.size()) == 4
        sess.run(table.remove(tf.constant(["tarkus", "tank"])))
        assert sess.run(table.size()) == 3
        out = table.lookup(tf.constant(["brain", "salad", "tank"]))
        assert out.get_shape().as_list() == [3]
        np.testing.assert_array_equal(sess.run(out), [0, 1, -1])
        keys, values = sess.run(table.export())
        assert sorted(zip(keys, values)) == [(b"brain", 0), (b"salad", 1), (b"surgery", 2)]


def test_mutable_hash_table_of_tensors():  # testMutableHashTableOfTensors
    with tf.Graph().as_default(), tf.Session() as sess:
        table = MutableHashTable(tf.string, tf.int64, tf.constant([-1, -1], tf.int64))
        assert table.resource_handle.op.type == "MutableHashTableOfTensorsV2"
        sess.run(table.insert(tf.constant(_KEYS), tf.constant(
            [[0, 1], [2, 3], [4, 5], [6, 7]], tf.int64)))
        sess.run(table.remove(tf.constant(["tarkus", "tank"])))
        assert sess.run(table.size()) == 3
        out = table.lookup(tf.constant(["brain", "salad", "tank"]))
        assert out.get_shape().as_list() == [3, 2]
        np.testing.assert_array_equal(sess.run(out), [[0, 1], [2, 3], [-1, -1]])
        keys, values = sess.run(table.export())
        assert sorted(zip(keys, map(tuple, values))) == [
            (b"brain", (0, 1)), (b"salad", (2, 3)), (b"surgery", (4, 5))]


def test_mutable_hash_table_export_insert():  # testMutableHashTableExportInsert
    with tf.Graph().as_default(), tf.Session() as sess:
        t1 = MutableHashTable(tf.string, tf.int64, tf.constant([-1, -1], tf.int64))
        sess.run(t1.insert(tf.constant(["brain", "salad", "surgery"]),
                           tf.constant([[0, 1], [2, 3], [4, 5]], tf.int64)))
        t2 = MutableHashTable(tf.string, tf.int64, tf.constant([-1, -1], tf.int64))
        keys, values = t1.export()
        sess.run(t2.insert(keys, values))
        out = t2.lookup(tf.constant(["salad", "tank"]))
        np.testing.assert_array_equal(sess.run(out), [[2, 3], [-1, -1]])


def test_mutable_hash_table_invalid_default_value():  # testMutableHashTableInvalidDefaultValue
    with tf.Graph().as_default(), tf.Session() as sess:
        table = MutableHashTable(tf.string, tf.int64, tf.constant([[-1, -1]], tf.int64))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Default value must be a vector"):
            sess.run(table.size())


def test_mutable_hash_table_duplicate_insert():  # testMutableHashTableDuplicateInsert
    with tf.Graph().as_default(), tf.Session() as sess:
        table = MutableHashTable(tf.string, tf.int64, -1)
        sess.run(table.insert(tf.constant(["brain", "salad", "surgery", "brain"]),
                              tf.constant([0, 1, 2, 3], tf.int64)))
        assert sess.run(table.size()) == 3
        out = table.lookup(tf.constant(["brain", "salad", "tank"]))
        np.testing.assert_array_equal(sess.run(out), [3, 1, -1])


@pytest.mark.parametrize("default, want", [  # testMutableHashTable{,OfTensors}FindHighRank
    (-1, [[0, 1], [-1, -1]]),
    ([-1, -1, -1], [[[0, 1, 2], [2, 3, 4]], [[-1, -1, -1], [-1, -1, -1]]]),
])
def test_mutable_hash_table_find_high_rank(default, want):
    with tf.Graph().as_default(), tf.Session() as sess:
        table = MutableHashTable(tf.string, tf.int64, tf.constant(default, tf.int64))
        values = [0, 1, 2] if np.ndim(default) == 0 else [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
        sess.run(table.insert(tf.constant(["brain", "salad", "surgery"]),
                              tf.constant(values, tf.int64)))
        out = table.lookup(tf.constant([["brain", "salad"], ["tank", "tarkus"]]))
        assert out.get_shape().as_list() == list(np.shape(want))
        np.testing.assert_array_equal(sess.run(out), want)


def test_mutable_hash_table_insert_remove_high_rank():
    # testMutableHashTableInsertHighRank, testMutableHashTableRemoveHighRank
    with tf.Graph().as_default(), tf.Session() as sess:
        table = MutableHashTable(tf.string, tf.int64, -1)
        sess.run(table.insert(tf.constant([["brain", "salad"], ["surgery", "tank"]]),
                              tf.constant([[0, 1], [2, 3]], tf.int64)))
        assert sess.run(table.size()) == 4
        sess.run(table.remove(tf.constant([["brain", "tank"]])))
        assert sess.run(table.size()) == 2
        out = table.lookup(tf.constant(["brain", "salad", "tank", "tarkus"]))
        np.testing.assert_array_equal(sess.run(out), [-1, 1, -1, -1])


@pytest.mark.parametrize("key_dtype, value_dtype, keys, values, default, query, want", [
    # testMutableHashTableStringFloat
    (tf.string, tf.float32, ["brain", "salad", "surgery"], [0, 1.1, 2.2], -1.5,
     ["brain", "salad", "tank"], [0, 1.1, -1.5]),
    # testMutableHashTableIntFloat
    (tf.int64, tf.float32, [12, 15, 19], [-1.2, 9.5, 10.4], -1.5, [12, 15, 17],
     [-1.2, 9.5, -1.5]),
    # testMutableHashTableInt64String
    (tf.int64, tf.string, [0, 1, 2], ["brain", "salad", "surgery"], "n/a", [0, 1, 3],
     [b"brain", b"salad", b"n/a"]),
])
def test_mutable_hash_table_dtypes(key_dtype, value_dtype, keys, values, default, query,
                                   want):
    with tf.Graph().as_default(), tf.Session() as sess:
        table = MutableHashTable(key_dtype, value_dtype, default)
        sess.run(table.insert(tf.constant(keys, key_dtype), tf.constant(values, value_dtype)))
        got = sess.run(table.lookup(tf.constant(query, key_dtype)))
        if value_dtype == tf.string:
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-6)


def test_multiple_mutable_hash_tables():  # testMultipleMutableHashTables
    with tf.Graph().as_default(), tf.Session() as sess:
        tables = [MutableHashTable(tf.string, tf.int64, -1) for _ in range(3)]
        keys = tf.constant(["brain", "salad", "surgery"])
        values = tf.constant([0, 1, 2], tf.int64)
        sess.run([t.insert(keys, values) for t in tables])
        assert sess.run([t.size() for t in tables]) == [3, 3, 3]
        inp = tf.constant(["brain", "salad", "tank"])
        for out in sess.run([t.lookup(inp) for t in tables]):
            np.testing.assert_array_equal(out, [0, 1, -1])


def test_mutable_hash_table_signature_mismatch():  # testSignatureMismatch
    with tf.Graph().as_default():
        table = MutableHashTable(tf.string, tf.int64, -1)
        with pytest.raises((TypeError, ValueError)):
            table.insert(tf.constant([4, 5, 6]), tf.constant([0, 1, 2], tf.int64))
        with pytest.raises((TypeError, ValueError)):
            table.lookup(tf.constant([1, 2]))
        with pytest.raises(TypeError):
            table.remove(tf.constant([1, 2], tf.int64))
        with pytest.raises((TypeError, ValueError)):
            MutableHashTable(tf.string, tf.int64, "UNK")


@pytest.mark.parametrize("default", [-1, [-1, -1]], ids=["scalar", "vector"])
def test_mutable_hash_table_save_restore(tmp_path, default):
    # testSaveRestore / testVectorSaveRestore: the Saver writes `<name>-keys` and
    # `<name>-values`, and restoring replaces the table's contents.
    prefix = str(tmp_path / "ckpt")
    vector = np.ndim(default) == 1
    values = [[0, 1], [2, 3], [4, 5]] if vector else [0, 1, 2]
    with tf.Graph().as_default(), tf.Session() as sess:
        v0 = tf.Variable(10.0, name="v0")
        table = MutableHashTable(tf.string, tf.int64, tf.constant(default, tf.int64),
                                 name="t1", checkpoint=True)
        saver = tf.train.Saver()
        sess.run(v0.initializer)
        sess.run(table.insert(tf.constant(["b", "c", "d"]), tf.constant(values, tf.int64)))
        assert saver.save(sess, prefix) == prefix
    names = dict(checkpoint_utils.list_variables(prefix))
    assert set(names) == {"v0", "t1-keys", "t1-values"}
    assert names["t1-keys"] == [3]
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.Variable(-1.0, name="v0")
        table = MutableHashTable(tf.string, tf.int64, tf.constant(default, tf.int64),
                                 name="t1", checkpoint=True)
        new = [[9, 9]] if vector else [9]
        sess.run(table.insert(tf.constant(["e"]), tf.constant(new, tf.int64)))
        tf.train.Saver().restore(sess, prefix)
        assert sess.run(table.size()) == 3
        out = sess.run(table.lookup(tf.constant(["a", "b", "c", "d", "e"])))
        d = [-1, -1] if vector else -1
        np.testing.assert_array_equal(out, [d] + values + [d])


# -- DenseHashTableOpTest ------------------------------------------------------------------
@pytest.mark.parametrize("key_dtype, value_dtype, keys, values, default, empty, deleted, "
                         "remove, query, want", [
    # testBasic
    (tf.int64, tf.int64, [11, 12, 13, 14], [0, 1, 2, 3], -1, 0, -1, [12, 15], [11, 12, 15],
     [0, -1, -1]),
    # testBasicBool
    (tf.int64, tf.bool, [11, 12, 13, 14], [True] * 4, False, 0, -1, [11, 15], [11, 12, 15],
     [False, True, False]),
    # testMapStringToFloat
    (tf.string, tf.float32, ["a", "b", "c", "d"], [0.0, 1.1, 2.2, 3.3], -1.5, "", "$",
     ["b", "e"], ["a", "b", "d", "e"], [0, -1.5, 3.3, -1.5]),
    # testMapInt64ToFloat
    (tf.int64, tf.float64, [11, 12, 13, 14], [0.0, 1.1, 2.2, 3.3], -1.5, 0, -1, [12, 15],
     [11, 12, 14, 15], [0, -1.5, 3.3, -1.5]),
])
def test_dense_hash_table(key_dtype, value_dtype, keys, values, default, empty, deleted,
                          remove, query, want):
    with tf.Graph().as_default(), tf.Session() as sess:
        table = DenseHashTable(key_dtype, value_dtype, default_value=default,
                               empty_key=empty, deleted_key=deleted)
        assert sess.run(table.size()) == 0
        sess.run(table.insert(tf.constant(keys, key_dtype), tf.constant(values, value_dtype)))
        assert sess.run(table.size()) == len(keys)
        sess.run(table.remove(tf.constant(remove, key_dtype)))
        assert sess.run(table.size()) == len(keys) - 1
        out = table.lookup(tf.constant(query, key_dtype))
        assert out.get_shape().as_list() == [len(query)]
        np.testing.assert_allclose(sess.run(out), want, rtol=1e-6)


def test_dense_hash_table_same_empty_and_deleted_key():  # testSameEmptyAndDeletedKey
    with tf.Graph().as_default(), tf.Session() as sess:
        table = DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=42,
                               deleted_key=42)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Empty and deleted keys"):
            sess.run(table.size())


def test_dense_hash_table_lookup_unknown_shape():  # testLookupUnknownShape
    with tf.Graph().as_default(), tf.Session() as sess:
        table = DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0,
                               deleted_key=-1)
        sess.run(table.insert(tf.constant([11, 12, 13], tf.int64),
                              tf.constant([0, 1, 2], tf.int64)))
        keys = tf.placeholder(tf.int64)
        out = table.lookup(keys)
        assert out.get_shape().rank is None
        np.testing.assert_array_equal(sess.run(out, {keys: [11, 12, 15]}), [0, 1, -1])


def test_dense_hash_table_rejects_its_marker_keys():
    with tf.Graph().as_default(), tf.Session() as sess:
        table = DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0,
                               deleted_key=-1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="empty_key"):
            sess.run(table.insert(tf.constant([0], tf.int64), tf.constant([1], tf.int64)))
