"""The constructors of TF1's `tf.feature_column` columns, with TensorFlow 1.15's
argument checks and defaults."""
import math

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.feature_column import categorical as cat
from trainflow._src.feature_column import dense
from trainflow._src.feature_column import sequence
from trainflow._src.gfile import file_ops
from trainflow._src.ops.state import init_ops

__all__ = ["numeric_column", "bucketized_column", "categorical_column_with_hash_bucket",
           "categorical_column_with_vocabulary_file", "categorical_column_with_vocabulary_list",
           "categorical_column_with_identity", "weighted_categorical_column",
           "embedding_column", "shared_embedding_columns", "indicator_column", "crossed_column",
           "sequence_numeric_column", "sequence_categorical_column_with_identity",
           "sequence_categorical_column_with_hash_bucket",
           "sequence_categorical_column_with_vocabulary_file",
           "sequence_categorical_column_with_vocabulary_list"]


def _check_shape(shape, key):
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    for dimension in shape:
        if not isinstance(dimension, int):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if dimension < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: "
                             f"{key}")
    return shape


def _check_default_value(shape, default_value, dtype, key):
    if default_value is None:
        return None
    if isinstance(default_value, int):
        return _check_scalar_default(shape, default_value, dtype, key)
    if isinstance(default_value, float):
        if not dtype.is_floating:
            raise TypeError(f"If default_value is a float, dtype must be floating. "
                            f"default_value: {default_value}, dtype: {dtype}, key: {key}")
        return _check_scalar_default(shape, default_value, dtype, key)
    try:
        arr = np.asarray(default_value)
    except (TypeError, ValueError):
        raise TypeError(f"default_value must be compatible with dtype. default_value: "
                        f"{default_value}, dtype: {dtype}, key: {key}") from None
    if arr.dtype.kind not in "iuf" or (arr.dtype.kind == "f" and not dtype.is_floating):
        raise TypeError(f"default_value must be compatible with dtype. default_value: "
                        f"{default_value}, dtype: {dtype}, key: {key}")
    if tuple(arr.shape) != tuple(shape):
        raise ValueError(f"The shape of default_value must be equal to given shape. "
                         f"default_value: {default_value}, shape: {shape}, key: {key}")
    return tuple(arr.reshape(-1).tolist()) if len(shape) == 1 else \
        _as_tuple(arr.tolist())


def _as_tuple(value):
    return tuple(_as_tuple(v) for v in value) if isinstance(value, list) else value


def _check_scalar_default(shape, value, dtype, key):
    n = 1
    for d in shape:
        n *= d
    if n == 1:
        return (value,)
    return _as_tuple(np.full(shape, value).tolist())


def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32,
                   normalizer_fn=None):
    """A real-valued column of `shape` per example (`features[key]`)."""
    shape = _check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    default_value = _check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return dense.NumericColumn(key, shape=shape, default_value=default_value, dtype=dtype,
                               normalizer_fn=normalizer_fn)


def bucketized_column(source_column, boundaries):
    """The bucket of a one-dimensional numeric column's values by sorted `boundaries`."""
    if not isinstance(source_column, dense.NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). "
                         f"Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: "
                         f"{source_column}")
    if not boundaries or not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return dense.BucketizedColumn(source_column, tuple(boundaries))


def _check_key_dtype(key, dtype):
    if not isinstance(key, str) or not key:
        raise ValueError(f"key must be a string. Given: {key}" if not isinstance(key, str)
                         else "key must not be empty.")
    dtype = dtypes.as_dtype(dtype)
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"dtype must be string or integer. dtype: {dtype}.")
    return dtype


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """Ids by FarmHash Fingerprint64 of the value mod hash_bucket_size."""
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: "
                         f"{hash_bucket_size}, key: {key}")
    dtype = _check_key_dtype(key, dtype)
    return cat.HashedCategoricalColumn(key, hash_bucket_size, dtype)


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                            num_oov_buckets=0, default_value=None,
                                            dtype=dtypes.string):
    """Ids by the line of the value in `vocabulary_file` (OOV buckets or default_value
    for the rest)."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        if not file_ops.exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        with open(vocabulary_file, "rb") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = _check_key_dtype(key, dtype)
    return cat.VocabularyFileCategoricalColumn(
        key=key, vocabulary_file=vocabulary_file, vocabulary_size=vocabulary_size,
        num_oov_buckets=0 if num_oov_buckets is None else num_oov_buckets,
        default_value=-1 if default_value is None else default_value, dtype=dtype)


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                            default_value=-1, num_oov_buckets=0):
    """Ids by the position of the value in `vocabulary_list` (OOV buckets or default_value
    for the rest)."""
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: "
                         f"{key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: "
                         f"{key}")
    vocabulary_dtype = dtypes.as_dtype(np.array(vocabulary_list).dtype) \
        if np.array(vocabulary_list).dtype.kind not in "USO" else dtypes.string
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    if vocabulary_dtype != dtypes.string and not vocabulary_dtype.is_integer:
        raise ValueError(f"column_name: {key} vocabulary dtype must be string or integer. "
                         f"dtype: {vocabulary_dtype}.")
    if dtype is None:
        dtype = vocabulary_dtype
    elif dtypes.as_dtype(dtype).is_integer != vocabulary_dtype.is_integer:
        raise ValueError(f"dtype {dtype} and vocabulary dtype {vocabulary_dtype} do not "
                         f"match, column_name: {key}")
    dtype = _check_key_dtype(key, dtype)
    return cat.VocabularyListCategoricalColumn(
        key=key, vocabulary_list=tuple(vocabulary_list), dtype=dtype,
        default_value=default_value, num_oov_buckets=num_oov_buckets)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Ids: the integer values in [0, num_buckets) (default_value for the rest)."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    _check_key_dtype(key, dtypes.int64)
    return cat.IdentityCategoricalColumn(key, num_buckets, default_value)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """A categorical column whose ids are weighted by feature `weight_feature_key`."""
    if dtype is None or not (dtypes.as_dtype(dtype).is_integer or
                             dtypes.as_dtype(dtype).is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    dtype = dtypes.as_dtype(dtype)
    return cat.WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)


def _embedding_checks(dimension, combiner, initializer, ckpt_to_load_from,
                      tensor_name_in_ckpt):
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or "
                         "none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Embedding of column_name: "
                         f"{combiner}")
    if initializer is None:
        initializer = init_ops.truncated_normal_initializer(mean=0.0,
                                                            stddev=1 / math.sqrt(dimension))
    return initializer


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True):
    """A dense column: the `combiner` of the embeddings of a categorical column's ids."""
    initializer = _embedding_checks(dimension, combiner, initializer, ckpt_to_load_from,
                                    tensor_name_in_ckpt)
    return dense.EmbeddingColumn(
        categorical_column=categorical_column, dimension=dimension, combiner=combiner,
        initializer=initializer, ckpt_to_load_from=ckpt_to_load_from,
        tensor_name_in_ckpt=tensor_name_in_ckpt, max_norm=max_norm, trainable=trainable)


def shared_embedding_columns(categorical_columns, dimension, combiner="mean",
                             initializer=None, shared_embedding_collection_name=None,
                             ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                             trainable=True):
    """Embedding columns of several categorical columns (of one bucket count) sharing one
    `embedding_weights` variable."""
    initializer = _embedding_checks(dimension, combiner, initializer, ckpt_to_load_from,
                                    tensor_name_in_ckpt)
    columns = list(categorical_columns)
    for c in columns:
        if not isinstance(c, cat.CategoricalColumn):
            raise ValueError(f"All categorical_columns must be subclasses of "
                             f"_CategoricalColumn. Given: {c}")
    num_buckets = columns[0]._num_buckets
    for c in columns[1:]:
        if c._num_buckets != num_buckets:
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must "
                             f"have the same number of buckets. Given column: {columns[0]} "
                             f"with buckets: {num_buckets}, and column: {c} with buckets: "
                             f"{c._num_buckets}")
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = "_".join(c.name for c in sorted(
            columns, key=lambda c: c.name)) + "_shared_embedding"
    return [dense.SharedEmbeddingColumn(
        categorical_column=c, dimension=dimension, combiner=combiner, initializer=initializer,
        shared_embedding_collection_name=shared_embedding_collection_name,
        ckpt_to_load_from=ckpt_to_load_from, tensor_name_in_ckpt=tensor_name_in_ckpt,
        max_norm=max_norm, trainable=trainable) for c in columns]


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """The hashed crosses of several features (strings keys or categorical columns other
    than hash-bucket ones).

    Raises:
      ValueError: for fewer than two keys, a bad key or hash_bucket_size < 1.
    """
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: "
                         f"{hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, cat.CategoricalColumn)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or "
                             f"categorical column except _HashedCategoricalColumn. Given: "
                             f"{key}")
        if isinstance(key, cat.HashedCategoricalColumn):
            raise ValueError(f"categorical_column_with_hash_bucket is not supported for "
                             f"crossing. Hashing before crossing will increase probability "
                             f"of collision. Instead, use the feature name as a string. "
                             f"Given: {key}")
    return cat.CrossedColumn(keys=tuple(keys), hash_bucket_size=hash_bucket_size,
                             hash_key=hash_key)


def indicator_column(categorical_column):
    """A dense multi-hot column of a categorical column."""
    return dense.IndicatorColumn(categorical_column)


def sequence_numeric_column(key, shape=(1,), default_value=0.0, dtype=dtypes.float32,
                            normalizer_fn=None):
    """Sequences of numeric values, `shape` per step (`tf.feature_column.
    sequence_numeric_column`)."""
    shape = _check_shape(shape, key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return sequence.SequenceNumericColumn(key, shape=shape, default_value=default_value,
                                          dtype=dtype, normalizer_fn=normalizer_fn)


def sequence_categorical_column_with_identity(key, num_buckets, default_value=None):
    """Sequences of integer ids in [0, num_buckets)."""
    return sequence.SequenceCategoricalColumn(categorical_column_with_identity(
        key=key, num_buckets=num_buckets, default_value=default_value))


def sequence_categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """Sequences of terms whose ids are hash buckets."""
    return sequence.SequenceCategoricalColumn(categorical_column_with_hash_bucket(
        key=key, hash_bucket_size=hash_bucket_size, dtype=dtype))


def sequence_categorical_column_with_vocabulary_file(key, vocabulary_file,
                                                     vocabulary_size=None, num_oov_buckets=0,
                                                     default_value=None, dtype=dtypes.string):
    """Sequences of terms whose ids come from a vocabulary file."""
    return sequence.SequenceCategoricalColumn(categorical_column_with_vocabulary_file(
        key=key, vocabulary_file=vocabulary_file, vocabulary_size=vocabulary_size,
        num_oov_buckets=num_oov_buckets, default_value=default_value, dtype=dtype))


def sequence_categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                                     default_value=-1, num_oov_buckets=0):
    """Sequences of terms whose ids come from an in-memory list."""
    return sequence.SequenceCategoricalColumn(categorical_column_with_vocabulary_list(
        key=key, vocabulary_list=vocabulary_list, dtype=dtype, default_value=default_value,
        num_oov_buckets=num_oov_buckets))
