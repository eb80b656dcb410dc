"""SqlDataset (`tf.data.experimental.SqlDataset`): the rows of a query over an SQLite
database (the one driver TF has), each a tuple of scalars of the output types."""
import sqlite3

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import register_dataset
from trainflow._src.ops.dataset.reader_ops import as_str


def _text(value):
    return as_str(np.asarray(value, dtype=object).reshape(-1)[0])


class SqlValue(dv.DatasetValue):
    def __init__(self, path, query, types, op):
        self.path, self.query, self.types, self.op = path, query, types, op

    def iterator(self):
        return _SqlIterator(self)


class _SqlIterator(dv.ElementIterator):
    def __init__(self, spec):
        self.spec = spec
        self.cursor = None
        self.connection = None
        self.taken = 0
        self.done = False

    def _open(self):
        spec = self.spec
        try:
            self.connection = sqlite3.connect(f"file:{spec.path}?mode=ro", uri=True,
                                              check_same_thread=False)
            self.cursor = self.connection.execute(spec.query)
        except sqlite3.Error as e:
            self.close()
            raise errors.InvalidArgumentError(
                None, spec.op, f"Prepare failed for query: {spec.query}: {e}") from None

    def next(self, state):
        if self.done:
            return dv.END
        if self.cursor is None:
            self._open()
        try:
            row = self.cursor.fetchone()
        except sqlite3.Error as e:
            raise errors.InvalidArgumentError(None, self.spec.op, str(e)) from None
        if row is None:
            self.done = True
            self.close()
            return dv.END
        self.taken += 1
        return self._element(row)

    def _element(self, row):
        types = self.spec.types
        if len(row) != len(types):
            raise errors.InvalidArgumentError(
                None, self.spec.op, f"The number of columns in the result set ({len(row)}) "
                                    f"does not match the number of output types "
                                    f"({len(types)}).")
        out = []
        for value, dtype in zip(row, types):
            if dtype.name == "string":
                cell = np.empty((), dtype=object)
                cell[()] = value.encode() if isinstance(value, str) else bytes(value or b"")
                out.append(cell)
            else:
                out.append(np.asarray(0 if value is None else value, dtype=dtype.as_numpy_dtype))
        return out

    def save(self):
        return {"taken": self.taken, "done": self.done}

    def restore(self, saved):
        self.close()
        self.taken, self.done = 0, bool(saved["done"])
        if not self.done:
            for _ in range(int(saved["taken"])):
                self.next(None)

    def close(self):
        if self.connection is not None:
            self.connection.close()
        self.connection = self.cursor = None


def _sql_dataset(driver_name, data_source_name, query, *, output_types, ctx):
    driver = _text(driver_name)
    if driver != "sqlite":
        raise errors.InvalidArgumentError(
            None, ctx.op, f"The database type, {driver}, is not supported by SqlDataset. The "
                          "set of supported databases is: {'sqlite'}.")
    return SqlValue(_text(data_source_name), _text(query), list(output_types), ctx.op)


register_dataset("SqlDataset",
                 ["driver_name: string", "data_source_name: string", "query: string"], [],
                 _sql_dataset, metadata=False)
