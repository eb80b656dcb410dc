"""`tf.RaggedTensor`: flat values partitioned into rows by nested row splits, built in
the graph (the factories add the ops that compute the splits)."""
__all__ = ["RaggedTensor", "is_ragged", "convert_to_tensor_or_ragged_tensor"]

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, as_shape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import fill, range as range_
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import shape as shape_op
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.math import arith
from trainflow._src.ops.math.argmax_scan import cumsum
from trainflow._src.ops.math.histogram_ops import bincount
from trainflow._src.ops.math.reductions import reduce_all, reduce_max
from trainflow._src.ops.ragged.ragged_value import RaggedTensorValue
from trainflow._src.ops.ragged.segment_ids import row_splits_to_segment_ids

_PRIVATE = ("RaggedTensor constructor is private; please use one of the factory methods "
            "instead (e.g., RaggedTensor.from_row_lengths())")


def _partition(value, name, dtype):
    """A row partition tensor: int32 or int64 (`dtype` for Python values)."""
    if isinstance(value, Tensor):
        if value.dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"{name} must have dtype int32 or int64")
        return value
    if isinstance(value, np.ndarray) and value.dtype == np.int32 and dtype is None:
        return convert_to_tensor(value, name=name)
    return convert_to_tensor(value, name=name, dtype=dtype or dtypes.int64)


def _ragged_values(values):
    if isinstance(values, RaggedTensor):
        return values
    values = convert_to_tensor(values, name="values")
    values.shape.with_rank_at_least(1)
    return values


def _zero(dtype):
    return np.zeros([1], dtypes.as_dtype(dtype).as_numpy_dtype)


def _checked(tensor, checks):
    with control_dependencies(checks):
        return identity(tensor)


def _nvals(values, dtype):
    return shape_op(values, out_type=dtype)[0] if isinstance(values, Tensor) \
        else values.nrows(out_type=dtype)


class RaggedTensor:
    """A tensor with ragged dimensions: `values` (a Tensor, or a RaggedTensor for more
    ragged dimensions) cut into rows by `row_splits` (row `i` is
    `values[row_splits[i]:row_splits[i + 1]]`). Build one with the `from_*` factories.
    """

    _is_tensor_like = True

    def __init__(self, values, row_splits, internal=False, cached=None):
        if not internal:
            raise ValueError(_PRIVATE)
        if isinstance(values, RaggedTensor) and values.row_splits.dtype != row_splits.dtype:
            raise ValueError("dtype mismatch: values.row_splits has dtype "
                             f"{values.row_splits.dtype.name} but row_splits has dtype "
                             f"{row_splits.dtype.name}; use "
                             "RaggedTensor.with_row_splits_dtype() to convert")
        row_splits.shape.assert_has_rank(1)
        self._values = values
        self._row_splits = row_splits
        self._cached = dict(cached or {})

    # -- factories -------------------------------------------------------------------------
    @classmethod
    def _make(cls, values, splits, **cached):
        return cls(values, splits, internal=True, cached=cached)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Rows from the row id of each value (sorted); `nrows` adds empty rows at the end."""
        with name_scope(name, "RaggedFromValueRowIds", [values, value_rowids, nrows]):
            values = _ragged_values(values)
            value_rowids = _partition(value_rowids, "value_rowids", None)
            dtype = value_rowids.dtype
            explicit_nrows = nrows
            if nrows is None:
                last = concat([value_rowids[-1:], np.array([-1], dtype.as_numpy_dtype)], 0)
                nrows = last[0] + 1
            else:
                nrows = convert_to_tensor(nrows, name="nrows", dtype=dtype)
                nrows.shape.assert_has_rank(0)
            value_rowids.shape.assert_has_rank(1)
            known_ids = constant_value(value_rowids)
            known_n = None if explicit_nrows is None else constant_value(nrows)
            if known_ids is not None and known_n is not None and known_ids.size and \
                    (known_ids.max() >= known_n or known_ids.min() < 0):
                raise ValueError(f"value_rowids must be in [0, nrows={int(known_n)}); got "
                                 f"{known_ids.tolist()}")
            if validate:
                value_rowids = _checked(value_rowids, [
                    check_ops.assert_non_negative(
                        value_rowids[:1], message="value_rowids must be non-negative"),
                    check_ops.assert_equal(
                        reduce_all(value_rowids[1:] >= value_rowids[:-1]), True,
                        message="value_rowids must be sorted"),
                    check_ops.assert_less(value_rowids[-1:], nrows,
                                          message="value_rowids must be less than nrows"),
                    check_ops.assert_equal(_nvals(values, dtype), shape_op(
                        value_rowids, out_type=dtype)[0],
                        message="len(values) != len(value_rowids)")])
            lengths = bincount(cast(value_rowids, dtypes.int32),
                               minlength=cast(nrows, dtypes.int32),
                               maxlength=cast(nrows, dtypes.int32), dtype=dtype)
            splits = concat([_zero(dtype), cumsum(lengths)], axis=0)
            known = constant_value(nrows)
            if known is not None:
                splits.set_shape([int(known) + 1])
            return cls._make(values, splits, value_rowids=value_rowids, nrows=nrows)

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Rows `values[row_splits[i]:row_splits[i + 1]]`."""
        if isinstance(row_splits, (list, tuple)) and not row_splits:
            raise ValueError(f"row_splits tensor may not be empty; got {row_splits}")
        with name_scope(name, "RaggedFromRowSplits", [values, row_splits]):
            values = _ragged_values(values)
            row_splits = _partition(row_splits, "row_splits", None)
            row_splits.shape.assert_has_rank(1)
            if row_splits.shape.dims[0].value == 0:
                raise ValueError("row_splits tensor may not be empty.")
            if validate:
                dtype = row_splits.dtype
                row_splits = _checked(row_splits, [
                    check_ops.assert_equal(row_splits[:1], _zero(dtype),
                                           message="First value of row_splits must be 0"),
                    check_ops.assert_equal(
                        reduce_all(row_splits[1:] >= row_splits[:-1]), True,
                        message="row_splits must be monotonically increasing"),
                    check_ops.assert_equal(row_splits[-1], _nvals(values, dtype),
                                           message="Last value of row_splits must be nvals")])
            return cls._make(values, row_splits)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Rows of `row_lengths[i]` values each."""
        with name_scope(name, "RaggedFromRowLengths", [values, row_lengths]):
            values = _ragged_values(values)
            row_lengths = _partition(row_lengths, "row_lengths", None)
            row_lengths.shape.assert_has_rank(1)
            dtype = row_lengths.dtype
            if validate:
                row_lengths = _checked(row_lengths, [check_ops.assert_non_negative(
                    row_lengths, message="row_lengths must be non-negative")])
            splits = concat([_zero(dtype), cumsum(row_lengths)], axis=0)
            if validate:
                splits = _checked(splits, [check_ops.assert_equal(
                    splits[-1], _nvals(values, dtype),
                    message="sum(row_lengths) must equal nvals")])
            return cls._make(values, splits, row_lengths=row_lengths)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        """Rows starting at `row_starts[i]` (each ends where the next starts)."""
        with name_scope(name, "RaggedFromRowStarts", [values, row_starts]):
            values = _ragged_values(values)
            row_starts = _partition(row_starts, "row_starts", None)
            nvals = _nvals(values, row_starts.dtype)
            splits = concat([row_starts, nvals[None]], axis=0)
            return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        """Rows ending at `row_limits[i]` (each starts where the previous ends)."""
        with name_scope(name, "RaggedFromRowLimits", [values, row_limits]):
            values = _ragged_values(values)
            row_limits = _partition(row_limits, "row_limits", None)
            splits = concat([_zero(row_limits.dtype), row_limits], axis=0)
            return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True,
                                name=None):
        """Rows of `uniform_row_length` values each (`nrows` of them when the length is 0)."""
        with name_scope(name, "RaggedFromUniformRowLength", [values, uniform_row_length]):
            values = _ragged_values(values)
            length = _partition(uniform_row_length, "uniform_row_length", None)
            length.shape.assert_has_rank(0)
            dtype = length.dtype
            nvals = _nvals(values, dtype)
            if nrows is None:
                nrows = arith.floordiv(nvals, arith.maximum(length, 1))
            else:
                nrows = convert_to_tensor(nrows, name="nrows", dtype=dtype)
            if validate:
                length = _checked(length, [check_ops.assert_equal(
                    nrows * length, nvals,
                    message="uniform_row_length must divide nvals")])
            splits = range_(nrows + 1) * length
            known_n, known_len = constant_value(nrows), constant_value(length)
            if known_n is not None:
                splits.set_shape([int(known_n) + 1])
            return cls._make(values, splits, nrows=nrows,
                             uniform=None if known_len is None else int(known_len))

    @classmethod
    def _from_nested(cls, factory, flat_values, partitions, name, validate, scope):
        if isinstance(partitions, Tensor):
            raise TypeError(f"{scope} argument must be a list of Tensors")
        with name_scope(name, scope, [flat_values] + list(partitions)):
            result = flat_values
            for part in reversed(partitions):
                result = factory(result, part, validate=validate)
            return result

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None,
                               validate=True):
        """One ragged dimension per row splits tensor, outermost first."""
        return cls._from_nested(cls.from_row_splits, flat_values, nested_row_splits, name,
                                validate, "RaggedFromNestedRowSplits")

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate=True):
        """One ragged dimension per row lengths tensor, outermost first."""
        return cls._from_nested(cls.from_row_lengths, flat_values, nested_row_lengths, name,
                                validate, "RaggedFromNestedRowlengths")

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None,
                                 name=None, validate=True):
        """One ragged dimension per value rowids tensor (and optional nrows)."""
        if nested_nrows is None:
            nested_nrows = [None] * len(nested_value_rowids)
        if len(nested_nrows) != len(nested_value_rowids):
            raise ValueError("Argument `nested_nrows` must have the same length as argument "
                             "`nested_value_rowids`")
        with name_scope(name, "RaggedFromNestedValueRowIds", [flat_values]):
            result = flat_values
            for rowids, nrows in reversed(list(zip(nested_value_rowids, nested_nrows))):
                result = cls.from_value_rowids(result, rowids, nrows, validate=validate)
            return result

    # -- properties ------------------------------------------------------------------------
    @property
    def dtype(self):
        """The DType of the values."""
        return self._values.dtype

    @property
    def values(self):
        """The concatenated rows (a Tensor, or a RaggedTensor)."""
        return self._values

    @property
    def row_splits(self):
        """The 1-D int32/int64 split indices of the outermost ragged dimension."""
        return self._row_splits

    @property
    def flat_values(self):
        """The innermost values, a Tensor."""
        rt = self._values
        while isinstance(rt, RaggedTensor):
            rt = rt.values
        return rt

    @property
    def nested_row_splits(self):
        """The row splits of every ragged dimension, outermost first (a tuple)."""
        out, rt = [self._row_splits], self._values
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_splits)
            rt = rt.values
        return tuple(out)

    @property
    def ragged_rank(self):
        """The number of ragged dimensions."""
        return self._values.ragged_rank + 1 if isinstance(self._values, RaggedTensor) else 1

    @property
    def uniform_row_length(self):
        """The length of every row when the rows are uniform and it is known, else None."""
        uniform = self._cached.get("uniform")
        return None if uniform is None else constant(uniform, self._row_splits.dtype)

    @property
    def shape(self):
        """The static shape: [nrows, None (or a uniform row length), ...inner dims]."""
        nrows = self._row_splits.shape.dims[0].value
        nrows = None if nrows is None else nrows - 1
        inner = self._values.shape
        return TensorShape([nrows, self._cached.get("uniform")]).concatenate(inner[1:]) \
            if inner.rank is not None else TensorShape(None)

    def get_shape(self):
        """Alias of `shape`."""
        return self.shape

    def _set_shape(self, shape):
        shape = as_shape(shape)
        if shape.rank is None:
            return
        self._row_splits.set_shape([None if shape[0] is None else shape[0] + 1])
        if isinstance(self._values, RaggedTensor):
            self._values._set_shape(TensorShape([None]).concatenate(shape[2:]))
        else:
            self._values.set_shape(TensorShape([None]).concatenate(shape[2:]))

    @property
    def graph(self):
        """The Graph holding the components."""
        return self._row_splits.graph

    # -- row partition encodings ----------------------------------------------------------
    def value_rowids(self, name=None):
        """The row index of each value (int, same dtype as row_splits)."""
        if "value_rowids" in self._cached:
            return self._cached["value_rowids"]
        with name_scope(name, "RaggedValueRowIds", [self]):
            return row_splits_to_segment_ids(self._row_splits)

    def nrows(self, out_type=None, name=None):
        """The number of rows, a scalar tensor."""
        with name_scope(name, "RaggedNRows", [self]):
            dtype = self._row_splits.dtype if out_type is None else dtypes.as_dtype(out_type)
            known = self._row_splits.shape.dims[0].value
            if known is not None:
                return constant(known - 1, dtype)
            if "nrows" in self._cached:
                return cast(self._cached["nrows"], dtype)
            return shape_op(self._row_splits, out_type=dtype)[0] - 1

    def row_starts(self, name=None):
        """Where each row starts in `values`."""
        with name_scope(name, "RaggedRowStarts", [self]):
            return self._row_splits[:-1]

    def row_limits(self, name=None):
        """Where each row ends in `values`."""
        with name_scope(name, "RaggedRowLimits", [self]):
            return self._row_splits[1:]

    def row_lengths(self, axis=1, name=None):
        """The length of each row along `axis` (ragged for axis > 1)."""
        if axis == 0:
            return self.nrows(name=name)
        if axis < 0:
            rank = self.shape.rank
            if rank is None:
                raise ValueError("axis may not be negative if rank is unknown")
            axis += rank
        if axis == 1:
            if "row_lengths" in self._cached:
                return self._cached["row_lengths"]
            with name_scope(name, "RaggedRowLengths", [self]):
                return self._row_splits[1:] - self._row_splits[:-1]
        if isinstance(self._values, RaggedTensor):
            with name_scope(name, "RaggedRowLengths", [self]):
                return self.with_values(self._values.row_lengths(axis - 1))
        with name_scope(name, "RaggedRowLengths", [self]):
            return self.with_values(
                _uniform_lengths(self._values, axis - 1, self._row_splits.dtype))

    def nested_row_lengths(self, name=None):
        """The row lengths of every ragged dimension, outermost first."""
        with name_scope(name, "RaggedNestedRowLengths", [self]):
            out, rt = [], self
            while isinstance(rt, RaggedTensor):
                out.append(rt.row_lengths())
                rt = rt.values
            return tuple(out)

    def nested_value_rowids(self, name=None):
        """The value rowids of every ragged dimension, outermost first."""
        with name_scope(name, "RaggedNestedValueRowIds", [self]):
            out, rt = [], self
            while isinstance(rt, RaggedTensor):
                out.append(rt.value_rowids())
                rt = rt.values
            return tuple(out)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The smallest dense shape that holds every row: [nrows, longest row, ...]."""
        with name_scope(name, "RaggedBoundingBox", [self, axis]):
            dtype = self._row_splits.dtype if out_type is None else dtypes.as_dtype(out_type)
            dims, rt = [cast(self.nrows(), dtype)[None]], self
            while isinstance(rt, RaggedTensor):
                lengths = rt.row_splits[1:] - rt.row_splits[:-1]
                longest = arith.maximum(reduce_max(lengths), 0)
                dims.append(cast(longest, dtype)[None])
                rt = rt.values
            dims.append(shape_op(rt, out_type=dtype)[1:])
            box = concat(dims, axis=0)
            return box if axis is None else box[axis]

    # -- derived tensors -------------------------------------------------------------------
    def with_values(self, new_values):
        """The same outer partition around `new_values`."""
        new_values = _ragged_values(new_values)
        if isinstance(new_values, RaggedTensor) and \
                new_values.row_splits.dtype != self._row_splits.dtype:
            raise ValueError("self and new_values have mismatched row_splits dtypes; use "
                             "RaggedTensor.with_row_splits_dtype() to convert them to "
                             "compatible dtypes.")
        return RaggedTensor._make(new_values, self._row_splits, **self._cached)

    def with_flat_values(self, new_values):
        """The same nested partitions around `new_values` (flat values of the same nvals)."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        """This ragged tensor with every row partition cast to `dtype` (int32/int64)."""
        dtype = dtypes.as_dtype(dtype)
        if dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"dtype must be int32 or int64; got {dtype}")
        if self._row_splits.dtype == dtype:
            return self
        values = self._values.with_row_splits_dtype(dtype) \
            if isinstance(self._values, RaggedTensor) else self._values
        return RaggedTensor._make(values, cast(self._row_splits, dtype),
                                  uniform=self._cached.get("uniform"))

    def consumers(self):
        """The Operations that consume any component tensor."""
        out = []
        for t in (self.flat_values,) + self.nested_row_splits:
            out.extend(op for op in t.consumers() if op not in out)
        return out

    def to_list(self):
        """Nested Python lists: eager only, as in TensorFlow (fetch the tensor with
        `Session.run` and call the value's `to_list()` in a graph).

        Raises:
          ValueError: always, in graph mode.
        """
        raise ValueError("to_list can only be used in eager mode.")

    # -- Session.run support ---------------------------------------------------------------
    def _fetch_components(self):
        parts = [self.flat_values] + list(self.nested_row_splits)

        def rebuild(values):
            result = values[0]
            for splits in reversed(values[1:]):
                result = RaggedTensorValue(result, splits)
            return result
        return parts, rebuild

    def _feed_components(self, value):
        if not isinstance(value, RaggedTensorValue):
            raise TypeError(f"A RaggedTensor must be fed a RaggedTensorValue; got "
                            f"{type(value).__name__}")
        if value.ragged_rank != self.ragged_rank:
            raise ValueError(f"A RaggedTensor of ragged_rank {self.ragged_rank} may not be fed "
                             f"a RaggedTensorValue of ragged_rank {value.ragged_rank}")
        return list(zip([self.flat_values] + list(self.nested_row_splits),
                        [value.flat_values] + list(value.nested_row_splits)))

    def __repr__(self):
        return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")


def constant(value, dtype):
    """A scalar Const of `dtype` (the static nrows and lengths)."""
    return convert_to_tensor(np.asarray(value, dtype.as_numpy_dtype))


def _uniform_lengths(values, axis, dtype):
    """Row lengths along uniform `axis` of dense `values`: that dimension's size, for
    each entry of the dimensions before it."""
    shape = shape_op(values, out_type=dtype)
    return fill(shape[:axis], shape[axis])


def is_ragged(value):
    """True for a RaggedTensor or RaggedTensorValue."""
    return isinstance(value, (RaggedTensor, RaggedTensorValue))


def convert_to_tensor_or_ragged_tensor(value, dtype=None, preferred_dtype=None, name=None):
    """A RaggedTensor as is, a RaggedTensorValue as a RaggedTensor of constants, anything
    else through `convert_to_tensor`."""
    if isinstance(value, RaggedTensor):
        if dtype and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} "
                             f"for RaggedTensor with dtype {value.dtype.name}: {value}")
        return value
    if isinstance(value, RaggedTensorValue):
        with name_scope(name, "ConvertToTensorOrRaggedTensor", []):
            flat = convert_to_tensor(value.flat_values, dtype=dtype, name="flat_values",
                                     preferred_dtype=preferred_dtype)
            return RaggedTensor.from_nested_row_splits(flat, value.nested_row_splits,
                                                       validate=False)
    return convert_to_tensor(value, dtype=dtype, preferred_dtype=preferred_dtype, name=name)
