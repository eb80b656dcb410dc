"""RaggedCross (`tf.ragged.cross`, `tf.ragged.cross_hashed`) and RaggedFillEmptyRows(Grad)
(`tf.ragged_fill_empty_rows`, `tf.ragged_fill_empty_rows_grad`)."""
__all__ = ["cross", "cross_hashed", "ragged_fill_empty_rows", "ragged_fill_empty_rows_grad"]

import collections
import itertools

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor, is_sparse
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.shape_util import invalid_argument
from trainflow._src.ops.ragged.ragged_tensor import RaggedTensor, \
    convert_to_tensor_or_ragged_tensor
from trainflow._src.ops.sparse.sparse_ops import fingerprint_cat64
from trainflow._src.ops.string.string_hash import fingerprint64

_MASK64 = (1 << 64) - 1
_DEFAULT_HASH_KEY = 0xDECAFCAFFE


def _feature(v, hashed):
    if hashed:
        return fingerprint64(v) if isinstance(v, bytes) else int(v) & _MASK64
    return v if isinstance(v, bytes) else str(int(v)).encode()


def _cross_kernel(ragged_values, ragged_row_splits, sparse_indices, sparse_values,
                  sparse_shape, dense_inputs, *, input_order, hashed_output, num_buckets,
                  hash_key, out_row_splits_type):
    order = input_order.decode() if isinstance(input_order, bytes) else input_order
    sources = {"R": iter(zip(ragged_values, ragged_row_splits)),
               "S": iter(zip(sparse_indices, sparse_values, sparse_shape)),
               "D": iter(dense_inputs)}
    columns, batch = [], None
    for kind in order:
        item = next(sources[kind])
        if kind == "R":
            values, splits = np.asarray(item[0]), np.asarray(item[1])
            rows = [list(values[splits[i]:splits[i + 1]]) for i in range(len(splits) - 1)]
        elif kind == "S":
            idx, values, shape = (np.asarray(x) for x in item)
            rows = [[] for _ in range(int(shape[0]))]
            for (r, *_), v in zip(idx.reshape(-1, 2), values.reshape(-1)):
                rows[int(r)].append(v)
        else:
            dense = np.asarray(item)
            rows = [list(dense[b].reshape(-1)) for b in range(dense.shape[0])]
        if batch is not None and len(rows) != batch:
            raise invalid_argument("inputs must all have the same batch dimension size.")
        batch = len(rows)
        columns.append(rows)
    key = hash_key & _MASK64
    out, splits = [], [0]
    for b in range(batch or 0):
        for combo in itertools.product(*[col[b] for col in columns]):
            if hashed_output:
                h = key
                for v in combo:
                    h = fingerprint_cat64(h, _feature(v, True))
                out.append(h % num_buckets if num_buckets > 0 else h % (2 ** 63 - 1))
            else:
                out.append(b"_X_".join(_feature(v, False) for v in combo))
        splits.append(len(out))
    values = np.empty(len(out), dtype=np.int64 if hashed_output else object)
    values[:] = out
    return values, np.array(splits, dtypes.as_dtype(out_row_splits_type).as_numpy_dtype)


def _cross_shape(op):
    """The row splits have one more entry than the batch, which the ragged inputs' splits
    and the dense inputs' first dimension tell."""
    splits = TensorShape([None])
    n_ragged = len(op.get_attr("ragged_values_types"))
    n_dense = len(op.get_attr("dense_types"))
    for t in op.inputs[n_ragged:2 * n_ragged]:
        splits = splits.merge_with(t.shape.with_rank(1))
    for t in op.inputs[len(op.inputs) - n_dense:]:
        batch = t.shape.with_rank(2).dims[0].value
        splits = splits.merge_with(TensorShape([None if batch is None else batch + 1]))
    return [TensorShape([None]), splits]


register_op("RaggedCross",
            inputs=["ragged_values: ragged_values_types",
                    "ragged_row_splits: ragged_splits_types",
                    "sparse_indices: Nsparse * int64", "sparse_values: sparse_values_types",
                    "sparse_shape: Nsparse * int64", "dense_inputs: dense_types"],
            outputs=["output_values: out_values_type",
                     "output_row_splits: out_row_splits_type"],
            attrs=["Nsparse: int >= 0", "input_order: string", "hashed_output: bool",
                   "num_buckets: int >= 0", "hash_key: int",
                   "ragged_values_types: list({int64, string}) >= 0",
                   "ragged_splits_types: list({int32, int64}) >= 0",
                   "sparse_values_types: list({int64, string}) >= 0",
                   "dense_types: list({int64, string}) >= 0",
                   "out_values_type: {int64, string}", "out_row_splits_type: {int32, int64}"],
            shape_fn=_cross_shape, kernel=_cross_kernel)
NotDifferentiable("RaggedCross")


def _cross(inputs, hashed_output=False, num_buckets=0, hash_key=None, name=None):
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    if hash_key is None:
        hash_key = _DEFAULT_HASH_KEY
    ragged, sparse, dense, order = [], [], [], []
    with name_scope(name, "RaggedCross", inputs):
        for i, t in enumerate(inputs):
            t = SparseTensor.from_value(t) if is_sparse(t) else \
                convert_to_tensor_or_ragged_tensor(t)
            if t.dtype.is_integer:
                t = cast(t, dtypes.int64) if not isinstance(t, RaggedTensor) else \
                    t.with_flat_values(cast(t.flat_values, dtypes.int64))
            elif t.dtype != dtypes.string:
                raise ValueError(f"Unexpected dtype for inputs[{i}]: {t.dtype}")
            if isinstance(t, RaggedTensor):
                if t.ragged_rank != 1:
                    raise ValueError("tf.ragged.cross only supports inputs with rank=2")
                ragged.append(t)
                order.append("R")
            elif isinstance(t, SparseTensor):
                sparse.append(t)
                order.append("S")
            else:
                if t.shape.rank is None:
                    raise ValueError("tf.ragged.cross requires dense inputs to have known "
                                     "rank")
                if t.shape.rank != 2:
                    raise ValueError("tf.ragged.cross only supports inputs with rank=2")
                dense.append(t)
                order.append("D")
        splits_type = dtypes.int32 if ragged and all(
            t.row_splits.dtype == dtypes.int32 for t in ragged) else dtypes.int64
        if hash_key > 2 ** 63:
            hash_key -= 2 ** 64
        values, splits = apply_op(
            "RaggedCross", ragged_values=[t.values for t in ragged],
            ragged_row_splits=[t.row_splits for t in ragged],
            sparse_indices=[t.indices for t in sparse], sparse_values=[t.values for t in sparse],
            sparse_shape=[t.dense_shape for t in sparse], dense_inputs=dense,
            input_order="".join(order), hashed_output=hashed_output, num_buckets=num_buckets,
            hash_key=hash_key, out_values_type=dtypes.int64 if hashed_output else
            dtypes.string, out_row_splits_type=splits_type).outputs
        return RaggedTensor.from_row_splits(values, splits, validate=False)


def cross(inputs, name=None):
    """The feature crosses ("a_X_b") of each row of `inputs` (Tensors, SparseTensors and
    RaggedTensors of rank 2), a RaggedTensor of strings."""
    return _cross(inputs, hashed_output=False, name=name)


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The FingerprintCat64-hashed crosses of each row, mod `num_buckets` (if > 0)."""
    return _cross(inputs, hashed_output=True, num_buckets=num_buckets, hash_key=hash_key,
                  name=name)


def _fill_kernel(value_rowids, values, nrows, default_value):
    rowids = np.asarray(value_rowids, np.int64)
    values = np.asarray(values)
    n = int(nrows)
    if np.any(np.diff(rowids) < 0) or (rowids.size and (rowids[0] < 0 or rowids[-1] >= n)):
        raise invalid_argument("value_rowids must be sorted and in [0, nrows)")
    empty = np.bincount(rowids, minlength=n)[:n] == 0 if n else np.zeros([0], bool)
    filled_rows = np.nonzero(empty)[0]
    out_rowids = np.concatenate([rowids, filled_rows]).astype(np.int64)
    order = np.argsort(out_rowids, kind="stable")
    fill = np.broadcast_to(np.asarray(default_value, values.dtype),
                           (len(filled_rows),) + values.shape[1:])
    out_values = np.concatenate([values, fill])[order]
    reverse = np.empty(len(order), np.int64)
    reverse[order] = np.arange(len(order))
    return out_rowids[order], out_values, empty, reverse[:len(rowids)]


register_op("RaggedFillEmptyRows",
            inputs=["value_rowids: int64", "values: T", "nrows: int64", "default_value: T"],
            outputs=["output_value_rowids: int64", "output_values: T",
                     "empty_row_indicator: bool", "reverse_index_map: int64"],
            attrs=["T: type"],
            shape_fn=lambda op: [TensorShape([None]), TensorShape([None]),
                                 TensorShape([None]), op.inputs[0].shape],
            kernel=_fill_kernel)


def _fill_grad_kernel(reverse_index_map, grad_values):
    grad = np.asarray(grad_values)
    idx = np.asarray(reverse_index_map, np.int64)
    rest = np.ones(len(grad), bool)
    rest[idx] = False
    return grad[idx], grad[rest].sum(axis=0).astype(grad.dtype)


register_op("RaggedFillEmptyRowsGrad",
            inputs=["reverse_index_map: int64", "grad_values: T"],
            outputs=["d_values: T", "d_default_value: T"], attrs=["T: type"],
            shape_fn=lambda op: [op.inputs[0].shape, TensorShape([])],
            kernel=_fill_grad_kernel)
NotDifferentiable("RaggedFillEmptyRowsGrad")


@RegisterGradient("RaggedFillEmptyRows")
def _fill_grad(op, unused_rowids_grad, values_grad, unused_empty_grad, unused_map_grad):
    d_values, d_default = apply_op("RaggedFillEmptyRowsGrad", reverse_index_map=op.outputs[3],
                                   grad_values=values_grad).outputs
    return [None, d_values, None, d_default]


RaggedFillEmptyRows = collections.namedtuple(
    "RaggedFillEmptyRows",
    ["output_value_rowids", "output_values", "empty_row_indicator", "reverse_index_map"])
RaggedFillEmptyRowsGrad = collections.namedtuple("RaggedFillEmptyRowsGrad",
                                                 ["d_values", "d_default_value"])


def ragged_fill_empty_rows(value_rowids, values, nrows, default_value, name=None):
    """The raw RaggedFillEmptyRows op: one `default_value` in each empty row."""
    return RaggedFillEmptyRows(*apply_op("RaggedFillEmptyRows", value_rowids=value_rowids,
                                         values=values, nrows=nrows,
                                         default_value=default_value, name=name).outputs)


def ragged_fill_empty_rows_grad(reverse_index_map, grad_values, name=None):
    """The raw RaggedFillEmptyRowsGrad op: the gradients of the values and the default."""
    return RaggedFillEmptyRowsGrad(*apply_op("RaggedFillEmptyRowsGrad",
                                             reverse_index_map=reverse_index_map,
                                             grad_values=grad_values, name=name).outputs)
