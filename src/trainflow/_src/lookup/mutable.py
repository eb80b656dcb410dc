"""tf.lookup.experimental's mutable tables, MutableHashTable and DenseHashTable, saved in
checkpoints (under `<name>-keys` / `<name>-values`, as TensorFlow's) through
SaveableObjects in the SAVEABLE_OBJECTS collection."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.lookup.tables import LookupInterface
from trainflow._src.ops.lookup import lookup_ops as gen_lookup_ops
from trainflow._src.train.saveable_object import SaveableObject, SaveSpec

__all__ = ["MutableHashTable", "DenseHashTable"]


class _TableSaveable(SaveableObject):
    """A mutable table as a SaveableObject: its exported keys and values."""

    def __init__(self, table, name, table_name=None):
        keys, values = table.export()
        specs = [SaveSpec(keys, "", name + "-keys"), SaveSpec(values, "", name + "-values")]
        self.table_name = table_name or name
        super().__init__(table, specs, name)

    def restore(self, restored_tensors, restored_shapes):
        with name_scope(f"{self.table_name}_table_restore"):
            return gen_lookup_ops.lookup_table_import_v2(
                self.op.resource_handle, restored_tensors[0], restored_tensors[1])


class _MutableTable(LookupInterface):
    """What MutableHashTable and DenseHashTable share: lookup, insert, remove, export."""

    def _finish(self, name, checkpoint):
        self._table_name = self._resource_handle.op.name.split("/")[-1]
        if checkpoint:
            get_default_graph().add_to_collection(GraphKeys.SAVEABLE_OBJECTS,
                                                  _TableSaveable(self, name))

    @property
    def name(self):
        return self._table_name

    def size(self, name=None):
        """A scalar int64 tensor: the number of elements in the table."""
        with name_scope(name, f"{self.name}_Size", [self.resource_handle]):
            return gen_lookup_ops.lookup_table_size_v2(self.resource_handle)

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """The values of `keys`; the default value (or `dynamic_default_values`) where
        absent."""
        with name_scope(name, f"{self.name}_lookup_table_find",
                        (self.resource_handle, keys, self._default_value)):
            keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            default = (dynamic_default_values if dynamic_default_values is not None
                       else self._default_value)
            return gen_lookup_ops.lookup_table_find_v2(self.resource_handle, keys, default)

    def insert(self, keys, values, name=None):
        """An op inserting (or replacing) `keys` -> `values`."""
        with name_scope(name, f"{self.name}_lookup_table_insert",
                        [self.resource_handle, keys, values]):
            keys = convert_to_tensor(keys, self._key_dtype, name="keys")
            values = convert_to_tensor(values, self._value_dtype, name="values")
            return gen_lookup_ops.lookup_table_insert_v2(self.resource_handle, keys, values)

    def remove(self, keys, name=None):
        """An op removing `keys` (absent keys are ignored).

        Raises:
          TypeError: when `keys` is not of the table's key dtype.
        """
        if keys.dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype}, got "
                            f"{keys.dtype}.")
        with name_scope(name, f"{self.name}_lookup_table_remove",
                        (self.resource_handle, keys, self._default_value)):
            return gen_lookup_ops.lookup_table_remove_v2(self.resource_handle, keys)

    def export(self, name=None):
        """(keys, values) tensors of everything in the table."""
        with name_scope(name, f"{self.name}_lookup_table_export_values",
                        [self.resource_handle]):
            return gen_lookup_ops.lookup_table_export_v2(
                self.resource_handle, self._key_dtype, self._value_dtype)


class MutableHashTable(_MutableTable):
    """A mutable hash table (insert, remove, lookup), saved in checkpoints when
    `checkpoint` is True.

    Args:
      key_dtype, value_dtype: the dtypes of keys and values.
      default_value: the value of absent keys; its shape is the value shape.
      name: the table op's name (and its checkpoint key prefix).
      checkpoint: whether a Saver saves and restores the table.
    """

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable",
                 checkpoint=True, experimental_is_anonymous=False):
        self._default_value = convert_to_tensor(default_value, dtype=value_dtype)
        self._value_shape = self._default_value.get_shape()
        self._checkpoint = checkpoint
        self._name = name
        super().__init__(key_dtype, value_dtype)
        if self._value_shape.ndims == 0:
            self._resource_handle = gen_lookup_ops.mutable_hash_table_v2(
                use_node_name_sharing=checkpoint, key_dtype=self._key_dtype,
                value_dtype=self._value_dtype, name=name)
        else:
            self._resource_handle = gen_lookup_ops.mutable_hash_table_of_tensors_v2(
                use_node_name_sharing=checkpoint, key_dtype=self._key_dtype,
                value_dtype=self._value_dtype, value_shape=self._value_shape, name=name)
        self._finish(name, checkpoint)


class DenseHashTable(_MutableTable):
    """A mutable hash table with open addressing: keys may not be `empty_key` or
    `deleted_key`; saved in checkpoints when `checkpoint` is True."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key,
                 initial_num_buckets=None, name="MutableDenseHashTable", checkpoint=True,
                 experimental_is_anonymous=False):
        self._default_value = convert_to_tensor(default_value, dtype=value_dtype,
                                                name="default_value")
        self._value_shape = self._default_value.get_shape()
        self._initial_num_buckets = initial_num_buckets
        self._name = name
        key_dtype = dtypes.as_dtype(key_dtype)
        self._empty_key = convert_to_tensor(empty_key, dtype=key_dtype, name="empty_key")
        self._deleted_key = convert_to_tensor(deleted_key, dtype=key_dtype,
                                              name="deleted_key")
        super().__init__(key_dtype, value_dtype)
        self._resource_handle = gen_lookup_ops.mutable_dense_hash_table_v2(
            empty_key=self._empty_key, deleted_key=self._deleted_key,
            use_node_name_sharing=checkpoint, value_dtype=self._value_dtype,
            value_shape=self._value_shape,
            initial_num_buckets=initial_num_buckets or 131072, name=name)
        self._finish(name, checkpoint)

    def insert_or_assign(self, keys, values, name=None):
        """An op inserting (or replacing) `keys` -> `values`."""
        return self.insert(keys, values, name)

    def erase(self, keys, name=None):
        """An op removing `keys`."""
        return self.remove(keys, name)
