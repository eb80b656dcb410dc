"""Sparse <-> dense: SparseToDense and SparseReorder ops, sparse_placeholder,
sparse_tensor_to_dense / sparse_to_dense / sparse_reorder; SparseFillEmptyRows (and its
gradient op): `sparse_fill_empty_rows` gives every empty row one (row, 0, ...) entry."""
import itertools

import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.sparse_tensor import SparseTensor, SparseTensorValue
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import TensorShape, dimension_value
from trainflow._src.ops.array.shape_util import (
    as_index_list, dims_of, fmt_dims, invalid_argument, merge_dim, shape_from_shape_tensor,
    shape_of, with_rank, with_rank_at_most)
from trainflow._src.framework.constant_op import placeholder, placeholder_with_default
from trainflow._src.framework.sparse_tensor import _static_shape
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import range as range_, zeros, zeros_like
from trainflow._src.ops.array.gather import gather, gather_nd, invert_permutation
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.array.shape import shape
from trainflow._src.ops.math.reductions import reduce_sum

__all__ = ["sparse_placeholder", "sparse_tensor_to_dense", "sparse_to_dense", "sparse_reorder",
           "sparse_fill_empty_rows", "sparse_cross", "sparse_cross_hashed"]

_ORDER_HINT = ("Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a "
               "correctly ordered copy.\n\n")


def _sparse_to_dense_shape(op):
    with_rank_at_most(dims_of(op.inputs[0]), 2)
    with_rank_at_most(dims_of(op.inputs[1]), 1)
    with_rank(dims_of(op.inputs[3]), 0)
    return [shape_of(shape_from_shape_tensor(op.inputs[1]))]


def _index_text(row):
    return "[" + ",".join(str(int(v)) for v in row) + "]"


def _validate_sparse_indices(idx, shape):
    """TF's checks, in row order: each index in bounds, and after the one before it."""
    n = idx.shape[0]
    if n == 0:
        return
    limits = np.asarray(shape, dtype=np.int64)
    out_of_bounds = ((idx < 0) | (idx >= limits)).any(axis=1)
    first_bad = int(np.argmax(out_of_bounds)) if out_of_bounds.any() else n
    order_bad = n
    if n > 1 and len(shape):
        keys = np.ravel_multi_index(np.clip(idx, 0, np.maximum(limits - 1, 0)).T, shape)
        step = np.diff(keys)
        bad = np.flatnonzero(step <= 0)
        if bad.size:
            order_bad = int(bad[0]) + 1
    if first_bad <= order_bad and first_bad < n:
        raise invalid_argument(f"indices[{first_bad}] = {_index_text(idx[first_bad])} is out of "
                               f"bounds: need 0 <= index < {fmt_dims(shape)}")
    if order_bad < n:
        i = order_bad
        if (idx[i] == idx[i - 1]).all():
            raise invalid_argument(f"indices[{i}] = {_index_text(idx[i])} is repeated")
        raise invalid_argument(f"indices[{i}] = {_index_text(idx[i])} is out of order. "
                               + _ORDER_HINT)


def _sparse_to_dense_kernel(sparse_indices, output_shape, sparse_values, default_value, *,
                            validate_indices):
    if sparse_indices.ndim > 2:
        raise invalid_argument(f"sparse_indices should be a scalar, vector, or matrix, got shape "
                               f"{fmt_dims(sparse_indices.shape)}")
    if output_shape.ndim > 1:
        raise invalid_argument(f"output_shape should be a scalar or vector, got shape "
                               f"{fmt_dims(output_shape.shape)}")
    shape = as_index_list(output_shape)
    n = sparse_indices.shape[0] if sparse_indices.ndim > 0 else 1
    rank = sparse_indices.shape[1] if sparse_indices.ndim > 1 else 1
    idx = sparse_indices.reshape(n, rank)
    if rank != len(shape):
        raise invalid_argument(f"output_shape has incorrect number of elements: {len(shape)} "
                               f"should be: {rank}")
    if np.ndim(sparse_values) not in (0, 1) or (np.ndim(sparse_values) == 1 and
                                                 np.shape(sparse_values)[0] != n):
        raise invalid_argument(f"sparse_values has incorrect shape "
                               f"{fmt_dims(np.shape(sparse_values))}, should be [] or [{n}]")
    if np.ndim(default_value) != 0:
        raise invalid_argument(f"default_value should be a scalar, got shape "
                               f"{fmt_dims(np.shape(default_value))}")
    if validate_indices:
        _validate_sparse_indices(idx, shape)
    else:
        limits = np.asarray(shape, dtype=np.int64)
        bad = ((idx < 0) | (idx >= limits)).any(axis=1)
        if bad.any():
            i = int(np.argmax(bad))
            raise invalid_argument(f"indices[{i}] = {_index_text(idx[i])} is out of bounds: "
                                   f"need 0 <= index < {fmt_dims(shape)}")
    out = np.full(shape, default_value, dtype=np.asarray(default_value).dtype)
    if n:
        out[tuple(idx.T)] = sparse_values
    return out


register_op("SparseToDense",
            inputs=["sparse_indices: Tindices", "output_shape: Tindices", "sparse_values: T",
                    "default_value: T"],
            outputs=["dense: T"],
            attrs=["validate_indices: bool = true", "T: type", "Tindices: {int32, int64}"],
            shape_fn=_sparse_to_dense_shape, kernel=_sparse_to_dense_kernel)


@RegisterGradient("SparseToDense")
def _sparse_to_dense_grad(op, grad):
    """Values get the gradient at their indices; the default value gets the rest."""
    sparse_indices, output_shape = op.inputs[0], op.inputs[1]
    values_grad = gather_nd(grad, sparse_indices)
    default_grad = reduce_sum(grad) - reduce_sum(values_grad)
    return [zeros_like(sparse_indices), zeros_like(output_shape), values_grad, default_grad]


def _sparse_reorder_shape(op):
    idx = with_rank(dims_of(op.inputs[0]), 2)
    vals = with_rank(dims_of(op.inputs[1]), 1)
    shp = with_rank(dims_of(op.inputs[2]), 1)
    n = merge_dim(idx[0], vals[0])
    r = merge_dim(idx[1], shp[0])
    return [TensorShape([n, r]), TensorShape([n])]


def _sparse_reorder_kernel(input_indices, input_values, input_shape):
    if input_indices.ndim != 2:
        raise invalid_argument(f"Input indices should be a matrix but received shape "
                               f"{fmt_dims(input_indices.shape)}")
    if input_values.ndim != 1:
        raise invalid_argument(f"Input values should be a vector but received shape "
                               f"{fmt_dims(input_values.shape)}")
    order = np.lexsort(input_indices.T[::-1]) if input_indices.shape[1] else \
        np.arange(input_indices.shape[0])
    return input_indices[order], input_values[order]


register_op("SparseReorder", inputs=["input_indices: int64", "input_values: T",
                                     "input_shape: int64"],
            outputs=["output_indices: int64", "output_values: T"], attrs=["T: type"],
            shape_fn=_sparse_reorder_shape, kernel=_sparse_reorder_kernel)


@RegisterGradient("SparseReorder")
def _sparse_reorder_grad(op, unused_indices_grad, values_grad):
    """Gathers the values' gradient back into the input order: reordering the entry
    numbers 0..n-1 gives the permutation, whose inverse undoes it."""
    input_indices, input_shape = op.inputs[0], op.inputs[2]
    entries = range_(shape(input_indices)[0])
    ordered = sparse_reorder(SparseTensor(input_indices, entries, input_shape))
    return None, gather(values_grad, invert_permutation(ordered.values)), None


def _as_sparse(sp_input):
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor.from_value(sp_input)
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    return sp_input


def sparse_tensor_to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor of a SparseTensor (`tf.sparse.to_dense`, a SparseToDense op).

    Raises:
      TypeError: if `sp_input` is not a SparseTensor (or SparseTensorValue).
    """
    sp_input = _as_sparse(sp_input)
    if default_value is None:
        default_value = zeros([], dtype=sp_input.dtype)
    return apply_op("SparseToDense", sparse_indices=sp_input.indices,
                    output_shape=sp_input.dense_shape, sparse_values=sp_input.values,
                    default_value=default_value, validate_indices=validate_indices,
                    name=name).outputs[0]


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
                    validate_indices=True, name=None):
    """A dense tensor from indices and values (TF1 `tf.sparse_to_dense`)."""
    return apply_op("SparseToDense", sparse_indices=sparse_indices, output_shape=output_shape,
                    sparse_values=sparse_values, default_value=default_value,
                    validate_indices=validate_indices, name=name).outputs[0]


def sparse_reorder(sp_input, name=None):
    """The SparseTensor with its indices in row-major order (`tf.sparse.reorder`)."""
    sp_input = _as_sparse(sp_input)
    op = apply_op("SparseReorder", input_indices=sp_input.indices, input_values=sp_input.values,
                  input_shape=sp_input.dense_shape, name=name)
    indices, values = op.outputs
    if sp_input.get_shape().is_fully_defined():
        return SparseTensor(indices, values, sp_input.get_shape().as_list())
    out = SparseTensor(indices, values, identity(sp_input.dense_shape))
    out.set_shape(sp_input.shape)
    return out


def sparse_placeholder(dtype, shape=None, name=None):
    """A SparseTensor of three placeholders, fed with a SparseTensorValue
    (`tf.sparse_placeholder`; `name/values`, `name/indices`, `name/shape`).

    Args:
      dtype: the values' dtype.
      shape: the dense shape (list with None/-1 for unknown sizes, or a 1-D tensor),
        or None for an unknown shape, fed with the rest.
      name: name prefix.
    """
    shape_name = None if name is None else name + "/shape"
    default_shape_name = None if name is None else name + "/shape_default"
    if shape is None:
        rank = None
        dense_shape = placeholder(dtypes.int64, shape=[rank], name=shape_name)
        default = TensorShape(None)
    else:
        if isinstance(shape, Tensor):
            rank = dims_of(shape)[0] if dims_of(shape) else None
            default = _static_shape(shape)
        else:
            rank = len(shape)
            sizes = [dimension_value(d) for d in shape]
            default = TensorShape([None if d is None or d == -1 else d for d in sizes])
            shape = convert_to_tensor(tuple(-1 if d is None else d for d in sizes),
                                      dtype=dtypes.int64, name=default_shape_name)
        dense_shape = placeholder_with_default(shape, shape=shape.shape, name=shape_name)
    values = placeholder(dtype, shape=[None], name=None if name is None else name + "/values")
    indices = placeholder(dtypes.int64, shape=[None, rank],
                          name=None if name is None else name + "/indices")
    result = SparseTensor(values=values, indices=indices, dense_shape=dense_shape)
    result._dense_shape_default = default
    return result


# -- SparseFillEmptyRows ------------------------------------------------------------------
def _fill_kernel(indices, values, dense_shape, default_value):
    indices = np.asarray(indices, np.int64).reshape(-1, max(np.size(dense_shape), 1))
    dense_shape = np.asarray(dense_shape, np.int64)
    if np.ndim(default_value) != 0:
        raise errors.InvalidArgumentError(None, None, "default_value must be a scalar")
    n_rows = int(dense_shape[0]) if dense_shape.size else 0
    rows = indices[:, 0] if len(indices) else np.zeros(0, np.int64)
    if len(rows) and (rows.min() < 0 or rows.max() >= n_rows):
        bad = int(np.flatnonzero((rows < 0) | (rows >= n_rows))[0])
        raise errors.InvalidArgumentError(
            None, None, f"indices({bad}, 0) is invalid: {int(rows[bad])} >= {n_rows}")
    counts = np.bincount(rows, minlength=n_rows) if n_rows else np.zeros(0, np.int64)
    empty = counts == 0
    filled = np.where(empty, 1, counts)
    starts = np.concatenate([[0], np.cumsum(filled)[:-1]]).astype(np.int64) if n_rows \
        else np.zeros(0, np.int64)
    total = int(filled.sum()) if n_rows else 0
    out_idx = np.zeros((total, indices.shape[1]), np.int64)
    values = np.asarray(values)
    out_val = np.empty(total, dtype=values.dtype)
    reverse = np.empty(len(rows), np.int64)
    seen = np.zeros(n_rows, np.int64)
    for i, r in enumerate(rows):
        pos = starts[r] + seen[r]
        seen[r] += 1
        reverse[i] = pos
        out_idx[pos] = indices[i]
        out_val[pos] = values[i]
    for r in np.flatnonzero(empty):
        out_idx[starts[r], 0] = r
        out_val[starts[r]] = default_value
    return out_idx, out_val, empty, reverse


def _fill_shape(op):
    n = op.inputs[0].get_shape().with_rank(2)[1]
    dense_shape = constant_value(op.inputs[2])
    rows = None if dense_shape is None or not np.size(dense_shape) else int(dense_shape[0])
    return [TensorShape([None, n]), TensorShape([None]), TensorShape([rows]),
            TensorShape([None])]


register_op("SparseFillEmptyRows", inputs=["indices: int64", "values: T", "dense_shape: int64",
                                           "default_value: T"],
            outputs=["output_indices: int64", "output_values: T", "empty_row_indicator: bool",
                     "reverse_index_map: int64"],
            attrs=["T: type"], shape_fn=_fill_shape, kernel=_fill_kernel)


def _fill_grad_kernel(reverse_index_map, grad_values):
    grad_values = np.asarray(grad_values)
    d_values = grad_values[np.asarray(reverse_index_map, np.int64)]
    return d_values, (grad_values.sum() - d_values.sum()).astype(grad_values.dtype)


register_op("SparseFillEmptyRowsGrad", inputs=["reverse_index_map: int64", "grad_values: T"],
            outputs=["d_values: T", "d_default_value: T"], attrs=["T: type"],
            shape_fn=lambda op: [op.inputs[0].get_shape(), TensorShape(())],
            kernel=_fill_grad_kernel)


NotDifferentiable("SparseFillEmptyRowsGrad")  # TF registers no gradient for it


@RegisterGradient("SparseFillEmptyRows")
def _fill_grad(op, unused_grad_indices, output_grad_values, unused_empty, unused_reverse):
    d_values, d_default = apply_op("SparseFillEmptyRowsGrad",
                                   reverse_index_map=op.outputs[3],
                                   grad_values=output_grad_values).outputs
    return [None, d_values, None, d_default]


def sparse_fill_empty_rows(sp_input, default_value, name=None):
    """Fills the empty rows of `sp_input` with one `default_value` entry at column 0.

    Returns:
      (the filled SparseTensor, a bool vector: which rows were empty).
    """
    with name_scope(name, "SparseFillEmptyRows", [sp_input]):
        default_value = convert_to_tensor(default_value, dtype=sp_input.values.dtype)
        out = apply_op("SparseFillEmptyRows", indices=sp_input.indices,
                       values=sp_input.values, dense_shape=sp_input.dense_shape,
                       default_value=default_value).outputs
        return SparseTensor(out[0], out[1], sp_input.dense_shape), out[2]


# -- SparseCross ---------------------------------------------------------------------------
_MASK64 = 0xFFFFFFFFFFFFFFFF
_K_MUL = 0xC6A4A7935BD1E995
_DEFAULT_HASH_KEY = 0xDECAFCAFFE


def _shift_mix(val):
    return val ^ (val >> 47)


def fingerprint_cat64(fp1, fp2):
    """TensorFlow's FingerprintCat64: combines two 64-bit fingerprints."""
    result = fp1 ^ _K_MUL
    result ^= (_shift_mix((fp2 * _K_MUL) & _MASK64) * _K_MUL) & _MASK64
    result = (result * _K_MUL) & _MASK64
    result = (_shift_mix(result) * _K_MUL) & _MASK64
    return _shift_mix(result)


def _cross_columns(indices, values, shapes, dense_inputs):
    """Per input (sparse ones first, then dense, as TF orders them): a list of the
    feature values of each batch row."""
    if shapes:
        batch = int(np.asarray(shapes[0])[0])
    else:
        batch = int(np.shape(dense_inputs[0])[0])
    columns = []
    for idx, vals in zip(indices, values):
        rows = [[] for _ in range(batch)]
        for (r, *_), v in zip(np.asarray(idx).reshape(-1, 2), np.asarray(vals).reshape(-1)):
            rows[int(r)].append(v)
        columns.append(rows)
    for dense in dense_inputs:
        dense = np.asarray(dense)
        columns.append([list(dense[b].reshape(-1)) for b in range(batch)])
    return batch, columns


def _feature_hash(v):
    from trainflow._src.ops.string import string_hash  # lazy: a leaf the kernel alone needs
    if isinstance(v, (bytes, str)):
        return string_hash.fingerprint64(v if isinstance(v, bytes) else v.encode())
    return int(v) & _MASK64


def _feature_text(v):
    if isinstance(v, bytes):
        return v
    return str(int(v)).encode()


def _sparse_cross_kernel(indices, values, shapes, dense_inputs, *, hashed_output, num_buckets,
                         hash_key, out_type, **_):
    batch, columns = _cross_columns(indices, values, shapes, dense_inputs)
    out_idx, out_val = [], []
    width = 0
    for b in range(batch):
        rows = [col[b] for col in columns]
        if any(not r for r in rows):
            continue
        for k, combo in enumerate(itertools.product(*rows)):
            if hashed_output:
                h = hash_key & _MASK64
                for v in combo:
                    h = fingerprint_cat64(h, _feature_hash(v))
                out_val.append(h % num_buckets if num_buckets > 0 else h % (2 ** 63 - 1))
            else:
                out_val.append(b"_X_".join(_feature_text(v) for v in combo))
            out_idx.append((b, k))
            width = max(width, k + 1)
    dtype = np.int64 if hashed_output else object
    vals = np.empty(len(out_val), dtype=dtype)
    vals[:] = out_val
    return (np.asarray(out_idx, np.int64).reshape(-1, 2), vals,
            np.asarray([batch, width], np.int64))


register_op("SparseCross", inputs=["indices: N * int64", "values: sparse_types",
                                   "shapes: N * int64", "dense_inputs: dense_types"],
            outputs=["output_indices: int64", "output_values: out_type",
                     "output_shape: int64"],
            attrs=["N: int >= 0", "hashed_output: bool", "num_buckets: int >= 0",
                   "hash_key: int", "sparse_types: list({int64, string}) >= 0",
                   "dense_types: list({int64, string}) >= 0", "out_type: {int64, string}",
                   "internal_type: {int64, string}"],
            shape_fn=lambda op: [TensorShape([None, 2]), TensorShape([None]),
                                 TensorShape([2])],
            kernel=_sparse_cross_kernel)
NotDifferentiable("SparseCross")


def _sparse_cross_internal(inputs, hashed_output=False, num_buckets=0, hash_key=None,
                           name=None):
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    if not all(isinstance(i, (SparseTensor, Tensor)) for i in inputs):
        raise TypeError("All inputs must be SparseTensors")
    sparse_inputs = [i for i in inputs if isinstance(i, SparseTensor)]
    dense_inputs = [i for i in inputs if not isinstance(i, SparseTensor)]
    values = [sp.values for sp in sparse_inputs]
    internal_type = dtypes.string
    for i in range(len(values)):
        if values[i].dtype != dtypes.string:
            values[i] = cast(values[i], dtypes.int64)
            internal_type = dtypes.int64
    for i in range(len(dense_inputs)):
        if dense_inputs[i].dtype != dtypes.string:
            dense_inputs[i] = cast(dense_inputs[i], dtypes.int64)
            internal_type = dtypes.int64
    out = apply_op("SparseCross", indices=[sp.indices for sp in sparse_inputs], values=values,
                   shapes=[sp.dense_shape for sp in sparse_inputs], dense_inputs=dense_inputs,
                   hashed_output=hashed_output, num_buckets=num_buckets,
                   hash_key=hash_key or _DEFAULT_HASH_KEY,
                   out_type=dtypes.int64 if hashed_output else dtypes.string,
                   internal_type=internal_type, name=name).outputs
    return SparseTensor(out[0], out[1], out[2])


def sparse_cross(inputs, name=None):
    """The string crosses ("a_X_b") of the features of each row of `inputs` (Tensors and
    SparseTensors)."""
    return _sparse_cross_internal(inputs, hashed_output=False, name=name)


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The FingerprintCat64-hashed crosses of the features of each row, mod num_buckets."""
    return _sparse_cross_internal(inputs, hashed_output=True, num_buckets=num_buckets,
                                  hash_key=hash_key, name=name)
