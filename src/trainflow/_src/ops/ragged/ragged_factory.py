"""Making ragged tensors: `tf.ragged.constant`, `constant_value`, `placeholder`, `range`,
and `map_flat_values`."""
__all__ = ["constant", "constant_value", "placeholder", "range", "map_flat_values"]

import builtins

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant as constant_op, placeholder as \
    placeholder_op
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value as static_value
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.control_flow import check_ops
from trainflow._src.ops.ragged import ragged_conversion  # noqa: F401 - registers RaggedRange
from trainflow._src.ops.ragged.ragged_tensor import RaggedTensor
from trainflow._src.ops.ragged.ragged_value import RaggedTensorValue


def _is_list(x):
    return isinstance(x, (list, tuple)) or np.ndim(x) != 0


def _depths(pylist):
    """(depth of the scalars or None when there are none, deepest list nesting)."""
    if not _is_list(pylist):
        return 0, 0
    scalar, deepest = None, 1
    for child in pylist:
        s, d = _depths(child)
        if s is not None:
            if scalar is not None and scalar != s + 1:
                raise ValueError("all scalar values must have the same nesting depth")
            scalar = s + 1
        deepest = max(deepest, d + 1)
    return scalar, deepest


def _default_inner_shape(pylist, ragged_rank):
    def inner_shape(item):
        if not _is_list(item):
            return ()
        return (len(item),) + inner_shape(item[0]) if len(item) else (0,)

    def check(item, shape):
        if _is_list(item) != bool(shape):
            raise ValueError("inner values have inconsistent shape")
        if _is_list(item):
            if shape[0] != len(item):
                raise ValueError("inner values have inconsistent shape")
            for child in item:
                check(child, shape[1:])

    flat = pylist
    for dim in builtins.range(ragged_rank):
        if not all(_is_list(v) for v in flat):
            raise ValueError(f"pylist has scalar values depth {dim + 1}, but ragged_rank="
                             f"{ragged_rank} requires scalar value depth greater than "
                             f"{ragged_rank}")
        flat = sum((list(v) for v in flat), [])
    shape = inner_shape(flat)
    check(flat, shape)
    return shape[1:]


def _build(ragged_factory, inner_factory, pylist, dtype, ragged_rank, inner_shape):
    """The nested splits of `pylist` and its flat values, made by the two factories."""
    if isinstance(pylist, (RaggedTensor, RaggedTensorValue)):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    if not _is_list(pylist):
        if ragged_rank is not None and ragged_rank != 0:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with "
                             f"ragged_rank={ragged_rank}")
        if inner_shape is not None and inner_shape:
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with "
                             f"dim(inner_shape)={len(inner_shape)}")
        return inner_factory(pylist, dtype, ())
    if ragged_rank is not None and ragged_rank < 0:
        raise ValueError(f"Invalid ragged_rank={ragged_rank!r}: must be nonnegative")
    scalar_depth, max_depth = _depths(pylist)
    if scalar_depth is not None and max_depth > scalar_depth:
        raise ValueError(f"Invalid pylist={pylist!r}: empty list nesting is greater than "
                         "scalar value nesting")
    if ragged_rank is not None and max_depth < ragged_rank:
        raise ValueError(f"Invalid pylist={pylist!r}, max depth smaller than ragged_rank="
                         f"{ragged_rank}")
    if inner_shape is not None and ragged_rank is not None:
        expected = ragged_rank + len(inner_shape) + 1
        if (scalar_depth is not None and expected != scalar_depth) or \
                (scalar_depth is None and expected < max_depth):
            raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank="
                             f"{ragged_rank} and dim(inner_shape)={len(inner_shape)}")
    if ragged_rank == 0 or (ragged_rank is None and (
            max_depth < 2 or (inner_shape is not None and max_depth - len(inner_shape) < 2))):
        return inner_factory(pylist, dtype, inner_shape)
    if inner_shape is None:
        inner_shape = () if ragged_rank is None else _default_inner_shape(pylist, ragged_rank)
    if ragged_rank is None:
        ragged_rank = max(1, max_depth - 1) if scalar_depth is None else \
            max(1, scalar_depth - 1 - len(inner_shape))
    nested_splits, values = [], pylist
    for _ in builtins.range(ragged_rank):
        splits, flat = [0], []
        for row in values:
            splits.append(splits[-1] + len(row))
            flat.extend(row)
        nested_splits.append(splits)
        values = flat
    values = inner_factory(values, dtype, (len(values),) + tuple(inner_shape), name="values")
    for splits in reversed(nested_splits):
        values = ragged_factory(values, splits)
    return values


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=dtypes.int64):
    """A RaggedTensor of Const ops holding the nested Python list `pylist`."""
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype)

    def ragged_factory(values, splits):
        splits = constant_op(splits, dtype=row_splits_dtype)
        return RaggedTensor.from_row_splits(values, splits, validate=False)

    def inner_factory(pylist, dtype, shape, name=None):
        return constant_op(pylist, dtype=dtype, shape=shape, name=name)

    with name_scope(name, "RaggedConstant"):
        return _build(ragged_factory, inner_factory, pylist, dtype, ragged_rank, inner_shape)


def constant_value(pylist, dtype=None, ragged_rank=None, inner_shape=None,
                   row_splits_dtype="int64"):
    """A RaggedTensorValue (NumPy arrays) holding the nested Python list `pylist`."""
    if dtype is not None and isinstance(dtype, dtypes.DType):
        dtype = dtype.as_numpy_dtype
    row_splits_dtype = dtypes.as_dtype(row_splits_dtype).as_numpy_dtype

    def ragged_factory(values, splits):
        return RaggedTensorValue(values, np.array(splits, dtype=row_splits_dtype))

    def inner_factory(pylist, dtype, shape, name=None):
        return np.reshape(np.array(pylist, dtype=dtype), shape)

    return _build(ragged_factory, inner_factory, pylist, dtype, ragged_rank, inner_shape)


def placeholder(dtype, ragged_rank, value_shape=None, name=None):
    """A RaggedTensor of placeholders (`flat_values`, `row_splits_<i>`), to feed with a
    RaggedTensorValue."""
    if ragged_rank == 0:
        return placeholder_op(dtype, value_shape, name)
    with name_scope(name, "RaggedPlaceholder", []):
        flat_shape = [None] + list(value_shape or ())
        result = placeholder_op(dtype, flat_shape, "flat_values")
        for i in reversed(builtins.range(ragged_rank)):
            splits = placeholder_op(dtypes.int64, [None], f"row_splits_{i}")
            result = RaggedTensor.from_row_splits(result, splits, validate=False)
        return result


_RANGE_ORDER = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)


def range(starts, limits=None, deltas=1, dtype=None, name=None,  # noqa: A001 - TF's name
          row_splits_dtype=dtypes.int64):
    """Row `i` is `range(starts[i], limits[i], deltas[i])` (scalars broadcast); one
    RaggedRange op."""
    if limits is None:
        starts, limits = 0, starts
    with name_scope(name, "RaggedRange", [starts, limits, deltas]) as scope:
        parts = [convert_to_tensor(v, dtype=dtype, name=n)
                 for v, n in ((starts, "starts"), (limits, "limits"), (deltas, "deltas"))]
        if dtype is None:
            widest = max((p.dtype for p in parts),
                         key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else -1)
            parts = [p if p.dtype == widest else cast(p, widest) for p in parts]
        op = apply_op("RaggedRange", starts=parts[0], limits=parts[1], deltas=parts[2],
                      Tsplits=dtypes.as_dtype(row_splits_dtype), name=scope)
        return RaggedTensor.from_row_splits(op.outputs[1], op.outputs[0], validate=False)


def _ragged_leaves(structure, out):
    if isinstance(structure, RaggedTensor):
        out.append(structure)
    elif isinstance(structure, (list, tuple)):
        for item in structure:
            _ragged_leaves(item, out)
    elif isinstance(structure, dict):
        for item in structure.values():
            _ragged_leaves(item, out)
    return out


def _replace_ragged(structure):
    if isinstance(structure, RaggedTensor):
        return structure.flat_values
    if isinstance(structure, (list, tuple)) and not hasattr(structure, "_fields"):
        return type(structure)(_replace_ragged(x) for x in structure)
    if isinstance(structure, dict):
        return {k: _replace_ragged(v) for k, v in structure.items()}
    return structure


def map_flat_values(op, *args, **kwargs):
    """`op` applied to the flat values of the RaggedTensors in args/kwargs (which must
    share their row partitions), wrapped in the same partitions."""
    ragged = _ragged_leaves([args, kwargs], [])
    if not ragged:
        return op(*args, **kwargs)
    first = ragged[0]
    splits = first.nested_row_splits
    checks = []
    for rt in ragged[1:]:
        other = rt.nested_row_splits
        if len(other) != len(splits):
            raise ValueError("Input RaggedTensors have mismatched ragged_rank")
        if any(a.dtype != b.dtype for a, b in zip(splits, other)):
            raise ValueError("Input RaggedTensors have mismatched row_splits dtypes; use "
                             "RaggedTensor.with_row_splits_dtype() to convert them to "
                             "compatible dtypes.")
        for a, b in zip(splits, other):
            if a is b:
                continue
            known_a, known_b = static_value(a), static_value(b)
            if known_a is not None and known_b is not None:
                if known_a.shape != known_b.shape or (known_a != known_b).any():
                    raise ValueError("Input RaggedTensors have mismatched row partitions: "
                                     f"{known_a.tolist()} vs {known_b.tolist()}")
                continue
            checks.append(check_ops.assert_equal(a, b, message="Inputs must have identical "
                                                 "ragged splits"))
    with control_dependencies(checks):
        args, kwargs = _replace_ragged(list(args)), _replace_ragged(kwargs)
        if checks:
            args = [identity(a) if a is first.flat_values else a for a in args]
    return first.with_flat_values(op(*args, **kwargs))
