"""TF1's static lookup tables: LookupInterface, InitializableLookupTableBase,
StaticHashTable / HashTable, and the table initializers (KeyValueTensorInitializer,
TextFileInitializer and its string/id forms, TextFileIndex), building the ops of
`ops/lookup/lookup_ops` as TensorFlow 1.15's `lookup_ops` does."""
import abc
import uuid

from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.lookup import lookup_ops as gen_lookup_ops

__all__ = ["LookupInterface", "InitializableLookupTableBase", "StaticHashTable", "HashTable",
           "TableInitializerBase", "KeyValueTensorInitializer", "TextFileIndex",
           "TextFileInitializer", "TextFileStringTableInitializer",
           "TextFileIdTableInitializer", "check_table_dtypes"]


def check_table_dtypes(table, key_dtype, value_dtype):
    """TypeError unless `key_dtype` / `value_dtype` are the table's."""
    if key_dtype.base_dtype != table.key_dtype:
        raise TypeError(f"Invalid key dtype for table, expected {table.key_dtype} but got "
                        f"{key_dtype}.")
    if value_dtype.base_dtype != table.value_dtype:
        raise TypeError(f"Invalid value dtype for table, expected {table.value_dtype} but "
                        f"got {value_dtype}.")


class LookupInterface(abc.ABC):
    """The interface of lookup tables: key and value dtypes, `size`, `lookup`."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)
        self._resource_handle = None

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    @property
    def resource_handle(self):
        """The table's resource handle tensor."""
        return self._resource_handle

    @property
    def name(self):
        return NotImplemented

    @abc.abstractmethod
    def size(self, name=None):
        """The number of entries (a scalar int64 tensor)."""

    @abc.abstractmethod
    def lookup(self, keys, name=None):
        """The values of `keys`."""

    def __getitem__(self, keys):
        return self.lookup(keys)


class InitializableLookupTableBase(LookupInterface):
    """A table filled once by an initializer (`TableInitializerBase`)."""

    def __init__(self, default_value, initializer):
        super().__init__(initializer.key_dtype, initializer.value_dtype)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._default_value.get_shape().merge_with(TensorShape([]))
        self._initializer = initializer
        self._resource_handle = self._create_resource()
        self._init_op = self._initialize()

    def _initialize(self):
        return self._initializer.initialize(self)

    @property
    def initializer(self):
        """The op that initializes the table."""
        return self._init_op

    @property
    def default_value(self):
        """The value looked-up keys not in the table get."""
        return self._default_value

    def size(self, name=None):
        """A scalar int64 tensor: the number of elements in the table."""
        with name_scope(name, f"{self.name}_Size", [self.resource_handle]):
            return gen_lookup_ops.lookup_table_size_v2(self.resource_handle)

    def lookup(self, keys, name=None):
        """The values of `keys` (a Tensor or SparseTensor), `default_value` where absent.

        Raises:
          TypeError: when `keys` is not of the table's key dtype.
        """
        key_tensor = keys.values if isinstance(keys, SparseTensor) else keys
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, "
                            f"received: {keys.dtype}")
        with name_scope(name, f"{self.name}_Lookup",
                        (self.resource_handle, key_tensor, self._default_value)):
            values = gen_lookup_ops.lookup_table_find_v2(self.resource_handle, key_tensor,
                                                         self._default_value)
        values.set_shape(key_tensor.get_shape())
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, values, keys.dense_shape)
        return values


class StaticHashTable(InitializableLookupTableBase):
    """A hash table, immutable once initialized (run `tf.tables_initializer()` first).

    Args:
      initializer: the table initializer (its key and value dtypes are the table's).
      default_value: the value of keys not in the table.
      name: a name for the table op (default "hash_table").
      experimental_is_anonymous: accepted for TF's signature; graph tables are named.
    """

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self._initializer = initializer
        self._is_anonymous = experimental_is_anonymous
        self._shared_name = initializer._shared_name
        if not self._shared_name:
            # TF forces a shared name so the table is one resource across kernels.
            self._shared_name = f"hash_table_{uuid.uuid4()}"
        self._name = name or "hash_table"
        self._table_name = None
        super().__init__(default_value, initializer)
        self._value_shape = self._default_value.get_shape()

    def _create_resource(self):
        table_ref = gen_lookup_ops.hash_table_v2(
            shared_name=self._shared_name, key_dtype=self._initializer.key_dtype,
            value_dtype=self._initializer.value_dtype, name=self._name)
        self._table_name = table_ref.op.name.split("/")[-1]
        return table_ref

    @property
    def name(self):
        return self._table_name

    def export(self, name=None):
        """(keys, values) tensors of everything in the table."""
        with name_scope(name, f"{self.name}_Export", [self.resource_handle]):
            keys, values = gen_lookup_ops.lookup_table_export_v2(
                self.resource_handle, self._key_dtype, self._value_dtype)
        keys.set_shape([None])
        values.set_shape([None])
        return keys, values


class HashTable(StaticHashTable):
    """TF1's name of StaticHashTable, with the `init` property."""

    @property
    def init(self):
        return self.initializer


class TableInitializerBase(abc.ABC):
    """The base of table initializers: the key and value dtypes, `initialize(table)`."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = dtypes.as_dtype(key_dtype)
        self._value_dtype = dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    @abc.abstractmethod
    def initialize(self, table):
        """The op initializing `table`."""

    @property
    def _shared_name(self):
        return ""


class KeyValueTensorInitializer(TableInitializerBase):
    """Initializes a table from `keys` and `values` tensors.

    Args:
      keys, values: the tensors (or Python lists) of keys and values.
      key_dtype, value_dtype: their dtypes where they are Python lists.
      name: a name for the initializer's op scope (default "key_value_init").
    """

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
        self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name if name is not None else "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table):
        """The LookupTableImportV2 op filling `table` (added to TABLE_INITIALIZERS).

        Raises:
          TypeError: when the dtypes are not the table's.
        """
        check_table_dtypes(table, self._keys.dtype, self._values.dtype)
        with name_scope(self._name, values=(table.resource_handle, self._keys,
                                            self._values)):
            init_op = gen_lookup_ops.lookup_table_import_v2(table.resource_handle,
                                                            self._keys, self._values)
        get_default_graph().add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        return init_op


class TextFileIndex:
    """The key/value parts of a line: the whole line, the line number, or a column >= 0."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


def _check_index(index, dtype, what):
    if index < -2:
        raise ValueError(f"`{what}_index` should be >= -2, received: {index}.")
    if index == TextFileIndex.LINE_NUMBER and dtype != dtypes.int64:
        raise ValueError(f"`{what}_dtype` must be int64 if `{what}_index` is "
                         f"{TextFileIndex.LINE_NUMBER}, received: {dtype}")
    if index == TextFileIndex.WHOLE_LINE and not dtype.is_integer and dtype != dtypes.string:
        raise ValueError(f"`{what}_dtype` should be either integer or string for "
                         f"`{what}_index` {TextFileIndex.WHOLE_LINE}, received: {dtype}")


class TextFileInitializer(TableInitializerBase):
    """Initializes a table from a text file: one entry per line, the key and value taken
    from the line as `key_index` / `value_index` say (see TextFileIndex).

    Raises:
      ValueError: for an empty filename, a bad index or dtype, or vocab_size <= 0.
    """

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None, value_index_offset=0):
        if not isinstance(filename, Tensor) and not filename:
            raise ValueError("`filename` argument required for "
                             "tf.lookup.TextFileInitializer")
        key_dtype = dtypes.as_dtype(key_dtype)
        value_dtype = dtypes.as_dtype(value_dtype)
        _check_index(key_index, key_dtype, "key")
        _check_index(value_index, value_dtype, "value")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._filename_arg = filename
        self._filename = filename
        self._key_index = key_index
        self._value_index = value_index
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._name = name
        self._offset = value_index_offset
        super().__init__(key_dtype, value_dtype)

    def initialize(self, table):
        """The InitializeTableFromTextFileV2 op filling `table`; a constant filename is
        added to ASSET_FILEPATHS (so SavedModels carry the file).

        Raises:
          TypeError: when the dtypes are not the table's.
        """
        check_table_dtypes(table, self.key_dtype, self.value_dtype)
        with name_scope(self._name, "text_file_init", (table.resource_handle,)):
            filename = convert_to_tensor(self._filename, dtypes.string,
                                         name="asset_filepath")
            init_op = gen_lookup_ops.initialize_table_from_text_file_v2(
                table.resource_handle, filename, self._key_index, self._value_index,
                -1 if self._vocab_size is None else self._vocab_size, self._delimiter,
                self._offset)
        graph = get_default_graph()
        graph.add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        if filename.op.type == "Const":
            graph.add_to_collection(GraphKeys.ASSET_FILEPATHS, filename)
        return init_op

    @property
    def _shared_name(self):
        parts = [self._filename_arg]
        if self._vocab_size:
            parts.append("%d" % self._vocab_size)
        parts += [str(self._key_index), str(self._value_index)]
        if self._offset:
            parts.append(str(self._offset))
        return "hash_table_" + "_".join(str(p) for p in parts)


class TextFileStringTableInitializer(TextFileInitializer):
    """A text-file initializer for tables of int64 ids to strings (by default the line
    number to the whole line)."""

    def __init__(self, filename, key_column_index=TextFileIndex.LINE_NUMBER,
                 value_column_index=TextFileIndex.WHOLE_LINE, vocab_size=None,
                 delimiter="\t", name="text_file_string_table_init"):
        super().__init__(filename, dtypes.int64, key_column_index, dtypes.string,
                         value_column_index, vocab_size=vocab_size, delimiter=delimiter,
                         name=name)


class TextFileIdTableInitializer(TextFileInitializer):
    """A text-file initializer for tables of strings (or integers) to int64 ids (by
    default the whole line to the line number)."""

    def __init__(self, filename, key_column_index=TextFileIndex.WHOLE_LINE,
                 value_column_index=TextFileIndex.LINE_NUMBER, vocab_size=None,
                 delimiter="\t", name="text_file_id_table_init", key_dtype=dtypes.string):
        super().__init__(filename, key_dtype, key_column_index, dtypes.int64,
                         value_column_index, vocab_size=vocab_size, delimiter=delimiter,
                         name=name)
