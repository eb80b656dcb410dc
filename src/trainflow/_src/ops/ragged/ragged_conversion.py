"""RaggedTensorToTensor, RaggedTensorToSparse and RaggedRange: registrations, NumPy
kernels and gradients."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import range as range_
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import reshape, shape
from trainflow._src.ops.array.shape_util import invalid_argument
from trainflow._src.ops.array.slicing import strided_slice
from trainflow._src.ops.math.reductions import reduce_sum
from trainflow._src.ops.math.segment import unsorted_segment_sum


def _splits_from_partitions(types, partitions, nvals):
    """Row splits of every level from TF's row partition tensors (ROW_SPLITS,
    VALUE_ROWIDS after FIRST_DIM_SIZE)."""
    types = [t.decode() if isinstance(t, bytes) else t for t in types]
    out, nrows, k = [], None, 0
    if types and types[0] == "FIRST_DIM_SIZE":
        nrows = int(np.asarray(partitions[0]))
        types, partitions = types[1:], partitions[1:]
    for kind, part in zip(types, partitions):
        part = np.asarray(part, dtype=np.int64)
        if kind == "ROW_SPLITS":
            if part.size == 0 or part[0] != 0 or np.any(np.diff(part) < 0):
                raise invalid_argument("Invalid row split: row_splits must start with 0 and "
                                       "be sorted")
            out.append(part)
        elif kind == "VALUE_ROWIDS":
            if nrows is None:
                nrows = int(out[-1][-1]) if out else 0
            if np.any(part < 0) or np.any(part >= max(nrows, 0)) or np.any(np.diff(part) < 0):
                raise invalid_argument("value_rowids must be sorted and in [0, nrows)")
            lengths = np.bincount(part, minlength=nrows)[:nrows]
            out.append(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))
        else:
            raise invalid_argument(f"Unsupported row partition type: {kind}")
        nrows = None
        k += 1
    last = out[-1][-1] if out else 0
    if last != nvals:
        raise invalid_argument(f"Last row partition does not match flat_values: {last} vs "
                               f"{nvals}")
    for a, b in zip(out, out[1:]):
        if a[-1] != len(b) - 1:
            raise invalid_argument("Row partitions do not match: the values of one level "
                                   "must be the rows of the next")
    return out


def value_coordinates(nested_splits):
    """For each flat value, its index along every ragged dimension: an int64 array
    [nvals, ragged_rank + 1] (row, then position in each ragged dimension)."""
    coords = np.arange(len(nested_splits[0]) - 1, dtype=np.int64)[:, None]
    for splits in nested_splits:
        lengths = np.diff(splits)
        parent = np.repeat(np.arange(len(lengths)), lengths)
        pos = np.arange(splits[-1], dtype=np.int64) - splits[:-1][parent]
        coords = np.concatenate([coords[parent], pos[:, None]], axis=1)
    return coords


def _bounding_shape(nested_splits, values):
    dims = [len(nested_splits[0]) - 1]
    for splits in nested_splits:
        lengths = np.diff(splits)
        dims.append(int(lengths.max()) if lengths.size else 0)
    return dims + list(values.shape[1:])


def _to_tensor_kernel(shape, values, default_value, row_partition_tensors, *,
                      row_partition_types):
    values = np.asarray(values)
    splits = _splits_from_partitions(row_partition_types, row_partition_tensors,
                                     values.shape[0] if values.ndim else 0)
    bound = _bounding_shape(splits, values)
    shape = np.asarray(shape).reshape(-1).tolist() if np.ndim(shape) else None
    if shape is None or np.asarray(shape).size == 0 and len(bound) == 0:
        out_shape = bound
    else:
        if len(shape) != len(bound):
            raise invalid_argument(f"rt_input.shape and shape={shape} are incompatible: "
                                   f"rt_input.rank = {len(bound)} but shape.rank = "
                                   f"{len(shape)}")
        out_shape = [b if s == -1 else int(s) for s, b in zip(shape, bound)]
    ragged = len(splits) + 1
    inner = list(values.shape[1:])
    if out_shape[ragged:] != inner:
        raise invalid_argument(f"Input values shape {list(values.shape)} is incompatible with "
                               f"output shape {out_shape}")
    default_value = np.asarray(default_value, dtype=values.dtype)
    try:
        out = np.array(np.broadcast_to(default_value, out_shape), dtype=values.dtype)
    except ValueError:
        raise invalid_argument(f"default_value.shape={list(default_value.shape)} and "
                               f"rt_input.flat_values.shape={list(values.shape)} are "
                               "incompatible") from None
    coords = value_coordinates(splits)
    keep = np.all(coords < np.asarray(out_shape[:ragged], dtype=np.int64), axis=1)
    out[tuple(coords[keep].T)] = values[keep]
    return out


def _to_tensor_shape(op):
    value_shape = op.inputs[1].shape
    ragged = op.get_attr("num_row_partition_tensors")
    types = op.get_attr("row_partition_types")
    if types and (types[0] in (b"FIRST_DIM_SIZE", "FIRST_DIM_SIZE")):
        ragged -= 1
    rank = None if value_shape.rank is None else value_shape.rank + ragged
    known = constant_value(op.inputs[0])
    if known is not None and np.ndim(known) == 1:
        dims = [None if d < 0 else int(d) for d in known.tolist()]
        if rank is None or len(dims) == rank:
            if rank is not None:
                dims = [d if d is not None else v for d, v in zip(
                    dims, [None] * (ragged + 1) + value_shape.as_list()[1:])]
            return [TensorShape(dims)]
    if rank is None:
        return [TensorShape(None)]
    return [TensorShape([None] * (ragged + 1) + value_shape.as_list()[1:])]


register_op("RaggedTensorToTensor",
            inputs=["shape: Tshape", "values: T", "default_value: T",
                    "row_partition_tensors: num_row_partition_tensors * Tindex"],
            outputs=["result: T"],
            attrs=["T: type", "Tindex: {int64, int32}", "Tshape: {int64, int32}",
                   "num_row_partition_tensors: int >= 1", "row_partition_types: list(string)"],
            shape_fn=_to_tensor_shape, kernel=_to_tensor_kernel)


@RegisterGradient("RaggedTensorToTensor")
def _to_tensor_grad(op, grad):
    """The values' gradient gathers the dense gradient at each value's coordinates (the
    index of every value, densified by the same op, says where); the default value's
    gradient sums the rest."""
    values, default = op.inputs[1], op.inputs[2]
    partitions = list(op.inputs[3:])
    types = op.get_attr("row_partition_types")
    ragged = len(partitions) - (1 if types[0] in (b"FIRST_DIM_SIZE", "FIRST_DIM_SIZE") else 0)
    values_shape = shape(values, out_type=dtypes.int64)
    nvals = strided_slice(values_shape, [0], [1], shrink_axis_mask=1)
    grad_shape = shape(grad, out_type=op.inputs[0].dtype)
    id_grid = apply_op("RaggedTensorToTensor", shape=strided_slice(grad_shape, [0], [ragged + 1]),
                       values=range_(nvals, dtype=dtypes.int64), default_value=np.int64(-1),
                       row_partition_tensors=partitions, row_partition_types=types).outputs[0]
    inner = strided_slice(values_shape, [1], [0], end_mask=1)
    flat_grad = reshape(grad, concat([[-1], inner], 0))
    flat_ids = reshape(id_grid, [-1])
    values_grad = unsorted_segment_sum(flat_grad, flat_ids, nvals)
    inner_rank = values.shape.rank - 1
    mask = reshape(cast(flat_ids < 0, grad.dtype), [-1] + [1] * inner_rank)
    default_grad = reduce_sum(flat_grad * mask, axis=0)
    if default.shape.rank == 0:
        default_grad = reduce_sum(default_grad)
    return [None, values_grad, default_grad] + [None] * len(partitions)


def _to_sparse_kernel(rt_nested_splits, rt_dense_values):
    values = np.asarray(rt_dense_values)
    splits = _splits_from_partitions(["ROW_SPLITS"] * len(rt_nested_splits),
                                     rt_nested_splits, values.shape[0])
    coords = value_coordinates(splits)
    inner = values.shape[1:]
    if inner:
        grid = np.indices(inner).reshape(len(inner), -1).T
        coords = np.concatenate([np.repeat(coords, len(grid), axis=0),
                                 np.tile(grid, (len(coords), 1))], axis=1)
    shape = np.array(_bounding_shape(splits, values), dtype=np.int64)
    return coords.astype(np.int64), values.reshape(-1), shape


def _to_sparse_shape(op):
    values = op.inputs[-1].shape
    dense_rank = None if values.rank is None else values.rank + len(op.inputs) - 1
    count = values.num_elements() if values.is_fully_defined() else None
    return [TensorShape([count, dense_rank]), TensorShape([count]),
            TensorShape([dense_rank])]


register_op("RaggedTensorToSparse",
            inputs=["rt_nested_splits: RAGGED_RANK * Tsplits", "rt_dense_values: T"],
            outputs=["sparse_indices: int64", "sparse_values: T",
                     "sparse_dense_shape: int64"],
            attrs=["RAGGED_RANK: int >= 1", "T: type",
                   "Tsplits: {int32, int64} = DT_INT64"],
            shape_fn=_to_sparse_shape, kernel=_to_sparse_kernel)


@RegisterGradient("RaggedTensorToSparse")
def _to_sparse_grad(op, unused_indices_grad, values_grad, unused_shape_grad):
    return [None] * (len(op.inputs) - 1) + [reshape(values_grad, shape(op.inputs[-1]))]


def _range_kernel(starts, limits, deltas, *, Tsplits):  # noqa: N803 - TF's attr name
    starts, limits, deltas = (np.asarray(x) for x in (starts, limits, deltas))
    for name, x in (("starts", starts), ("limits", limits), ("deltas", deltas)):
        if x.ndim > 1:
            raise invalid_argument(f"{name} must be a scalar or vector")
    n = max([x.shape[0] for x in (starts, limits, deltas) if x.ndim == 1], default=1)
    if any(x.ndim == 1 and x.shape[0] != n for x in (starts, limits, deltas)):
        raise invalid_argument("starts, limits, and deltas must have the same shape")
    starts, limits, deltas = (np.broadcast_to(x, (n,)) for x in (starts, limits, deltas))
    rows, sizes = [], []
    for s, lim, d in zip(starts.tolist(), limits.tolist(), deltas.tolist()):
        if d == 0:
            raise invalid_argument("Requires delta != 0")
        if (d > 0 and lim > s) or (d < 0 and lim < s):
            size = int(np.ceil(abs((lim - s) / d))) if isinstance(s, float) or \
                isinstance(d, float) else (abs(lim - s) + abs(d) - 1) // abs(d)
        else:
            size = 0
        sizes.append(size)
        rows.append(s + d * np.arange(size, dtype=starts.dtype))
    splits = np.concatenate([[0], np.cumsum(sizes)]).astype(dtypes.as_dtype(Tsplits)
                                                             .as_numpy_dtype)
    values = np.concatenate(rows).astype(starts.dtype) if rows else \
        np.zeros([0], starts.dtype)
    return splits, values


def _range_shape(op):
    n = None
    for t in op.inputs:
        if t.shape.rank is not None and t.shape.rank > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {t.shape.rank}")
        if t.shape.rank == 1 and t.shape.dims[0].value is not None:
            size = t.shape.dims[0].value
            if n is not None and size != n:
                raise ValueError(f"Dimensions must be equal, but are {size} and {n}")
            n = size
    if all(t.shape.rank == 0 for t in op.inputs):
        n = 1
    return [TensorShape([None if n is None else n + 1]), TensorShape([None])]


register_op("RaggedRange", inputs=["starts: T", "limits: T", "deltas: T"],
            outputs=["rt_nested_splits: Tsplits", "rt_dense_values: T"],
            attrs=["T: {bfloat16, float, double, int32, int64} = DT_INT32",
                   "Tsplits: {int32, int64} = DT_INT64"],
            shape_fn=_range_shape, kernel=_range_kernel)
NotDifferentiable("RaggedRange")


def _gather_kernel(params_nested_splits, params_dense_values, indices, *,
                   OUTPUT_RAGGED_RANK):  # noqa: N803 - TF's attr name
    """Rows `indices` (any rank) of the ragged params: the nested splits of the result
    (one more ragged dimension per extra indices dimension) and its flat values."""
    values = np.asarray(params_dense_values)
    splits = [np.asarray(s) for s in params_nested_splits]
    idx = np.asarray(indices).astype(np.int64)
    nrows = len(splits[0]) - 1
    if idx.size and (idx.min() < 0 or idx.max() >= nrows):
        bad = idx.reshape(-1)[(idx.reshape(-1) < 0) | (idx.reshape(-1) >= nrows)][0]
        raise invalid_argument(f"indices[{int(np.nonzero(idx.reshape(-1) == bad)[0][0])}] = "
                               f"{int(bad)} is not in [0, {nrows})")
    out_splits = []
    for d in range(idx.ndim - 1):  # the indices' own dimensions become uniform splits
        width = idx.shape[d + 1]
        count = int(np.prod(idx.shape[:d + 1]))
        out_splits.append(np.arange(count + 1, dtype=splits[0].dtype) * width)
    rows = idx.reshape(-1)
    for level in splits:
        starts, limits = level[:-1][rows], level[1:][rows]
        lengths = limits - starts
        out_splits.append(np.concatenate([[0], np.cumsum(lengths)]).astype(level.dtype))
        rows = np.concatenate([np.arange(a, b) for a, b in zip(starts, limits)]
                              ).astype(np.int64) if len(starts) else np.zeros([0], np.int64)
    return tuple(out_splits[:OUTPUT_RAGGED_RANK]) + (values[rows],)


def _gather_shape(op):
    n = op.get_attr("OUTPUT_RAGGED_RANK")
    inner = op.inputs[-2].shape
    values = TensorShape([None]).concatenate(inner[1:]) if inner.rank is not None \
        else TensorShape(None)
    return [TensorShape([None])] * n + [values]


register_op("RaggedGather",
            inputs=["params_nested_splits: PARAMS_RAGGED_RANK * Tsplits",
                    "params_dense_values: Tvalues", "indices: Tindices"],
            outputs=["output_nested_splits: OUTPUT_RAGGED_RANK * Tsplits",
                     "output_dense_values: Tvalues"],
            attrs=["Tvalues: type", "Tindices: {int32, int64}",
                   "Tsplits: {int32, int64} = DT_INT64", "PARAMS_RAGGED_RANK: int >= 1",
                   "OUTPUT_RAGGED_RANK: int >= 0"],
            shape_fn=_gather_shape, kernel=_gather_kernel)


@RegisterGradient("RaggedGather")
def _gather_grad(op, *grads):
    """The values' gradient: each gathered value's gradient summed into the value it
    came from (found by gathering the value indices the same way)."""
    splits = list(op.inputs[:-2])
    values, indices = op.inputs[-2], op.inputs[-1]
    values_shape = shape(values, out_type=dtypes.int64)
    nvals = strided_slice(values_shape, [0], [1], shrink_axis_mask=1)
    ids = apply_op("RaggedGather", params_nested_splits=splits,
                   params_dense_values=range_(nvals, dtype=dtypes.int64), indices=indices,
                   OUTPUT_RAGGED_RANK=op.get_attr("OUTPUT_RAGGED_RANK")).outputs[-1]
    values_grad = unsorted_segment_sum(grads[-1], ids, nvals)
    return [None] * len(splits) + [values_grad, None]
