"""`RaggedTensor.__getitem__` (rows by index or by slice, then the dimensions inside a
selected row, a slice of every row along a ragged dimension) and the element-wise
operators, installed on RaggedTensor when this module loads."""
import numpy as np

from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import size
from trainflow._src.ops.math import arith
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import range as range_
from trainflow._src.ops.array.gather import where
from trainflow._src.ops.ragged.ragged_array_ops import gather_rows
from trainflow._src.ops.ragged.ragged_factory import map_flat_values, range as ragged_range
from trainflow._src.ops.ragged.ragged_tensor import RaggedTensor


def _is_full_slice(key):
    return isinstance(key, slice) and key.start is None and key.stop is None and \
        key.step is None


def _getitem(self, key):
    """Rows of the ragged tensor: `rt[i]` is row i (a Tensor or RaggedTensor), `rt[a:b]`
    the rows a..b-1; later keys index inside the selected row; after a slice of rows, a
    ragged dimension takes slices (`rt[:, :3]` cuts every row) and the uniform inner
    dimensions any key.

    Raises:
      ValueError: for an int index into an inner ragged dimension, for a ragged
        dimension's slice with a step that is not a nonzero int, and for Ellipsis /
        newaxis.
      TypeError: for keys that are not ints, slices or int scalars.
    """
    keys = key if isinstance(key, tuple) else (key,)
    if not keys:
        return self
    with name_scope(None, "RaggedGetItem", [self, keys]):
        return _rows(self, keys[0], keys[1:])


def _check_key(k):
    if k is Ellipsis or k is None:
        raise ValueError("Ellipsis and tf.newaxis are not supported when indexing a "
                         "RaggedTensor in trainflow's graph mode")
    if isinstance(k, slice):
        for part in (k.start, k.stop):
            if part is not None and not isinstance(part, (int, np.integer, Tensor)):
                raise TypeError(f"slice indices must be integers or tensors; got {part!r}")
        return
    if isinstance(k, (int, np.integer)) or (isinstance(k, Tensor) and k.shape.rank == 0):
        return
    raise TypeError(f"Indices must be integers, slices or scalar int tensors; got {k!r}")


def _rows(rt, row_key, inner):
    _check_key(row_key)

    if not isinstance(row_key, slice):
        starts, limits = rt.row_splits[:-1], rt.row_splits[1:]
        row = rt.values[starts[row_key]:limits[row_key]]
        return _index(row, inner)
    if _is_full_slice(row_key):
        result = rt
    elif row_key.step not in (None, 1):
        rows = range_(rt.nrows())[row_key]
        result = gather_rows(rt, rows)
        count = rows.shape.dims[0].value
        if count is not None:  # TF's strided row selection keeps the static row count
            result.row_splits.set_shape([count + 1])
    else:
        new_starts = rt.row_splits[:-1][row_key]
        new_limits = rt.row_splits[1:][row_key]
        zero = np.zeros([1], rt.row_splits.dtype.as_numpy_dtype)
        zero_pad = convert_to_tensor(zero)[size(new_starts):]
        new_splits = concat([zero_pad, new_starts[:1], new_limits], axis=0)
        first, last = new_splits[0], new_splits[-1]
        result = RaggedTensor.from_row_splits(rt.values[first:last], new_splits - first,
                                              validate=False)
    if not inner:
        return result
    ragged_key, rest = inner[0], inner[1:]
    _check_key(ragged_key)
    if not isinstance(ragged_key, slice):
        raise ValueError("Cannot index into an inner ragged dimension.")
    if not (ragged_key.step is None or isinstance(ragged_key.step, (int, np.integer)) and
            ragged_key.step != 0):
        raise ValueError("Slicing a ragged dimension takes a nonzero int step")
    if not _is_full_slice(ragged_key):
        result = _slice_each_row(result, ragged_key)
    if not rest:
        return result
    if isinstance(result.values, RaggedTensor):
        return result.with_values(_rows(result.values, slice(None), rest))
    return result.with_values(result.values[(slice(None),) + tuple(rest)])


def _bound(bound, lengths, default, low):
    """A slice bound for every row: negative ones count from the row's end; clipped to
    [low, length + low] (low is -1 for a negative step, as Python's slices)."""
    if bound is None:
        return default
    if isinstance(bound, Tensor):
        bound = cast(bound, lengths.dtype)
        value = where(bound < 0, lengths + bound, lengths * 0 + bound)
    else:
        value = lengths + int(bound) if bound < 0 else lengths * 0 + int(bound)
    return arith.minimum(arith.maximum(value, low), lengths + low)


def _slice_each_row(rt, key):
    """`rt[:, start:stop:step]`: the same slice of every row (Python's rules per row)."""
    starts, limits = rt.row_splits[:-1], rt.row_splits[1:]
    lengths = limits - starts
    step = 1 if key.step is None else int(key.step)
    if step > 0:
        lo = _bound(key.start, lengths, lengths * 0, 0)
        hi = arith.maximum(_bound(key.stop, lengths, lengths, 0), lo)
    else:
        lo = _bound(key.start, lengths, lengths - 1, -1)
        hi = arith.minimum(_bound(key.stop, lengths, lengths * 0 - 1, -1), lo)
    spans = ragged_range(starts + lo, starts + hi, step, row_splits_dtype=rt.row_splits.dtype)
    return RaggedTensor.from_row_splits(gather_rows(rt.values, spans.values),
                                        spans.row_splits, validate=False)


def _index(value, keys):
    if not keys:
        return value
    if isinstance(value, RaggedTensor):
        return _rows(value, keys[0], keys[1:])
    return value[keys]


RaggedTensor.__getitem__ = _getitem


def _binary(fn, reverse=False):
    def method(self, other):
        if isinstance(other, RaggedTensor):
            x, y = (other, self) if reverse else (self, other)
            return map_flat_values(fn, x, y)
        other = convert_to_tensor(other, dtype=self.dtype) \
            if not isinstance(other, Tensor) else other
        inner_rank = self.flat_values.shape.rank
        if other.shape.rank is None or inner_rank is None or \
                other.shape.rank > inner_rank - 1:
            raise ValueError("A dense operand of a RaggedTensor operator must broadcast "
                             "against the uniform inner dimensions (its rank at most "
                             f"{None if inner_rank is None else inner_rank - 1}); got "
                             f"shape {other.shape}")
        flat = self.flat_values
        return self.with_flat_values(fn(other, flat) if reverse else fn(flat, other))
    return method


def _unary(fn):
    return lambda self: self.with_flat_values(fn(self.flat_values))


for _name, _fn in (("add", arith.add), ("sub", arith.subtract), ("mul", arith.multiply),
                   ("truediv", arith.truediv), ("floordiv", arith.floordiv),
                   ("mod", arith.floormod), ("pow", arith.pow),
                   ("and", arith.logical_and), ("or", arith.logical_or),
                   ("xor", arith.logical_xor)):
    setattr(RaggedTensor, f"__{_name}__", _binary(_fn))
    setattr(RaggedTensor, f"__r{_name}__", _binary(_fn, reverse=True))
for _name, _fn in (("lt", arith.less), ("le", arith.less_equal), ("gt", arith.greater),
                   ("ge", arith.greater_equal)):
    setattr(RaggedTensor, f"__{_name}__", _binary(_fn))
RaggedTensor.__neg__ = _unary(arith.negative)
RaggedTensor.__abs__ = _unary(arith.abs)
RaggedTensor.__invert__ = _unary(arith.logical_not)
