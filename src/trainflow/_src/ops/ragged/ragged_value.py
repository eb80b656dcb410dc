"""`RaggedTensorValue`: what fetching a RaggedTensor returns (NumPy flat values and row
splits)."""
__all__ = ["RaggedTensorValue"]

import numpy as np

from trainflow._src.framework import dtypes


class RaggedTensorValue:
    """The value of a RaggedTensor: `values` (an ndarray or another RaggedTensorValue)
    partitioned into rows by the int32/int64 `row_splits`."""

    def __init__(self, values, row_splits):
        if not (isinstance(row_splits, (np.ndarray, np.generic)) and
                row_splits.dtype in (np.int64, np.int32) and row_splits.ndim == 1):
            raise TypeError("row_splits must be a 1D int32 or int64 numpy array")
        if not isinstance(values, (np.ndarray, np.generic, RaggedTensorValue)):
            raise TypeError("values must be a numpy array or a RaggedTensorValue")
        if isinstance(values, RaggedTensorValue) and \
                row_splits.dtype != values.row_splits.dtype:
            raise ValueError("row_splits and values.row_splits must have the same dtype")
        self._values = values
        self._row_splits = row_splits

    row_splits = property(lambda self: self._row_splits,
                          doc="The split indices of the outermost ragged dimension.")
    values = property(lambda self: self._values, doc="The concatenated rows.")

    @property
    def flat_values(self):
        """The innermost values (an ndarray)."""
        rt = self._values
        while isinstance(rt, RaggedTensorValue):
            rt = rt.values
        return rt

    @property
    def nested_row_splits(self):
        """The row splits of every ragged dimension, outermost first."""
        out = [self._row_splits]
        rt = self._values
        while isinstance(rt, RaggedTensorValue):
            out.append(rt.row_splits)
            rt = rt.values
        return tuple(out)

    @property
    def ragged_rank(self):
        """The number of ragged dimensions."""
        inner = self._values.ragged_rank if isinstance(self._values, RaggedTensorValue) else 0
        return inner + 1

    @property
    def dtype(self):
        """The NumPy dtype of the values."""
        return self._values.dtype

    @property
    def shape(self):
        """(nrows, None, ...) with the uniform inner dimensions of the flat values."""
        return (self._row_splits.shape[0] - 1,) + (None,) + self._values.shape[1:]

    def to_list(self):
        """The value as nested Python lists."""
        if isinstance(self._values, RaggedTensorValue):
            values = self._values.to_list()
        else:
            values = self._values.tolist()
        splits = self._row_splits.tolist()
        return [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def __str__(self):
        return f"<tf.RaggedTensorValue {self.to_list()}>"

    def __repr__(self):
        return f"tf.RaggedTensorValue(values={self._values!r}, row_splits={self._row_splits!r})"


def tf_dtype_of(value):
    """The trainflow DType of a RaggedTensorValue's flat values."""
    return dtypes.as_dtype(value.flat_values.dtype)
