"""Port of TensorFlow's lookup_ops_test (python/kernel_tests/lookup_ops_test.py), graph
mode: StaticHashTable, KeyValueTensorInitializer, the text-file initializers. Each test
names the TF test method it ports."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.lookup import tables as lookup_ops

_KEYS = ["brain", "salad", "surgery"]


def _table(keys=_KEYS, values=(0, 1, 2), default=-1, **kw):
    keys = tf.constant(list(keys))
    values = tf.constant(list(values), tf.int64)
    return tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, values),
                                     default, **kw)


def _vocab_file(tmp_path, name, values=_KEYS):
    path = tmp_path / name
    path.write_text("\n".join(values) + "\n")
    return str(path)


# -- StaticHashTableTest -------------------------------------------------------------------
def test_static_hash_table():  # testStaticHashTable
    with tf.Graph().as_default(), tf.Session() as sess:
        table = _table()
        sess.run(table.initializer)
        assert sess.run(table.size()) == 3
        output = table.lookup(tf.constant(["brain", "salad", "tank"]))
        assert output.get_shape().as_list() == [3]
        np.testing.assert_array_equal(sess.run(output), [0, 1, -1])
        keys, values = sess.run(table.export())
        assert sorted(keys) == [b"brain", b"salad", b"surgery"]
        assert sorted(values) == [0, 1, 2]


def test_static_hash_table_find_high_rank():  # testStaticHashTableFindHighRank
    with tf.Graph().as_default(), tf.Session() as sess:
        table = _table()
        sess.run(table.initializer)
        out = table.lookup(tf.constant([["brain", "salad"], ["tank", "tarkus"]]))
        np.testing.assert_array_equal(sess.run(out), [[0, 1], [-1, -1]])


@pytest.mark.parametrize("keys, values", [  # testStaticHashTableInitWith{Python,NumPy}Arrays
    (["brain", "salad", "surgery"], [0, 1, 2]),
    (np.array(["brain", "salad", "surgery"], dtype=np.str_), np.array([0, 1, 2], np.int64)),
])
def test_static_hash_table_init_with_arrays(keys, values):
    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(keys, values, value_dtype=tf.int64), -1)
        sess.run(table.initializer)
        assert sess.run(table.size()) == 3
        out = table.lookup(tf.constant(["brain", "salad", "tank"]))
        np.testing.assert_array_equal(sess.run(out), [0, 1, -1])


def test_multiple_static_hash_tables():  # testMultipleStaticHashTables
    with tf.Graph().as_default(), tf.Session() as sess:
        tables = [_table() for _ in range(3)]
        sess.run([t.initializer for t in tables])
        assert sess.run([t.size() for t in tables]) == [3, 3, 3]
        inp = tf.constant(["brain", "salad", "tank"])
        for out in sess.run([t.lookup(inp) for t in tables]):
            np.testing.assert_array_equal(out, [0, 1, -1])


def test_static_hash_table_with_tensor_default():  # testStaticHashTableWithTensorDefault
    with tf.Graph().as_default(), tf.Session() as sess:
        table = _table(default=tf.constant(-1, tf.int64))
        sess.run(table.initializer)
        out = table.lookup(tf.constant(["brain", "salad", "tank"]))
        np.testing.assert_array_equal(sess.run(out), [0, 1, -1])


def test_static_hash_table_with_sparse_tensor_input():
    # testStaticHashTableWithSparseTensorInput
    with tf.Graph().as_default(), tf.Session() as sess:
        table = _table(default=tf.constant(-1, tf.int64))
        sess.run(table.initializer)
        indices, shape = [[0, 0], [0, 1], [1, 0]], [2, 2]
        sp = tf.SparseTensor(tf.constant(indices, tf.int64),
                             tf.constant(["brain", "salad", "tank"]),
                             tf.constant(shape, tf.int64))
        out = sess.run(table.lookup(sp))
        np.testing.assert_array_equal(out.values, [0, 1, -1])
        np.testing.assert_array_equal(out.indices, indices)
        np.testing.assert_array_equal(out.dense_shape, shape)


def test_signature_mismatch():  # testSignatureMismatch
    with tf.Graph().as_default(), tf.Session() as sess:
        table = _table()
        sess.run(table.initializer)
        ref = tf.Variable("brain")
        sess.run(ref.initializer)
        assert sess.run(table.lookup(ref)) == 0
        with pytest.raises(TypeError):
            table.lookup(tf.constant([1, 2, 3], tf.int64))
        with pytest.raises(TypeError):
            _table(default="UNK")


def test_dtypes():  # testDTypes
    with tf.Graph().as_default():
        with pytest.raises(TypeError):
            tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
                ["a"], [1], [tf.string], tf.int64), -1)


def test_not_initialized():  # testNotInitialized
    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["a"], [1], value_dtype=tf.int64), -1)
        out = table.lookup(tf.constant(["brain", "salad", "surgery"]))
        with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized"):
            sess.run(out)


def test_initialize_twice():  # testInitializeTwice
    with tf.Graph().as_default(), tf.Session() as sess:
        table = _table()
        sess.run(table.initializer)
        sess.run(table.initializer)
        assert sess.run(table.size()) == 3


def test_initialization_with_invalid_dimensions():  # testInitializationWithInvalidDimensions
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            _table(values=[0, 1, 2, 3, 4])


def test_static_hash_table_int32_string():  # testStaticHashTableInt32String
    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            tf.constant([0, 1, 2], tf.int32), tf.constant(_KEYS)), "n/a")
        sess.run(table.initializer)
        out = table.lookup(tf.constant([0, 1, -1]))
        np.testing.assert_array_equal(sess.run(out), [b"brain", b"salad", b"n/a"])


def test_two_tables_in_control_flow():  # testTwoTablesInControlFlow
    with tf.Graph().as_default(), tf.Session() as sess:
        keys = tf.constant([1, 2, 3], tf.int32)
        values = tf.constant([5, 10, 15], tf.int32)
        tables = [tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(keys, values),
                                            -1) for _ in range(2)]
        elems = tf.constant(np.array([2, 4, 1], np.int32))
        results = [t.lookup(elems) for t in tables]
        sess.run(tf.tables_initializer())
        for r in sess.run(results):
            np.testing.assert_array_equal(r, [10, -1, 5])


def test_hash_table_v1_name_and_init():  # HashTable: TF1's spelling, `init`
    with tf.Graph().as_default(), tf.Session() as sess:
        table = lookup_ops.HashTable(tf.lookup.KeyValueTensorInitializer(
            _KEYS, [0, 1, 2], value_dtype=tf.int64), -1)
        sess.run(table.init)
        assert sess.run(table.lookup(tf.constant(["surgery"])))[0] == 2
        assert table.resource_handle.op.type == "HashTableV2"
        assert table.init.type == "LookupTableImportV2"


# -- KeyValueTensorInitializerTest ----------------------------------------------------------
@pytest.mark.parametrize("keys, key_dtype", [  # test_string, test_int64
    (("brain", "salad", "surgery"), tf.string), ((42, 1, -1000), tf.int64)])
def test_key_value_initializer(keys, key_dtype):
    with tf.Graph().as_default(), tf.Session() as sess:
        init = tf.lookup.KeyValueTensorInitializer(keys, (0, 1, 2), key_dtype, tf.int64)
        table = tf.lookup.StaticHashTable(init, default_value=-1)
        sess.run(table.initializer)
        assert sess.run(table.size()) == 3


def test_key_value_initializer_multiple_tables():  # test_multiple_tables
    with tf.Graph().as_default():
        with tf.name_scope("table_scope"):
            tables = [tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
                ("brain", "salad", "surgery"), (0, 1, 2), tf.string, tf.int64), -1)
                for _ in range(2)]
        assert [t.name for t in tables] == ["hash_table", "hash_table_1"]
        assert [t.resource_handle.op.name for t in tables] == [
            "table_scope/hash_table", "table_scope/hash_table_1"]


def test_key_value_initializer_int32():  # test_int32
    with tf.Graph().as_default(), tf.Session() as sess:
        init = tf.lookup.KeyValueTensorInitializer((42, 1, -1000), (0, 1, 2), tf.int32,
                                                   tf.int64)
        with pytest.raises(tf.errors.OpError):
            table = tf.lookup.StaticHashTable(init, default_value=-1)
            sess.run(table.initializer)


# -- InitializeTableFromFileOpTest ---------------------------------------------------------
_W, _N = tf.lookup.TextFileIndex.WHOLE_LINE, tf.lookup.TextFileIndex.LINE_NUMBER


@pytest.mark.parametrize("values, key_dtype, key_index, value_dtype, value_index, shared, "
                         "query, expected, default", [
    # testInitializeStringTable
    (_KEYS, tf.string, _W, tf.int64, _N, "_-2_-1", ["brain", "salad", "tank"], [0, 1, -1], -1),
    # testInitializeInt64Table
    (("42", "1", "-1000"), tf.int64, _W, tf.int64, _N, "_-2_-1", np.array([42, 1, 11]),
     [0, 1, -1], -1),
    # testInitializeIndexTable
    (_KEYS, tf.int64, _N, tf.string, _W, "_-1_-2", np.array([0, 1, 2, 3]),
     [b"brain", b"salad", b"surgery", b"UNK"], "UNK"),
    # testMultiColumn
    (["0\tbrain\t1", "1\tsalad\t5", "2\tsurgery\t6"], tf.string, 1, tf.int64, 2, "_1_2",
     _KEYS, [1, 5, 6], -1),
])
def test_initialize_table_from_file(tmp_path, values, key_dtype, key_index, value_dtype,
                                    value_index, shared, query, expected, default):
    f = _vocab_file(tmp_path, "vocab.txt", values)
    with tf.Graph().as_default(), tf.Session() as sess:
        init = tf.lookup.TextFileInitializer(f, key_dtype, key_index, value_dtype,
                                             value_index)
        assert init._shared_name.endswith("vocab.txt" + shared)
        table = tf.lookup.StaticHashTable(init, default)
        sess.run(table.initializer)
        q = tf.constant(query, key_dtype)
        np.testing.assert_array_equal(sess.run(table.lookup(q)), expected)


@pytest.mark.parametrize("values, key_index, value_index, message", [
    # testInvalidDataTypeInMultiColumn
    (["0\tbrain\t1", "1\tsalad\t5", "2\tsurgery\t6"], 2, 1, "is not a valid"),
    # testInvalidIndex
    (_KEYS, 1, _N, "Invalid number of columns"),
])
def test_initialize_from_file_errors(tmp_path, values, key_index, value_index, message):
    f = _vocab_file(tmp_path, "bad.txt", values)
    with tf.Graph().as_default(), tf.Session() as sess:
        init = tf.lookup.TextFileInitializer(f, tf.string, key_index, tf.int64, value_index)
        table = tf.lookup.StaticHashTable(init, -1)
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            sess.run(table.initializer)


def test_invalid_data_type(tmp_path):  # testInvalidDataType
    f = _vocab_file(tmp_path, "one_column_3.txt")
    with tf.Graph().as_default(), pytest.raises(ValueError):
        tf.lookup.TextFileInitializer(f, tf.int64, _W, tf.string, _N)


def test_initialize_same_table_with_multiple_nodes(tmp_path):
    # testInitializeSameTableWithMultipleNodes
    f = _vocab_file(tmp_path, "one_column_5.txt")
    with tf.Graph().as_default(), tf.Session() as sess:
        tables = [tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(f, tf.string, _W, tf.int64, _N), -1)
            for _ in range(3)]
        sess.run(tf.tables_initializer())
        inp = tf.constant(["brain", "salad", "tank"])
        for out in sess.run([t.lookup(inp) for t in tables]):
            np.testing.assert_array_equal(out, [0, 1, -1])


def test_initialize_table_with_no_filename():  # testInitializeTableWithNoFilename
    with tf.Graph().as_default(), pytest.raises(ValueError):
        tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer("", tf.string, _W, tf.int64,
                                                                _N), -1)


def test_initialize_with_vocab_size(tmp_path):  # testInitializeWithVocabSize
    with tf.Graph().as_default(), tf.Session() as sess:
        f1 = _vocab_file(tmp_path, "one_column6.txt")
        init1 = tf.lookup.TextFileInitializer(f1, tf.string, _W, tf.int64, _N, vocab_size=3)
        assert "one_column6.txt_3_-2_-1" in init1._shared_name
        table1 = tf.lookup.StaticHashTable(init1, -1)
        sess.run(table1.initializer)
        assert sess.run(table1.size()) == 3
        f2 = _vocab_file(tmp_path, "one_column7.txt")
        init2 = tf.lookup.TextFileInitializer(f2, tf.string, _W, tf.int64, _N, vocab_size=5)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid vocab_size"):
            sess.run(tf.lookup.StaticHashTable(init2, -1).initializer)
        f3 = _vocab_file(tmp_path, "one_column3.txt")
        init3 = tf.lookup.TextFileInitializer(f3, tf.string, _W, tf.int64, _N, vocab_size=1)
        table3 = tf.lookup.StaticHashTable(init3, -1)
        sess.run(table3.initializer)
        assert sess.run(table3.size()) == 1


def test_feed_vocabulary_name(tmp_path):  # testFeedVocabularyName
    f = _vocab_file(tmp_path, "feed_vocabulary.txt")
    with tf.Graph().as_default(), tf.Session() as sess:
        init = tf.lookup.TextFileInitializer("old_file.txt", tf.string, _W, tf.int64, _N)
        table = tf.lookup.StaticHashTable(init, -1)
        with pytest.raises(tf.errors.OpError, match="old_file.txt"):
            sess.run(table.initializer)
        filenames = tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS)
        sess.run(table.initializer, feed_dict={filenames[0]: f})
        out = table.lookup(tf.constant(["brain", "salad", "tank"]))
        np.testing.assert_array_equal(sess.run(out), [0, 1, -1])


def test_invalid_filenames(tmp_path):  # testInvalidFilenames
    f = _vocab_file(tmp_path, "filename_shape.txt")
    with tf.Graph().as_default():
        with pytest.raises((ValueError, TypeError)):
            tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
                tf.constant(1), tf.string, _W, tf.int64, _N), -1)
        with pytest.raises((ValueError, TypeError)):
            tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
                tf.constant([f, f]), tf.string, _W, tf.int64, _N), -1)


@pytest.mark.parametrize("cls, key_dtype, query, expected, default, values", [
    # testIdToStringTable
    (lookup_ops.TextFileStringTableInitializer, None, np.array([0, 1, 2, 3]),
     [b"brain", b"salad", b"surgery", b"UNK"], "UNK", _KEYS),
    # testStringToIdTable
    (lookup_ops.TextFileIdTableInitializer, None, ["brain", "salad", "surgery", "UNK"],
     [0, 1, 2, -1], -1, _KEYS),
    # testInt64ToIdTable
    (lookup_ops.TextFileIdTableInitializer, tf.int64, np.array([42, 1, -1000, 11]),
     [0, 1, 2, -1], -1, ("42", "1", "-1000")),
])
def test_text_file_table_initializers(tmp_path, cls, key_dtype, query, expected, default,
                                      values):
    f = _vocab_file(tmp_path, "feat_to_id.txt", values)
    with tf.Graph().as_default(), tf.Session() as sess:
        kw = {"key_dtype": key_dtype} if key_dtype is not None else {}
        init = cls(f, vocab_size=3, **kw)
        table = tf.lookup.StaticHashTable(init, default)
        sess.run(table.initializer)
        out = table.lookup(tf.constant(query, init.key_dtype))
        np.testing.assert_array_equal(sess.run(out), expected)
        assert sess.run(table.size()) == 3
