"""Feature configurations of parse_example & co: FixedLenFeature, VarLenFeature,
SparseFeature, FixedLenSequenceFeature, and the op parameters TF derives from them
(keys sorted, SparseFeatures split into their index/value VarLenFeatures)."""
__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "SparseFeature", "VarLenFeature"]

import collections

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.tensor_shape import TensorShape, as_shape


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A variable-length feature, parsed into a SparseTensor."""


class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """A fixed-length feature of `shape`; `default_value` fills missing features."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A feature whose values form a sequence of items of `shape` (a leading dimension
    of the sequence length is added; batches are padded with `default_value`)."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A sparse feature built from an index feature and a value feature."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


_TYPES = (dtypes.float32, dtypes.int64, dtypes.string)


def _check_dtype(param, dtype):
    """`dtype` as a DType; a TypeError naming the op parameter it feeds (TF's message) when
    parsing ops don't take it."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _TYPES:
        raise TypeError(f"Value passed to parameter '{param}' has DataType {dtype.name} not "
                        "in list of allowed values: float32, int64, string")
    return dtype


class ParseParams:
    """The sparse and dense parts of a feature dict, sorted by key as TF orders them.

    Attributes:
      sparse_keys, sparse_types: VarLenFeatures (SparseFeature parts included).
      dense_keys, dense_types, dense_shapes, dense_defaults, dense_variable: dense ones;
        dense_variable marks FixedLenSequenceFeatures (first dim -1 in the op).
      sparse_features: {key: SparseFeature} to merge after parsing.
    """

    def __init__(self, features, sequence=False, prefix=""):
        # The op parameters a bad dtype is reported against, as TF names them: the dense
        # dtypes come from the defaults except for a sequence example's feature lists.
        self._sparse_param = prefix + "sparse_types"
        self._dense_param = prefix + ("dense_types" if sequence else "dense_defaults")
        if not features:
            features = {}
        self.sparse = {}
        self.dense = {}
        self.sparse_features = {}
        for key in sorted(features):
            f = features[key]
            if isinstance(f, VarLenFeature):
                self._add_sparse(key, f.dtype)
            elif isinstance(f, SparseFeature):
                index_keys = f.index_key if isinstance(f.index_key, (list, tuple)) \
                    else [f.index_key]
                for ik in index_keys:
                    self._add_sparse(ik, dtypes.int64)
                self._add_sparse(f.value_key, f.dtype)
                self.sparse_features[key] = f
            elif isinstance(f, FixedLenFeature):
                self._add_dense(key, f.shape, f.dtype, f.default_value, False)
            elif isinstance(f, FixedLenSequenceFeature):
                if not sequence and not f.allow_missing:
                    raise ValueError("Unsupported: FixedLenSequenceFeature requires "
                                     "allow_missing to be True.")
                self._add_dense(key, f.shape, f.dtype, f.default_value, True,
                                f.allow_missing)
            else:
                raise ValueError(f"Invalid feature {key}:{f}.")
        self.sparse_keys = sorted(self.sparse)
        self.sparse_types = [self.sparse[k] for k in self.sparse_keys]
        self.dense_keys = sorted(self.dense)
        self.dense_types = [self.dense[k][1] for k in self.dense_keys]
        self.dense_shapes = [self.dense[k][0] for k in self.dense_keys]
        self.dense_defaults = [self.dense[k][2] for k in self.dense_keys]
        self.dense_variable = [self.dense[k][3] for k in self.dense_keys]
        self.dense_allow_missing = [self.dense[k][4] for k in self.dense_keys]

    def _add_sparse(self, key, dtype):
        dtype = _check_dtype(self._sparse_param, dtype)
        if key in self.sparse and self.sparse[key] != dtype:
            raise ValueError(f"Conflicting type {self.sparse[key]} vs {dtype} for feature "
                             f"{key}.")
        if key in self.dense:
            raise ValueError(f"Dense and sparse keys must not intersect; intersection: {key}")
        self.sparse[key] = dtype

    def _add_dense(self, key, shape, dtype, default, variable, allow_missing=False):
        dtype = _check_dtype(self._dense_param, dtype)
        shape = as_shape(shape)
        if shape.rank is None or not shape.is_fully_defined():
            if not variable:
                raise ValueError(f"All dimensions of shape for feature {key} need to be known "
                                 f"but received {shape}.")
        if key in self.sparse:
            raise ValueError(f"Dense and sparse keys must not intersect; intersection: {key}")
        self.dense[key] = (shape, dtype, default, variable, allow_missing)

    def dense_shapes_attr(self):
        """The dense_shapes attr: variable-length ones get a leading -1 dimension."""
        out = []
        for shape, variable in zip(self.dense_shapes, self.dense_variable):
            out.append(TensorShape([None]).concatenate(shape) if variable else shape)
        return out


def default_array(dtype, value, shape):
    """The dense default as an array of `shape` (an empty array when `value` is None)."""
    np_dtype = object if dtype == dtypes.string else dtype.as_numpy_dtype
    if value is None:
        return np.zeros((0,), dtype=np_dtype)
    arr = np.asarray(value, dtype=np_dtype)
    return np.broadcast_to(arr, shape).copy() if arr.shape != tuple(shape) else arr
