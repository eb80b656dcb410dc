"""`tf.sets`: set operations along the last dimension of dense or sparse tensors, with
sparse results (DenseToDenseSetOperation, DenseToSparseSetOperation,
SparseToSparseSetOperation, SetSize; none differentiable, as in TensorFlow)."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.sparse_tensor import (
    SparseTensor, convert_to_tensor_or_sparse_tensor)
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, fmt_dims, invalid_argument, shape_of)

__all__ = ["set_difference", "set_intersection", "set_size", "set_union"]

_VALID_DTYPES = frozenset([dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
                           dtypes.uint16, dtypes.string])
_T = "T: {int8, int16, int32, int64, uint8, uint16, string}"
_OPERATIONS = ("a-b", "b-a", "intersection", "union")


# -- kernels ---------------------------------------------------------------------------------
def _dense_groups(x):
    """{group index tuple: set of values} of a dense array (rank >= 2), and its group shape."""
    x = np.asarray(x)
    if x.ndim < 2:
        raise invalid_argument(f"Expected rank >= 2 but got rank {x.ndim}")
    groups = {}
    for group in np.ndindex(*x.shape[:-1]):
        groups[group] = set(x[group].tolist())
    return groups, list(x.shape[:-1])


def _sparse_groups(indices, values, shape, validate):
    """{group index tuple: set of values} of a sparse tensor's parts, and its group shape."""
    indices = np.asarray(indices, np.int64)
    values, shape = np.asarray(values), [int(d) for d in np.asarray(shape).tolist()]
    if len(shape) < 2:
        raise invalid_argument(f"Expected rank >= 2 but got rank {len(shape)}")
    if validate:
        for i, row in enumerate(indices.tolist()):
            if any(not 0 <= v < d for v, d in zip(row, shape)):
                raise invalid_argument(f"Invalid indices[{i}] = {row} for shape {shape}")
            if i and row <= indices[i - 1].tolist():
                raise invalid_argument(
                    f"indices[{i}] = [{','.join(map(str, row))}] is out of order. Many "
                    "sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to "
                    "create a correctly ordered copy.")
    groups = {}
    for row, value in zip(indices.tolist(), values.tolist()):
        groups.setdefault(tuple(row[:-1]), set()).add(value)
    return groups, shape[:-1]


def _check_group_shapes(shape1, shape2):
    """The group shape both inputs share (TF: every dimension but the last alike)."""
    if list(shape1) != list(shape2):
        raise invalid_argument(f"Mismatched shapes {list(shape1)} vs {list(shape2)}")
    return list(shape1)


def _combine(groups1, groups2, group_shape, set_operation, dtype):
    op = set_operation.decode() if isinstance(set_operation, bytes) else set_operation
    if op not in _OPERATIONS:
        raise invalid_argument(f"Invalid set_operation {op}.")
    results = []
    for group in sorted(set(groups1) | set(groups2)):
        a, b = groups1.get(group, set()), groups2.get(group, set())
        result = {"a-b": a - b, "b-a": b - a, "intersection": a & b, "union": a | b}[op]
        if result:
            results.append((group, sorted(result)))
    width = max((len(r) for _, r in results), default=0)
    indices = [list(group) + [j] for group, r in results for j in range(len(r))]
    values = [v for _, r in results for v in r]
    out_dtype = object if dtype.kind in "SUO" else dtype
    return (np.array(indices, np.int64).reshape(-1, len(group_shape) + 1),
            np.array(values, dtype=out_dtype).reshape(-1),
            np.array(group_shape + [width], np.int64))


def _dense_to_dense(set1, set2, *, set_operation, validate_indices):
    g1, s1 = _dense_groups(set1)
    g2, s2 = _dense_groups(set2)
    return _combine(g1, g2, _check_group_shapes(s1, s2), set_operation,
                    np.asarray(set1).dtype)


def _dense_to_sparse(set1, set2_indices, set2_values, set2_shape, *, set_operation,
                     validate_indices):
    g1, s1 = _dense_groups(set1)
    g2, s2 = _sparse_groups(set2_indices, set2_values, set2_shape, validate_indices)
    return _combine(g1, g2, _check_group_shapes(s1, s2), set_operation,
                    np.asarray(set1).dtype)


def _sparse_to_sparse(set1_indices, set1_values, set1_shape, set2_indices, set2_values,
                      set2_shape, *, set_operation, validate_indices):
    g1, s1 = _sparse_groups(set1_indices, set1_values, set1_shape, validate_indices)
    g2, s2 = _sparse_groups(set2_indices, set2_values, set2_shape, validate_indices)
    return _combine(g1, g2, _check_group_shapes(s1, s2), set_operation,
                    np.asarray(set1_values).dtype)


def _set_size(set_indices, set_values, set_shape, *, validate_indices):
    groups, group_shape = _sparse_groups(set_indices, set_values, set_shape, validate_indices)
    out = np.zeros(group_shape, np.int32)
    for group, values in groups.items():
        out[group] = len(values)
    return out


# -- shapes and registrations ----------------------------------------------------------------
def _operand(t, kind):
    """(rank, group dims) of a dense operand or of a sparse one's dense_shape input; either
    may be None when unknown."""
    dims = dims_of(t)
    if dims is None:
        return None, None
    if kind == "dense":
        return len(dims), list(dims[:-1])
    return dims[0], None


def _set_operation_shape(kinds):
    def shape_fn(op):
        rank, group = None, None
        for t, kind in zip(op.inputs, kinds):
            if kind is None:
                continue
            r, g = _operand(t, kind)
            if r is None:
                continue
            if r < 2:
                raise ValueError(f"Shape must be at least rank 2 but is rank {r} for "
                                 f"'{op.name}'")
            if rank is not None and r != rank:
                raise ValueError(f"Dimension must be {rank} but is {r} for '{op.name}'")
            rank = r
            if g is not None and group is not None:
                for i, (d1, d2) in enumerate(zip(group, g)):
                    if d1 is not None and d2 is not None and d1 != d2:
                        raise ValueError(
                            f"Dimension {i} in both shapes must be equal, but are {d1} and "
                            f"{d2}. Shapes are {fmt_dims(group)} and {fmt_dims(g)}. for "
                            f"'{op.name}'")
            group = g if group is None else group
        return [shape_of([None, rank]), shape_of([None]), shape_of([rank])]
    return shape_fn


_SET_ATTRS = ["set_operation: string", "validate_indices: bool = true", _T]
_OUTPUTS = ["result_indices: int64", "result_values: T", "result_shape: int64"]
register_op("DenseToDenseSetOperation", inputs=["set1: T", "set2: T"], outputs=_OUTPUTS,
            attrs=_SET_ATTRS, shape_fn=_set_operation_shape(["dense", "dense"]),
            kernel=_dense_to_dense)
register_op("DenseToSparseSetOperation",
            inputs=["set1: T", "set2_indices: int64", "set2_values: T", "set2_shape: int64"],
            outputs=_OUTPUTS, attrs=_SET_ATTRS,
            shape_fn=_set_operation_shape(["dense", None, None, "sparse"]),
            kernel=_dense_to_sparse)
register_op("SparseToSparseSetOperation",
            inputs=["set1_indices: int64", "set1_values: T", "set1_shape: int64",
                    "set2_indices: int64", "set2_values: T", "set2_shape: int64"],
            outputs=_OUTPUTS, attrs=_SET_ATTRS,
            shape_fn=_set_operation_shape([None, None, "sparse", None, None, "sparse"]),
            kernel=_sparse_to_sparse)


def _set_size_shape(op):
    return [UNKNOWN]  # TF's: the group shape is known only when the op runs


register_op("SetSize", inputs=["set_indices: int64", "set_values: T", "set_shape: int64"],
            outputs=["size: int32"], attrs=["validate_indices: bool = true", _T],
            shape_fn=_set_size_shape, kernel=_set_size)
for _op_type in ("SetSize", "DenseToDenseSetOperation", "DenseToSparseSetOperation",
                 "SparseToSparseSetOperation"):
    NotDifferentiable(_op_type)


# -- graph functions -------------------------------------------------------------------------
def set_size(a, validate_indices=True):
    """The number of unique values in each group of the last dimension of `a` (`SetSize`):
    an int32 tensor of a's shape without its last dimension.

    Raises:
      TypeError: if `a` is not a SparseTensor or has a dtype sets don't take.
    """
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    if a.values.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"Invalid dtype `{a.values.dtype}` not in supported dtypes: "
                        f"`{_VALID_DTYPES}`.")
    return apply_op("SetSize", set_indices=a.indices, set_values=a.values,
                    set_shape=a.dense_shape, validate_indices=validate_indices).outputs[0]


def _convert(a, b):
    """(a, b, flipped): converted inputs, a sparse a before a dense b flipped to dense first."""
    a = convert_to_tensor_or_sparse_tensor(a, name="a")
    if a.dtype.base_dtype not in _VALID_DTYPES:
        raise TypeError(f"'a' has invalid dtype `{a.dtype}` not in supported dtypes: "
                        f"`{_VALID_DTYPES}`.")
    b = convert_to_tensor_or_sparse_tensor(b, name="b")
    if b.dtype.base_dtype != a.dtype.base_dtype:
        raise TypeError(f"Types don't match, {a.dtype} vs {b.dtype}.")
    if isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        return b, a, True
    return a, b, False


def _set_operation(a, b, set_operation, validate_indices):
    attrs = {"set_operation": set_operation, "validate_indices": validate_indices}
    if isinstance(a, SparseTensor):
        op = apply_op("SparseToSparseSetOperation", set1_indices=a.indices,
                      set1_values=a.values, set1_shape=a.dense_shape, set2_indices=b.indices,
                      set2_values=b.values, set2_shape=b.dense_shape, **attrs)
    elif isinstance(b, SparseTensor):
        op = apply_op("DenseToSparseSetOperation", set1=a, set2_indices=b.indices,
                      set2_values=b.values, set2_shape=b.dense_shape, **attrs)
    else:
        op = apply_op("DenseToDenseSetOperation", set1=a, set2=b, **attrs)
    return SparseTensor(*op.outputs)


def set_intersection(a, b, validate_indices=True):
    """The intersection of the sets in the last dimension of `a` and `b` (dense or sparse,
    all other dimensions alike), as a SparseTensor of sorted values per group."""
    a, b, _ = _convert(a, b)
    return _set_operation(a, b, "intersection", validate_indices)


def set_difference(a, b, aminusb=True, validate_indices=True):
    """The values of each set of `a` not in `b`'s (`b` minus `a` if not `aminusb`), as a
    SparseTensor of sorted values per group."""
    a, b, flipped = _convert(a, b)
    if flipped:
        aminusb = not aminusb
    return _set_operation(a, b, "a-b" if aminusb else "b-a", validate_indices)


def set_union(a, b, validate_indices=True):
    """The union of the sets in the last dimension of `a` and `b`, as a SparseTensor of
    sorted values per group."""
    a, b, _ = _convert(a, b)
    return _set_operation(a, b, "union", validate_indices)
