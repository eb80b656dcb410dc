"""The table resources behind TF's lookup ops: the initializable HashTable and the
MutableHashTable / MutableDenseHashTable, living in a session's resource manager.

Keys are held as Python values (bytes for strings), values as NumPy arrays of the
table's value shape.
"""
import threading

import numpy as np

from trainflow._src.framework import errors


def _fmt(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def key_list(keys):
    """The keys of an array as hashable Python values."""
    arr = np.asarray(keys)
    if arr.dtype == object:
        return [k if isinstance(k, bytes) else str(k).encode() for k in arr.reshape(-1)]
    return arr.reshape(-1).tolist()


class TableResource:
    """A hash table from keys to values of `value_shape` (TF's lookup::LookupInterface)."""

    kind = "HashTable"

    def __init__(self, name, key_dtype, value_dtype, value_shape=()):
        self.name = name
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.value_shape = tuple(value_shape)
        self._data = {}
        self.lock = threading.Lock()

    def spec(self):
        return (self.kind, self.key_dtype, self.value_dtype, self.value_shape)

    def size(self):
        return len(self._data)

    def check_initialized(self):
        """Raises FailedPreconditionError for an initializable table not yet filled."""

    def check_key_value(self, keys, values):
        keys, values = np.asarray(keys), np.asarray(values)
        want = keys.shape + self.value_shape
        if values.shape != want:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {_fmt(want)} for value, got {_fmt(values.shape)}")
        return keys, values

    def find(self, keys, default):
        self.check_initialized()
        keys = np.asarray(keys)
        default = np.asarray(default, dtype=self.value_dtype)
        if default.shape not in ((), self.value_shape):
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {_fmt(self.value_shape)} or [] for "
                            f"default_value, got {_fmt(default.shape)}")
        default = np.broadcast_to(default, self.value_shape)
        if not self.value_shape:
            default = default[()]  # a scalar, not a 0-d array, into an object array
        out = np.empty((keys.size,) + self.value_shape, dtype=self.value_dtype)
        with self.lock:
            get = self._data.get
            for i, k in enumerate(key_list(keys)):
                out[i] = get(k, default)
        return out.reshape(keys.shape + self.value_shape)

    def _items(self, keys, values):
        n = np.asarray(keys).size
        vals = np.asarray(values, dtype=self.value_dtype).reshape((n,) + self.value_shape)
        dtype = self.value_dtype
        return zip(key_list(keys), (np.array(vals[i], dtype=dtype) for i in range(n)))

    def insert(self, keys, values):
        keys, values = self.check_key_value(keys, values)
        with self.lock:
            self._data.update(self._items(keys, values))

    def remove(self, keys):
        with self.lock:
            for k in key_list(keys):
                self._data.pop(k, None)

    def import_values(self, keys, values):
        keys, values = self.check_key_value(keys, values)
        with self.lock:
            self._data = dict(self._items(keys, values))

    def export(self):
        with self.lock:
            items = list(self._data.items())
        keys = np.empty(len(items), dtype=self.key_dtype)
        for i, (k, _) in enumerate(items):
            keys[i] = k
        values = np.empty((len(items),) + self.value_shape, dtype=self.value_dtype)
        for i, (_, v) in enumerate(items):
            values[i] = v
        return keys, values


class HashTableResource(TableResource):
    """TF's HashTable: filled once by an initializer, then read-only."""

    def __init__(self, name, key_dtype, value_dtype):
        super().__init__(name, key_dtype, value_dtype)
        self.initialized = False

    def check_initialized(self):
        if not self.initialized:
            raise errors.FailedPreconditionError(None, None, "Table not initialized.")

    def initialize(self, pairs):
        """Fills the table from (key, value) pairs, as TF's InitializableLookupTable:
        a second initialization must bring the same entries."""
        data = {}
        for k, v in pairs:
            old = data.get(k)
            if old is not None and old != v:
                raise errors.FailedPreconditionError(
                    None, None, f"HashTable has different value for same key. Key "
                                f"{_show(k)} has {_show(old)} and trying to add value "
                                f"{_show(v)}")
            data[k] = v
        with self.lock:
            if self.initialized:
                if data != self._data:
                    raise errors.FailedPreconditionError(
                        None, None, "Table was already initialized with different data.")
                return
            self._data = data
            self.initialized = True

    def import_values(self, keys, values):
        keys, values = self.check_key_value(keys, values)
        self.initialize(zip(key_list(keys), np.asarray(values).reshape(-1).tolist()))

    def insert(self, keys, values):
        raise errors.UnimplementedError(None, None, "Insert not supported by HashTable")

    def remove(self, keys):
        raise errors.UnimplementedError(None, None, "Remove not supported by HashTable")


def _show(v):
    return v.decode(errors="replace") if isinstance(v, bytes) else v


class DenseTableResource(TableResource):
    """TF's MutableDenseHashTable: a mutable table whose keys may not be `empty_key` or
    `deleted_key`."""

    kind = "MutableDenseHashTable"

    def __init__(self, name, key_dtype, value_dtype, value_shape, empty_key, deleted_key):
        super().__init__(name, key_dtype, value_dtype, value_shape)
        self.empty_key = key_list(empty_key)[0]
        self.deleted_key = key_list(deleted_key)[0]
        if self.empty_key == self.deleted_key:
            raise errors.InvalidArgumentError(None, None,
                                              "Empty and deleted keys must have different "
                                              "values")

    def _check_keys(self, keys):
        for k in key_list(keys):
            if k == self.empty_key:
                raise errors.InvalidArgumentError(
                    None, None, "Using the empty_key as a table key is not allowed")
            if k == self.deleted_key:
                raise errors.InvalidArgumentError(
                    None, None, "Using the deleted_key as a table key is not allowed")

    def insert(self, keys, values):
        self._check_keys(keys)
        super().insert(keys, values)

    def remove(self, keys):
        self._check_keys(keys)
        super().remove(keys)

    def import_values(self, keys, values):
        """Replaces the contents; the empty and deleted keys of a TensorFlow checkpoint's
        bucket arrays are dropped."""
        keys, values = self.check_key_value(keys, values)
        live = [i for i, k in enumerate(key_list(keys))
                if k != self.empty_key and k != self.deleted_key]
        n = len(key_list(keys))
        flat_keys = np.asarray(keys).reshape(-1)[live]
        flat_values = np.asarray(values).reshape((n,) + self.value_shape)[live]
        super().import_values(flat_keys, flat_values)
