"""The categorical feature columns of TF1's `tf.feature_column`: identity, vocabulary list,
vocabulary file, hash bucket and weighted columns, turning a feature into a SparseTensor
of int64 ids as TensorFlow 1.15's feature_column.py does."""
import collections

from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor_or_sparse_tensor
from trainflow._src.lookup import vocabulary
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import fill
from trainflow._src.ops.array.gather import gather_nd, where
from trainflow._src.ops.array.shape import shape
from trainflow._src.ops.control_flow.check_ops import assert_greater_equal, assert_less
from trainflow._src.ops.control_flow.grouping import with_dependencies
from trainflow._src.ops.io.parsing_config import VarLenFeature
from trainflow._src.ops.math.arith import greater_equal, less, logical_or, not_equal
from trainflow._src.ops.sparse.sparse_ops import sparse_cross_hashed
from trainflow._src.ops.string.string_convert import as_string, string_to_hash_bucket_fast

IdWeightPair = collections.namedtuple("IdWeightPair", ("id_tensor", "weight_tensor"))


class FeatureColumn:
    """The base of feature columns: `name`, the parse spec, and the transformation a
    _LazyBuilder caches (`_transform_feature`)."""

    @property
    def _var_scope_name(self):
        return self.name

    def __lt__(self, other):
        return self.name < other.name


class DenseColumn(FeatureColumn):
    """A column giving a dense tensor (`_get_dense_tensor`) of `_variable_shape` per
    example."""


class CategoricalColumn(FeatureColumn):
    """A column giving sparse ids in [0, _num_buckets) (`_get_sparse_tensors`)."""

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return IdWeightPair(inputs.get(self), None)


def to_sparse_input_and_drop_ignore_values(input_tensor, ignore_value=None):
    """A SparseTensor of `input_tensor`'s entries other than `ignore_value` ("" for
    strings, -1 for integers, 0 otherwise); a SparseTensor passes through."""
    input_tensor = convert_to_tensor_or_sparse_tensor(input_tensor)
    if isinstance(input_tensor, SparseTensor):
        return input_tensor
    with name_scope(None, "to_sparse_input", (input_tensor, ignore_value)):
        if ignore_value is None:
            if input_tensor.dtype == dtypes.string:
                ignore_value = ""
            elif input_tensor.dtype.is_integer:
                ignore_value = -1
            else:
                ignore_value = input_tensor.dtype.as_numpy_dtype()
        ignore_value = cast(ignore_value, input_tensor.dtype, name="ignore_value")
        indices = where(not_equal(input_tensor, ignore_value), name="indices")
        return SparseTensor(indices=indices,
                            values=gather_nd(input_tensor, indices, name="values"),
                            dense_shape=shape(input_tensor, out_type=dtypes.int64,
                                              name="dense_shape"))


def _assert_string_or_int(dtype, prefix):
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype}.")


class HashedCategoricalColumn(CategoricalColumn, collections.namedtuple(
        "_HashedCategoricalColumn", ["key", "hash_bucket_size", "dtype"])):
    """Ids: FarmHash Fingerprint64 of the (string form of the) value mod hash_bucket_size."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs):
        input_tensor = to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        _assert_string_or_int(input_tensor.dtype,
                              prefix=f"column_name: {self.key} input_tensor")
        if self.dtype.is_integer != input_tensor.dtype.is_integer:
            raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: "
                             f"{self.key}, column dtype: {self.dtype}, tensor dtype: "
                             f"{input_tensor.dtype}")
        values = input_tensor.values if self.dtype == dtypes.string \
            else as_string(input_tensor.values)
        ids = string_to_hash_bucket_fast(values, self.hash_bucket_size, name="lookup")
        return SparseTensor(input_tensor.indices, ids, input_tensor.dense_shape)

    @property
    def _num_buckets(self):
        return self.hash_bucket_size


class _VocabularyColumn(CategoricalColumn):
    """What the vocabulary-list and vocabulary-file columns share: ids from a table."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs):
        input_tensor = to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        if self.dtype.is_integer != input_tensor.dtype.is_integer:
            raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: "
                             f"{self.key}, column dtype: {self.dtype}, tensor dtype: "
                             f"{input_tensor.dtype}")
        _assert_string_or_int(input_tensor.dtype,
                              prefix=f"column_name: {self.key} input_tensor")
        key_dtype = self.dtype
        if input_tensor.dtype.is_integer:
            key_dtype = dtypes.int64
            input_tensor = SparseTensor(input_tensor.indices,
                                        cast(input_tensor.values, dtypes.int64),
                                        input_tensor.dense_shape)
        return self._table(key_dtype).lookup(input_tensor)


class VocabularyFileCategoricalColumn(_VocabularyColumn, collections.namedtuple(
        "_VocabularyFileCategoricalColumn", ["key", "vocabulary_file", "vocabulary_size",
                                             "num_oov_buckets", "dtype", "default_value"])):
    """Ids: the line of the value in vocabulary_file, else an OOV bucket or default."""

    def _table(self, key_dtype):
        return vocabulary.index_table_from_file(
            vocabulary_file=self.vocabulary_file, num_oov_buckets=self.num_oov_buckets,
            vocab_size=self.vocabulary_size, default_value=self.default_value,
            key_dtype=key_dtype, name=f"{self.key}_lookup")

    @property
    def _num_buckets(self):
        return self.vocabulary_size + self.num_oov_buckets


class VocabularyListCategoricalColumn(_VocabularyColumn, collections.namedtuple(
        "_VocabularyListCategoricalColumn", ["key", "vocabulary_list", "dtype",
                                             "default_value", "num_oov_buckets"])):
    """Ids: the position of the value in vocabulary_list, else an OOV bucket or default."""

    def _table(self, key_dtype):
        return vocabulary.index_table_from_tensor(
            vocabulary_list=tuple(self.vocabulary_list), default_value=self.default_value,
            num_oov_buckets=self.num_oov_buckets, dtype=key_dtype,
            name=f"{self.key}_lookup")

    @property
    def _num_buckets(self):
        return len(self.vocabulary_list) + self.num_oov_buckets


class IdentityCategoricalColumn(CategoricalColumn, collections.namedtuple(
        "_IdentityCategoricalColumn", ["key", "num_buckets", "default_value"])):
    """Ids: the integer values themselves, in [0, num_buckets) (else default_value, or
    an error when it is None)."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(dtypes.int64)}

    def _transform_feature(self, inputs):
        input_tensor = to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        if not input_tensor.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: "
                             f"{input_tensor.dtype}")
        values = cast(input_tensor.values, dtypes.int64, name="values")
        num_buckets = cast(self.num_buckets, dtypes.int64, name="num_buckets")
        zero = cast(0, dtypes.int64, name="zero")
        if self.default_value is None:
            values = with_dependencies((
                assert_less(values, num_buckets, data=(values, num_buckets),
                            name="assert_less_than_num_buckets"),
                assert_greater_equal(values, zero, data=(values,),
                                     name="assert_greater_or_equal_0")), values)
        else:
            values = where(logical_or(less(values, zero), greater_equal(values, num_buckets),
                                      name="out_of_range"),
                           fill(dims=shape(values), value=cast(self.default_value,
                                                               dtypes.int64),
                                name="default_values"), values)
        return SparseTensor(indices=input_tensor.indices, values=values,
                            dense_shape=input_tensor.dense_shape)

    @property
    def _num_buckets(self):
        return self.num_buckets


class WeightedCategoricalColumn(CategoricalColumn, collections.namedtuple(
        "_WeightedCategoricalColumn", ["categorical_column", "weight_feature_key", "dtype"])):
    """A categorical column whose ids carry the weights of feature `weight_feature_key`."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def _parse_example_spec(self):
        config = dict(self.categorical_column._parse_example_spec)
        if self.weight_feature_key in config:
            raise ValueError(f"Parse config {config[self.weight_feature_key]} already exists "
                             f"for {self.weight_feature_key}.")
        config[self.weight_feature_key] = VarLenFeature(self.dtype)
        return config

    @property
    def _num_buckets(self):
        return self.categorical_column._num_buckets

    def _transform_feature(self, inputs):
        weight_tensor = inputs.get(self.weight_feature_key)
        if weight_tensor is None:
            raise ValueError(f"Missing weights {self.weight_feature_key}.")
        weight_tensor = convert_to_tensor_or_sparse_tensor(weight_tensor)
        if self.dtype != weight_tensor.dtype.base_dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype}, but got "
                             f"{weight_tensor.dtype}.")
        if not isinstance(weight_tensor, SparseTensor):
            weight_tensor = to_sparse_input_and_drop_ignore_values(weight_tensor,
                                                                   ignore_value=0.0)
        if not weight_tensor.dtype.is_floating:
            weight_tensor = SparseTensor(weight_tensor.indices,
                                         cast(weight_tensor.values, dtypes.float32),
                                         weight_tensor.dense_shape)
        return inputs.get(self.categorical_column), weight_tensor

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        tensors = inputs.get(self)
        return IdWeightPair(tensors[0], tensors[1])


class CrossedColumn(CategoricalColumn, collections.namedtuple(
        "_CrossedColumn", ["keys", "hash_bucket_size", "hash_key"])):
    """Ids: FingerprintCat64 hashes of the crosses of the keys' features (TF's
    SparseCross), mod hash_bucket_size."""

    @property
    def name(self):
        names = [k.name if isinstance(k, FeatureColumn) else k
                 for k in collect_leaf_level_keys(self)]
        return "_X_".join(sorted(names))

    @property
    def _parse_example_spec(self):
        config = {}
        for key in self.keys:
            if isinstance(key, FeatureColumn):
                config.update(key._parse_example_spec)
            else:
                config.update({key: VarLenFeature(dtypes.string)})
        return config

    def _transform_feature(self, inputs):
        feature_tensors = []
        for key in collect_leaf_level_keys(self):
            if isinstance(key, str):
                feature_tensors.append(inputs.get(key))
            elif isinstance(key, CategoricalColumn):
                ids_and_weights = key._get_sparse_tensors(inputs)
                if ids_and_weights.weight_tensor is not None:
                    raise ValueError(f"crossed_column does not support weight_tensor, but the "
                                     f"given column populates weight_tensor. Given column: "
                                     f"{key.name}")
                feature_tensors.append(ids_and_weights.id_tensor)
            else:
                raise ValueError(f"Unsupported column type. Given: {key}")
        return sparse_cross_hashed(inputs=feature_tensors, num_buckets=self.hash_bucket_size,
                                   hash_key=self.hash_key)

    @property
    def _num_buckets(self):
        return self.hash_bucket_size


def collect_leaf_level_keys(cross):
    """The keys of a crossed column, nested crosses expanded."""
    leaves = []
    for k in cross.keys:
        if isinstance(k, CrossedColumn):
            leaves.extend(collect_leaf_level_keys(k))
        else:
            leaves.append(k)
    return leaves
