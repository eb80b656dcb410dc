"""The sequence feature columns: configs, parse specs, 3-D ids, (dense, sequence_length)
pairs of numeric / embedding / indicator columns, errors (cases after TF's
sequence_feature_column_test.py, values by hand)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.feature_column.layers import LazyBuilder

fc = tf.feature_column


def _sp(indices, values, dense_shape):
    return tf.SparseTensorValue(indices=indices, values=values, dense_shape=dense_shape)


def _run(fetches):
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        return sess.run(fetches)


NUMERIC_CASES = [
    ("shape1", {}, _sp(((0, 0), (0, 1), (1, 0)), (0.0, 1.0, 10.0), (2, 2)),
     [[[0.0], [1.0]], [[10.0], [0.0]]], [2, 1]),
    ("shape2", {"shape": (2,)},
     _sp(tuple((0, i) for i in range(4)) + tuple((1, i) for i in range(8)),
         tuple(float(v) for v in range(12)), (2, 8)),
     [[[0.0, 1.0], [2.0, 3.0], [0.0, 0.0], [0.0, 0.0]],
      [[4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0]]], [2, 4]),
    ("default_value", {"default_value": -1.0},
     _sp(((0, 0), (1, 0), (1, 1)), (3.0, 4.0, 5.0), (3, 2)),
     [[[3.0], [-1.0]], [[4.0], [5.0]], [[-1.0], [-1.0]]], [1, 2, 0]),
    ("normalizer", {"normalizer_fn": lambda x: x * 2.0},
     _sp(((0, 0), (1, 1)), (1.5, 2.0), (2, 2)), [[[3.0], [0.0]], [[0.0], [4.0]]], [1, 2]),
    ("rank3_shape2", {"shape": (2,)},
     _sp(((0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)),
         (1.0, 2.0, 3.0, 4.0, 5.0, 6.0), (2, 2, 2)),
     [[[1.0, 2.0], [0.0, 0.0]], [[3.0, 4.0], [5.0, 6.0]]], [1, 2]),
]


@pytest.mark.parametrize("name,kw,value,dense,length", NUMERIC_CASES,
                         ids=[c[0] for c in NUMERIC_CASES])
def test_sequence_numeric(name, kw, value, dense, length):
    with tf.Graph().as_default():
        column = fc.sequence_numeric_column("aaa", **kw)
        pair = column._get_sequence_dense_tensor(LazyBuilder({"aaa": value}))
        got_dense, got_length = _run(list(pair))
    np.testing.assert_allclose(got_dense, dense)
    assert got_length.tolist() == length and got_length.dtype == np.int64


def test_sequence_numeric_config():
    column = fc.sequence_numeric_column("aaa", shape=[2, 3], dtype=tf.int32)
    assert (column.key, column.shape, column.default_value, column.dtype, column.name) == (
        "aaa", (2, 3), 0.0, tf.int32, "aaa")
    assert type(column).__name__ == "SequenceNumericColumn"
    spec = column._parse_example_spec["aaa"]
    assert isinstance(spec, tf.VarLenFeature) and spec.dtype == tf.int32


@pytest.mark.parametrize("kw,error,message", [
    ({"shape": (2.0,)}, TypeError, "shape dimensions must be integer"),
    ({"shape": (0,)}, ValueError, "shape dimensions must be greater than 0"),
    ({"dtype": tf.string}, ValueError, "dtype must be convertible to float"),
    ({"normalizer_fn": "x"}, TypeError, "normalizer_fn must be a callable"),
])
def test_sequence_numeric_errors(kw, error, message):
    with pytest.raises(error, match=message):
        fc.sequence_numeric_column("aaa", **kw)


_VOCAB = ("omar", "stringer", "marlo")
_IDS_2D = _sp(((0, 0), (1, 0), (1, 1), (3, 0)), (2, 0, 1, 1), (4, 2))
_IDS_3D = ((0, 0, 0), (1, 0, 0), (1, 1, 0), (3, 0, 0))

CATEGORICAL_CASES = [
    ("identity", lambda: fc.sequence_categorical_column_with_identity("aaa", num_buckets=3),
     _IDS_2D, _IDS_3D, [2, 0, 1, 1]),
    ("vocabulary_list", lambda: fc.sequence_categorical_column_with_vocabulary_list(
        "aaa", vocabulary_list=_VOCAB),
     _sp(((0, 0), (1, 0), (1, 1)), ("marlo", "skywalker", "omar"), (2, 2)),
     ((0, 0, 0), (1, 0, 0), (1, 1, 0)), [2, -1, 0]),
    ("identity_rank3", lambda: fc.sequence_categorical_column_with_identity("aaa", 9),
     _sp(((0, 0, 0), (1, 0, 0), (1, 0, 1), (1, 1, 0)), (6, 7, 8, 2), (2, 2, 2)),
     ((0, 0, 0), (1, 0, 0), (1, 0, 1), (1, 1, 0)), [6, 7, 8, 2]),
]


@pytest.mark.parametrize("name,make,value,indices,ids", CATEGORICAL_CASES,
                         ids=[c[0] for c in CATEGORICAL_CASES])
def test_sequence_categorical_ids_are_rank3(name, make, value, indices, ids):
    with tf.Graph().as_default():
        pair = make()._get_sparse_tensors(LazyBuilder({"aaa": value}))
        assert pair.weight_tensor is None
        got = _run(pair.id_tensor)
    assert [tuple(i) for i in got.indices.tolist()] == [tuple(i) for i in indices]
    assert got.values.tolist() == ids
    assert len(got.dense_shape) == 3


def test_sequence_hash_bucket_and_vocabulary_file_match_plain_columns(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(_VOCAB) + "\n")
    value = _sp(((0, 0), (0, 1), (1, 0)), ("omar", "marlo", "x"), (2, 2))
    pairs = [
        (fc.sequence_categorical_column_with_hash_bucket("aaa", 10),
         fc.categorical_column_with_hash_bucket("aaa", 10)),
        (fc.sequence_categorical_column_with_vocabulary_file("aaa", str(vocab), 3,
                                                             num_oov_buckets=2),
         fc.categorical_column_with_vocabulary_file("aaa", str(vocab), 3, num_oov_buckets=2)),
    ]
    for seq, plain in pairs:
        assert seq.categorical_column == plain and seq.name == "aaa"
        assert seq._num_buckets == plain._num_buckets
        assert seq._parse_example_spec == plain._parse_example_spec
        with tf.Graph().as_default():
            builder = LazyBuilder({"aaa": value})
            got_seq, got_plain = _run([seq._get_sparse_tensors(builder).id_tensor,
                                       plain._get_sparse_tensors(builder).id_tensor])
        assert got_seq.values.tolist() == got_plain.values.tolist()
        assert got_seq.indices[:, :2].tolist() == got_plain.indices.tolist()


_EMBEDDINGS = np.array([[1.0, 2.0], [3.0, 5.0], [7.0, 11.0]], np.float32)


def test_sequence_embedding_column():
    with tf.Graph().as_default():
        column = fc.embedding_column(
            fc.sequence_categorical_column_with_identity("aaa", num_buckets=3), dimension=2,
            initializer=lambda shape, dtype, partition_info=None: _EMBEDDINGS)
        dense, length = column._get_sequence_dense_tensor(LazyBuilder({"aaa": _IDS_2D}))
        assert [v.op.name for v in tf.global_variables()] == ["embedding_weights"]
        got_dense, got_length = _run([dense, length])
    np.testing.assert_allclose(got_dense, [[[7.0, 11.0], [0.0, 0.0]], [[1.0, 2.0], [3.0, 5.0]],
                                           [[0.0, 0.0], [0.0, 0.0]], [[3.0, 5.0], [0.0, 0.0]]])
    assert got_length.tolist() == [1, 2, 0, 1]


def test_sequence_indicator_column():
    with tf.Graph().as_default():
        column = fc.indicator_column(
            fc.sequence_categorical_column_with_identity("aaa", num_buckets=3))
        dense, length = column._get_sequence_dense_tensor(LazyBuilder({"aaa": _IDS_2D}))
        got_dense, got_length = _run([dense, length])
    np.testing.assert_allclose(got_dense, [[[0, 0, 1], [0, 0, 0]], [[1, 0, 0], [0, 1, 0]],
                                           [[0, 0, 0], [0, 0, 0]], [[0, 1, 0], [0, 0, 0]]])
    assert got_length.tolist() == [1, 2, 0, 1]


@pytest.mark.parametrize("wrap,kind", [
    (lambda c: fc.embedding_column(c, dimension=2), "embedding_column"),
    (fc.indicator_column, "indicator_column"),
])
def test_sequence_columns_refuse_input_layer_and_vice_versa(wrap, kind):
    sequence_col = wrap(fc.sequence_categorical_column_with_identity("aaa", num_buckets=3))
    plain_col = wrap(fc.categorical_column_with_identity("aaa", num_buckets=3))
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=f"In {kind}: aaa_.*must not be of type "
                                             "_SequenceCategoricalColumn"):
            fc.input_layer({"aaa": _IDS_2D}, [sequence_col])
        with pytest.raises(ValueError, match=f"In {kind}: aaa_.*must be of type "
                                             "_SequenceCategoricalColumn"):
            plain_col._get_sequence_dense_tensor(LazyBuilder({"aaa": _IDS_2D}))
