"""Port of TensorFlow's lookup_ops_test, graph mode: StaticVocabularyTable,
IdTableWithHashBuckets and the index_table_from_* / index_to_string_table_from_*
helpers. Each test names the TF test method it ports."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.lookup import tables, vocabulary

_KEYS = ["brain", "salad", "surgery"]


def _vocab_file(tmp_path, name, values=_KEYS):
    path = tmp_path / name
    path.write_text("\n".join(values) + "\n")
    return str(path)


def _ids_init(f, **kw):
    return tables.TextFileIdTableInitializer(f, vocab_size=3, **kw)


# -- StaticVocabularyTableTest -------------------------------------------------------------
@pytest.mark.parametrize("values, key_dtype, lookup_dtype, query", [
    # testStringStaticVocabularyTable
    (_KEYS, None, None, ["brain", "salad", "surgery", "UNK"]),
    # testInt32StaticVocabularyTable
    (("42", "1", "-1000"), tf.int64, tf.int32, np.array([42, 1, -1000, 11], np.int32)),
    # testInt64StaticVocabularyTable
    (("42", "1", "-1000"), tf.int64, None, np.array([42, 1, -1000, 11])),
])
def test_static_vocabulary_table(tmp_path, values, key_dtype, lookup_dtype, query):
    f = _vocab_file(tmp_path, "feat_to_id.txt", values)
    with tf.Graph().as_default(), tf.Session() as sess:
        kw = {"key_dtype": key_dtype} if key_dtype is not None else {}
        table = tf.lookup.StaticVocabularyTable(_ids_init(f, **kw), 1,
                                                lookup_key_dtype=lookup_dtype)
        sess.run(table.initializer)
        out = table.lookup(tf.constant(query, lookup_dtype or table.key_dtype))
        np.testing.assert_array_equal(sess.run(out), [0, 1, 2, 3])
        assert sess.run(table.size()) == 4


def test_string_static_vocabulary_table_no_initializer():
    # testStringStaticVocabularyTableNoInitializer: fingerprint64(x) mod 5
    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.lookup.StaticVocabularyTable(None, 5)
        sess.run(table.initializer)
        out = table.lookup(tf.constant(("brain", "salad", "surgery")))
        np.testing.assert_array_equal(sess.run(out), [3, 1, 4])
        assert sess.run(table.size()) == 5


def test_static_vocabulary_table_with_multiple_initializers(tmp_path):
    # testStaticVocabularyTableWithMultipleInitializers
    f = _vocab_file(tmp_path, "feat_to_id_4.txt")
    with tf.Graph().as_default(), tf.Session() as sess:
        init = _ids_init(f)
        t1 = tf.lookup.StaticVocabularyTable(init, 3, name="table1")
        t2 = tf.lookup.StaticVocabularyTable(init, 3, name="table2")
        sess.run(tf.tables_initializer())
        inp = tf.constant(["fruit", "brain", "salad", "surgery", "UNK"])
        for out in sess.run([t1.lookup(inp), t2.lookup(inp)]):
            np.testing.assert_array_equal(out, [5, 0, 1, 2, 5])
        assert sess.run([t1.size(), t2.size()]) == [6, 6]


def test_static_vocabulary_table_initialization_across_sessions(tmp_path):
    # testStaticVocabularyTableInitializationAcrossSessions: the second table shares the
    # first one's resource (same shared_name), already initialized.
    f = _vocab_file(tmp_path, "feat_to_id_5.txt")
    with tf.Graph().as_default(), tf.Session() as sess:
        t1 = tf.lookup.StaticVocabularyTable(_ids_init(f), 1)
        sess.run(t1.initializer)
        out1 = t1.lookup(tf.constant(["brain", "salad", "surgery", "UNK"]))
        np.testing.assert_array_equal(sess.run(out1), [0, 1, 2, 3])
        t2 = tf.lookup.StaticVocabularyTable(_ids_init(f), 1)
        out2 = t2.lookup(tf.constant(["fruit", "salad", "UNK"]))
        np.testing.assert_array_equal(sess.run(out2), [3, 1, 3])
        assert sess.run(t2.size()) == 4


@pytest.mark.parametrize("values, dtype, lookup_dtype", [
    (["brain", "salad", "brain", "surgery", "tarkus"], tf.string, None),  # testSparseTensor
    ([42, 1, 42, -1000, 11], tf.int32, tf.int32),  # testInt32SparseTensor
    ([42, 1, 42, -1000, 11], tf.int64, None),  # testInt64SparseTensor
])
def test_sparse_tensor(tmp_path, values, dtype, lookup_dtype):
    indices, shape = [[0, 0], [0, 1], [2, 0], [2, 2], [3, 0]], [4, 4]
    with tf.Graph().as_default(), tf.Session() as sess:
        sp = tf.SparseTensor(tf.constant(indices, tf.int64), tf.constant(values, dtype),
                             tf.constant(shape, tf.int64))
        if dtype == tf.string:
            init = _ids_init(_vocab_file(tmp_path, "feat_to_id_7.txt"))
        else:
            init = tf.lookup.KeyValueTensorInitializer((42, 1, -1000), (0, 1, 2), tf.int64,
                                                       tf.int64)
        table = tf.lookup.StaticVocabularyTable(init, 1, lookup_key_dtype=lookup_dtype)
        sess.run(table.initializer)
        ids = table.lookup(sp)
        assert ids.values.shape.as_list() == [5]
        got = sess.run(ids)
        np.testing.assert_array_equal(got.indices, indices)
        np.testing.assert_array_equal(got.values, [0, 1, 0, 2, 3])
        np.testing.assert_array_equal(got.dense_shape, shape)


def test_static_vocabulary_table_no_inner_table():  # testStaticVocabularyTableNoInnerTable
    with tf.Graph().as_default():
        assert tf.lookup.StaticVocabularyTable(None, num_oov_buckets=1).resource_handle is None


def test_static_vocabulary_table_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="num_oov_buckets"):
            tf.lookup.StaticVocabularyTable(None, 0)
        init = tf.lookup.KeyValueTensorInitializer(["a"], [1.0])
        with pytest.raises(TypeError, match="value_dtype"):
            tf.lookup.StaticVocabularyTable(init, 1)


# -- IdTableWithHashBucketsTest --------------------------------------------------------------
@pytest.mark.parametrize("hasher, want", [
    (vocabulary.FastHashSpec, [3, 1, 4]),
    (vocabulary.StrongHashSpec((1, 2)), None),
    (vocabulary.HasherSpec("legacy", None), None),
])
def test_id_table_with_only_hash_bucket(hasher, want):
    # testStringIdTableWithOnlyHashBucket and its hashers: the buckets are the hash op's
    with tf.Graph().as_default(), tf.Session() as sess:
        table = vocabulary.IdTableWithHashBuckets(None, 5, hasher_spec=hasher)
        sess.run(table.initializer)
        inp = tf.constant(["brain", "salad", "surgery"])
        got = sess.run(table.lookup(inp))
        if want is None:
            fn = vocabulary._hash_bucket_fn(hasher)
            want = sess.run(fn(inp, num_buckets=5))
        np.testing.assert_array_equal(got, want)
        assert sess.run(table.size()) == 5


def test_id_table_with_hash_buckets_int32_only_hash():  # testInt32IdTableWithOnlyHashBucket
    with tf.Graph().as_default(), tf.Session() as sess:
        table = vocabulary.IdTableWithHashBuckets(None, 5, key_dtype=tf.int32)
        got = sess.run(table.lookup(tf.constant([42, 1, -1000], tf.int32)))
        want = sess.run(tf.strings.to_hash_bucket_fast(
            tf.as_string(tf.constant([42, 1, -1000])), 5))
        np.testing.assert_array_equal(got, want)


def test_id_table_with_hash_buckets_errors(tmp_path):  # testIdTableWithHashBucketsInitErrors
    with tf.Graph().as_default():
        with pytest.raises(TypeError):
            vocabulary.IdTableWithHashBuckets(None, 5, hasher_spec=1)
        with pytest.raises(ValueError):
            vocabulary.IdTableWithHashBuckets(None, 0)
        with pytest.raises(ValueError):
            vocabulary.StrongHashSpec([1, 2, 3])
        with pytest.raises(TypeError):
            vocabulary.StrongHashSpec([None, 2])
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(
            ["a"], [1.0]), -1.0)
        with pytest.raises(TypeError):
            vocabulary.IdTableWithHashBuckets(table, 1)


# -- IndexTableFromFile / IndexTableFromTensor ---------------------------------------------
@pytest.mark.parametrize("kwargs, query, want", [
    ({"num_oov_buckets": 1}, ["salad", "surgery", "tarkus"], [1, 2, 3]),
    ({"default_value": 777}, ["salad", "surgery", "tarkus"], [1, 2, 777]),
    ({}, ["salad", "surgery", "tarkus"], [1, 2, -1]),
    ({"vocab_size": 2}, ["salad", "surgery", "tarkus"], [1, -1, -1]),
    ({"num_oov_buckets": 1, "vocab_size": 2}, ["salad", "surgery", "tarkus"], [1, 2, 2]),
])
def test_index_table_from_file(tmp_path, kwargs, query, want):
    # test_string_index_table_from_file, ..._with_default_value, ..._with_vocab_size
    f = _vocab_file(tmp_path, "f2i_vocab.txt")
    with tf.Graph().as_default(), tf.Session() as sess:
        table = vocabulary.index_table_from_file(vocabulary_file=f, **kwargs)
        ids = table.lookup(tf.constant(query))
        sess.run(tf.tables_initializer())
        np.testing.assert_array_equal(sess.run(ids), want)


@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_int_index_table_from_file(tmp_path, dtype):  # test_int{32,64}_index_table_from_file
    f = _vocab_file(tmp_path, "f2i_vocab.txt", ("42", "1", "-1000"))
    with tf.Graph().as_default(), tf.Session() as sess:
        table = vocabulary.index_table_from_file(vocabulary_file=f, num_oov_buckets=1,
                                                 key_dtype=dtype)
        ids = table.lookup(tf.constant((1, -1000, 11), dtype=dtype))
        sess.run(tf.tables_initializer())
        np.testing.assert_array_equal(sess.run(ids), [1, 2, 3])


def test_index_table_from_file_errors(tmp_path):
    # test_index_table_from_file_with_invalid_hashers, ..._fails_with_empty_vocabulary*
    f = _vocab_file(tmp_path, "f2i_vocab.txt")
    with tf.Graph().as_default():
        with pytest.raises(ValueError):
            vocabulary.index_table_from_file(vocabulary_file="")
        with pytest.raises(ValueError):
            vocabulary.index_table_from_file(vocabulary_file=None)
        with pytest.raises(ValueError, match="vocab_size"):
            vocabulary.index_table_from_file(vocabulary_file=f, vocab_size=0)
        with pytest.raises(ValueError):
            vocabulary.index_table_from_file(vocabulary_file=f, num_oov_buckets=-1)
        with pytest.raises(TypeError):
            vocabulary.index_table_from_file(vocabulary_file=f, num_oov_buckets=1,
                                             hasher_spec=1)
        with pytest.raises(TypeError):
            vocabulary.index_table_from_file(vocabulary_file=f, key_dtype=tf.float32)


@pytest.mark.parametrize("vocab, dtype, query, kwargs, want", [
    (["brain", "salad", "surgery"], tf.string, ["salad", "surgery", "tarkus"],
     {"num_oov_buckets": 1}, [1, 2, 3]),
    ((42, 1, -1000), tf.int32, np.array([1, -1000, 11], np.int32), {"num_oov_buckets": 1},
     [1, 2, 3]),
    ((42, 1, -1000), tf.int64, np.array([1, -1000, 11]), {"num_oov_buckets": 1}, [1, 2, 3]),
    (["brain", "salad", "surgery"], tf.string, ["salad", "surgery", "tarkus"], {},
     [1, 2, -1]),
    (["brain", "salad", "surgery"], tf.string, ["salad", "surgery", "tarkus"],
     {"default_value": 7}, [1, 2, 7]),
])
def test_index_table_from_tensor(vocab, dtype, query, kwargs, want):
    # test_index_table_from_tensor_with_tensor_init, test_int{32,64}_index_table_from_tensor,
    # test_index_table_from_tensor_with_default_value
    with tf.Graph().as_default(), tf.Session() as sess:
        table = vocabulary.index_table_from_tensor(vocabulary_list=vocab, dtype=dtype,
                                                   **kwargs)
        ids = table.lookup(tf.constant(query, dtype))
        sess.run(tf.tables_initializer())
        np.testing.assert_array_equal(sess.run(ids), want)


def test_index_table_from_tensor_errors():
    # test_index_table_from_tensor_missing_vocabulary_list, ..._with_invalid_hashers,
    # ..._empty_vocabulary_list
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(ValueError, match="`vocabulary_list` must be specified"):
            vocabulary.index_table_from_tensor(vocabulary_list=None, num_oov_buckets=1)
        with pytest.raises(TypeError):
            vocabulary.index_table_from_tensor(vocabulary_list=["a"], num_oov_buckets=1,
                                               hasher_spec=1)
        with pytest.raises(ValueError):
            vocabulary.index_table_from_tensor(vocabulary_list=[1, 2], dtype=tf.string)
        table = vocabulary.index_table_from_tensor(
            vocabulary_list=np.array([], dtype=np.str_), num_oov_buckets=1)
        ids = table.lookup(tf.constant(["salad", "surgery", "brain"]))
        sess.run(tf.tables_initializer())
        np.testing.assert_array_equal(sess.run(ids), [0, 0, 0])


# -- IndexToStringTableFromFile / FromTensor --------------------------------------------------
@pytest.mark.parametrize("kwargs, want", [
    ({}, [b"salad", b"surgery", b"UNK"]),
    ({"default_value": "NONE"}, [b"salad", b"surgery", b"NONE"]),
    ({"vocab_size": 2}, [b"salad", b"UNK", b"UNK"]),
])
def test_index_to_string_table_from_file(tmp_path, kwargs, want):
    # test_index_to_string_table, ..._with_default_value, ..._with_vocab_size
    f = _vocab_file(tmp_path, "f2i_vocab.txt")
    with tf.Graph().as_default(), tf.Session() as sess:
        table = vocabulary.index_to_string_table_from_file(vocabulary_file=f, **kwargs)
        features = table.lookup(tf.constant([1, 2, 4], tf.int64))
        sess.run(tf.tables_initializer())
        np.testing.assert_array_equal(sess.run(features), want)


def test_index_to_string_table_from_file_vocab_size_too_large(tmp_path):
    # test_index_to_string_table_with_vocab_size_too_large
    f = _vocab_file(tmp_path, "f2i_vocab.txt")
    with tf.Graph().as_default(), tf.Session() as sess:
        table = vocabulary.index_to_string_table_from_file(vocabulary_file=f, vocab_size=4)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid vocab_size"):
            sess.run(tf.tables_initializer())
        del table


@pytest.mark.parametrize("kwargs, want", [
    ({}, [b"salad", b"surgery", b"UNK"]),
    ({"default_value": "NONE"}, [b"salad", b"surgery", b"NONE"]),
])
def test_index_to_string_table_from_tensor(kwargs, want):
    # test_index_to_string_table_from_tensor, ..._with_default_value
    with tf.Graph().as_default(), tf.Session() as sess:
        table = vocabulary.index_to_string_table_from_tensor(
            vocabulary_list=tf.constant(_KEYS), **kwargs)
        features = table.lookup(tf.constant([1, 2, 4], tf.int64))
        sess.run(tf.tables_initializer())
        np.testing.assert_array_equal(sess.run(features), want)
