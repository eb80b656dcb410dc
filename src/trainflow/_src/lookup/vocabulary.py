"""Vocabulary tables: StaticVocabularyTable and TF1's IdTableWithHashBuckets (keys
outside the vocabulary go to FarmHash Fingerprint64 buckets, as TensorFlow's), and the
`index_table_from_*` / `index_to_string_table_from_*` helpers of `tf.compat.v1.lookup`'s
implementation (the feature columns build on them)."""
import collections

from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.lookup.tables import (HashTable, KeyValueTensorInitializer,
                                          LookupInterface, TextFileIdTableInitializer,
                                          TextFileIndex, TextFileStringTableInitializer)
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import range as range_op
from trainflow._src.ops.array.gather import where_v2
from trainflow._src.ops.array.shape import size as size_op
from trainflow._src.ops.control_flow.grouping import no_op
from trainflow._src.ops.math.arith import add, not_equal
from trainflow._src.ops.string import string_convert

__all__ = ["HasherSpec", "FastHashSpec", "StrongHashSpec", "IdTableWithHashBuckets",
           "StaticVocabularyTable", "index_table_from_file", "index_table_from_tensor",
           "index_to_string_table_from_file", "index_to_string_table_from_tensor"]


class HasherSpec(collections.namedtuple("HasherSpec", ["hasher", "key"])):
    """Which string hash the OOV buckets use: "fasthash", "legacy" or "stronghash"."""

    __slots__ = ()


FastHashSpec = HasherSpec("fasthash", None)


class StrongHashSpec(HasherSpec):
    """The keyed "stronghash" hasher; `key` is two uint64 integers."""

    __slots__ = ()

    def __new__(cls, key):
        if len(key) != 2:
            raise ValueError(f"`key` must have size 2, received {len(key)}")
        if not isinstance(key[0], int) or not isinstance(key[1], int):
            raise TypeError("Invalid key %s. Must be unsigned integer values." % key)
        return super().__new__(cls, "stronghash", key)


def _as_string(tensor):
    if tensor.dtype.base_dtype == dtypes.string:
        return tensor
    return string_convert.as_string(tensor)


def _hash_bucket_fn(hasher_spec):
    if not isinstance(hasher_spec, HasherSpec):
        raise TypeError(f"`hasher_spec` must be of type HasherSpec, got {type(hasher_spec)}.")
    if hasher_spec.hasher == "fasthash":
        return string_convert.string_to_hash_bucket_fast
    if hasher_spec.hasher == "legacy":
        return string_convert.string_to_hash_bucket
    if hasher_spec.hasher == "stronghash":
        return lambda s, num_buckets, name=None: string_convert.string_to_hash_bucket_strong(
            s, num_buckets, key=hasher_spec.key, name=name)
    raise ValueError(f"Found unknown hasher {hasher_spec.hasher} in `hasher_spec`")


def _check_vocab_table(table, key_dtype):
    supported = (dtypes.int64, dtypes.string)
    if table.key_dtype not in supported:
        raise TypeError(f"Invalid `key_dtype`, expected one of {supported}, but got "
                        f"{table.key_dtype}.")
    if table.key_dtype.is_integer != key_dtype.is_integer:
        raise TypeError("Invalid `key_dtype`, expected %s but got %s." % (
            "integer" if key_dtype.is_integer else "non-integer", table.key_dtype))
    if table.value_dtype != dtypes.int64:
        raise TypeError(f"Invalid `value_dtype`, expected {dtypes.int64} but got "
                        f"{table.value_dtype}.")


class _BucketedTable(LookupInterface):
    """A table of ids whose missing keys get `num_oov_buckets` hash buckets after the
    vocabulary (shared by IdTableWithHashBuckets and StaticVocabularyTable)."""

    def _setup(self, table, num_oov_buckets, hasher_spec, name, key_dtype):
        if name:
            name = name.rstrip("/")
        if table is not None:
            key_dtype = dtypes.as_dtype(key_dtype or table.key_dtype)
            _check_vocab_table(table, key_dtype)
            name = name or table.name
        else:
            key_dtype = dtypes.string if key_dtype is None else dtypes.as_dtype(key_dtype)
            name = name or "hash_bucket"
        if not key_dtype.is_integer and key_dtype != dtypes.string:
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got "
                            f"{key_dtype}.")
        self._table = table
        self._num_oov_buckets = num_oov_buckets
        self._hasher_spec = hasher_spec
        self._table_name = name.split("/")[-1] if name else None
        super().__init__(key_dtype, dtypes.int64)
        self._resource_handle = table.resource_handle if table is not None else None

    @property
    def initializer(self):
        if self._table is not None:
            return self._table.initializer
        with name_scope(None, "init"):
            return no_op()

    @property
    def init(self):
        return self.initializer

    @property
    def name(self):
        return self._table_name

    def size(self, name=None):
        """The vocabulary size plus the number of OOV buckets (an int64 scalar)."""
        with name_scope(name, f"{self.name}_Size"):
            if self._table:
                tsize = self._table.size()
            else:
                tsize = convert_to_tensor(0, dtype=dtypes.int64)
            return tsize + self._num_oov_buckets

    def lookup(self, keys, name=None):
        """The ids of `keys` (Tensor or SparseTensor); OOV keys get hash buckets.

        Raises:
          TypeError: when `keys` is not of the table's key dtype.
        """
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, "
                            f"received: {keys.dtype}")
        values = keys.values if isinstance(keys, SparseTensor) else keys
        if self._table and self._table.key_dtype.base_dtype == dtypes.int64:
            values = cast(values, dtypes.int64)
        if self._num_oov_buckets == 0:
            ids = self._table.lookup(values, name=name)
        else:
            with name_scope(name, f"{self.name}_Lookup"):
                buckets = _hash_bucket_fn(self._hasher_spec)(
                    _as_string(values), num_buckets=self._num_oov_buckets,
                    name="hash_bucket")
                if self._table:
                    ids = self._table.lookup(values)
                    buckets = add(buckets, self._table.size())
                    is_id_non_default = not_equal(ids, self._table.default_value)
                    ids = where_v2(is_id_non_default, ids, buckets)
                else:
                    ids = buckets
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, ids, keys.dense_shape)
        return ids


class IdTableWithHashBuckets(_BucketedTable):
    """TF1's string-to-id table with out-of-vocabulary hash buckets (`table` may be None:
    only buckets)."""

    def __init__(self, table, num_oov_buckets, hasher_spec=FastHashSpec, name=None,
                 key_dtype=None):
        if table is None and num_oov_buckets <= 0:
            raise ValueError("`oov_buckets` must be > 0 if no `table` is supplied.")
        if not isinstance(hasher_spec, HasherSpec):
            raise TypeError(f"`hasher_spec` must be of type HasherSpec, got "
                            f"{type(hasher_spec)}.")
        self._setup(table, num_oov_buckets, hasher_spec, name, key_dtype)


class StaticVocabularyTable(_BucketedTable):
    """A vocabulary table of int64 ids with `num_oov_buckets` FarmHash buckets for keys
    outside it (ids vocab_size .. vocab_size + num_oov_buckets - 1).

    Raises:
      ValueError: when num_oov_buckets <= 0.
      TypeError: for key dtypes other than integers and strings, or non-int64 values.
    """

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        table = None
        if initializer:
            if lookup_key_dtype is None:
                lookup_key_dtype = initializer.key_dtype
            lookup_key_dtype = dtypes.as_dtype(lookup_key_dtype)
            supported = (dtypes.int64, dtypes.string)
            if initializer.key_dtype not in supported:
                raise TypeError("Invalid `key_dtype`, expected one of %s, but got %s." %
                                (supported, initializer.key_dtype))
            if initializer.key_dtype.is_integer != lookup_key_dtype.is_integer:
                raise TypeError("Invalid `key_dtype`, expected %s but got %s." % (
                    "integer" if lookup_key_dtype.is_integer else "non-integer",
                    initializer.key_dtype))
            if initializer.value_dtype != dtypes.int64:
                raise TypeError("Invalid `value_dtype`, expected %s but got %s." %
                                (dtypes.int64, initializer.value_dtype))
            table = HashTable(initializer, default_value=-1)
        self._setup(table, num_oov_buckets, FastHashSpec, name, lookup_key_dtype)


def index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None,
                          default_value=-1, hasher_spec=FastHashSpec, key_dtype=dtypes.string,
                          name=None, key_column_index=TextFileIndex.WHOLE_LINE,
                          value_column_index=TextFileIndex.LINE_NUMBER, delimiter="\t"):
    """A table mapping the lines of `vocabulary_file` to their line numbers (int64), with
    `num_oov_buckets` hash buckets (else `default_value`) for the rest.

    Raises:
      ValueError: for a missing file, num_oov_buckets < 0 or vocab_size < 1.
      TypeError: for a key_dtype that is neither integer nor string.
    """
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    if num_oov_buckets < 0:
        raise ValueError("num_oov_buckets must be greater or equal than 0, got %d." %
                         num_oov_buckets)
    if vocab_size is not None and vocab_size < 1:
        value = vocabulary_file
        if isinstance(vocabulary_file, Tensor):
            value = constant_value(vocabulary_file) or "?"
        raise ValueError("`vocab_size` must be greater than 0, got %d for vocabulary_file: "
                         "%s." % (vocab_size, value))
    key_dtype = dtypes.as_dtype(key_dtype)
    if not key_dtype.is_integer and dtypes.string != key_dtype.base_dtype:
        raise TypeError("Dtype for `keys` should be either integer or string.")
    with name_scope(name, "string_to_index"):
        with name_scope(None, "hash_table"):
            init = TextFileIdTableInitializer(
                vocabulary_file, vocab_size=vocab_size,
                key_dtype=dtypes.int64 if key_dtype.is_integer else key_dtype,
                name="table_init", key_column_index=key_column_index,
                value_column_index=value_column_index, delimiter=delimiter)
            table = HashTable(init, default_value)
        if num_oov_buckets:
            table = IdTableWithHashBuckets(table, num_oov_buckets=num_oov_buckets,
                                           hasher_spec=hasher_spec, key_dtype=key_dtype)
        return table


def index_table_from_tensor(vocabulary_list, num_oov_buckets=0, default_value=-1,
                            hasher_spec=FastHashSpec, dtype=dtypes.string, name=None):
    """A table mapping each element of `vocabulary_list` to its position (int64), with
    `num_oov_buckets` hash buckets (else `default_value`) for the rest.

    Raises:
      ValueError: for a missing list, num_oov_buckets < 0 or a list of another dtype.
      TypeError: for a dtype that is neither integer nor string.
    """
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` must be specified.")
    if num_oov_buckets < 0:
        raise ValueError("`num_oov_buckets` must be greater or equal than 0, got %d." %
                         num_oov_buckets)
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_integer and dtypes.string != dtype.base_dtype:
        raise TypeError("`dtype` must either be integer or string.")
    with name_scope(name, "string_to_index"):
        keys = convert_to_tensor(vocabulary_list)
        if keys.dtype.is_integer != dtype.is_integer:
            raise ValueError("Invalid `dtype`: Expected %s, got %s." % (
                "integer" if dtype.is_integer else "non-integer", keys.dtype))
        if not dtype.is_integer and keys.dtype.base_dtype != dtype:
            raise ValueError("Invalid `dtype`: Expected %s, got %s." % (dtype, keys.dtype))
        num_elements = size_op(keys)
        values = cast(range_op(num_elements), dtypes.int64)
        with name_scope(None, "hash_table"):
            table_keys = cast(keys, dtypes.int64) if keys.dtype.is_integer else keys
            init = KeyValueTensorInitializer(table_keys, values,
                                             table_keys.dtype.base_dtype, dtypes.int64,
                                             name="table_init")
            table = HashTable(init, default_value)
        if num_oov_buckets:
            table = IdTableWithHashBuckets(table, num_oov_buckets=num_oov_buckets,
                                           hasher_spec=hasher_spec, key_dtype=dtype)
        return table


def index_to_string_table_from_file(vocabulary_file, vocab_size=None, default_value="UNK",
                                    name=None, key_column_index=TextFileIndex.LINE_NUMBER,
                                    value_column_index=TextFileIndex.WHOLE_LINE,
                                    delimiter="\t"):
    """A table mapping int64 line numbers to the lines of `vocabulary_file`.

    Raises:
      ValueError: for a missing file or vocab_size < 1.
    """
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    with name_scope(name, "index_to_string"):
        init = TextFileStringTableInitializer(
            vocabulary_file, vocab_size=vocab_size, name="table_init",
            key_column_index=key_column_index, value_column_index=value_column_index,
            delimiter=delimiter)
        return HashTable(init, default_value)


def index_to_string_table_from_tensor(vocabulary_list, default_value="UNK", name=None):
    """A table mapping int64 positions to the strings of `vocabulary_list`.

    Raises:
      ValueError: when vocabulary_list is None.
    """
    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` argument must be specified.")
    with name_scope(name, "index_to_string"):
        vocabulary_list = convert_to_tensor(vocabulary_list, dtypes.string)
        num_elements = size_op(vocabulary_list)
        keys = cast(range_op(num_elements), dtypes.int64)
        init = KeyValueTensorInitializer(keys, vocabulary_list, dtypes.int64, dtypes.string,
                                         name="table_init")
        return HashTable(init, default_value)
