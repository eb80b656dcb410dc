"""Cutting SparseTensors: `tf.sparse.slice` (SparseSlice, its gradient SparseSliceGrad) and
`tf.sparse.split` (SparseSplit). Entries keep their input order; a slice's dense shape is
clipped to the input's."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.shape_util import dims_of, invalid_argument, shape_of
from trainflow._src.ops.sparse.sparse_ops import _as_sparse

__all__ = ["sparse_slice", "sparse_split"]

_GRAD_TYPES = ("{float32, float64, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
               "qint32, bfloat16, qint16, quint16, uint16, complex128, float16, uint32, "
               "uint64}")


def _rank_of(shape_tensor):
    dims = dims_of(shape_tensor)
    return dims[0] if dims else None


def _sparse_outputs_shape(rank):
    return [shape_of([None, rank]), shape_of([None]), shape_of([rank])]


def _check_sparse(indices, values, shape):
    if indices.ndim != 2:
        raise invalid_argument(f"Input indices should be a matrix but received shape "
                               f"{list(indices.shape)}")
    if values.ndim != 1:
        raise invalid_argument(f"Input values should be a vector but received shape "
                               f"{list(values.shape)}")
    if shape.ndim != 1:
        raise invalid_argument(f"Input shape should be a vector but received shape "
                               f"{list(shape.shape)}")


def _slice_kernel(indices, values, shape, start, size):
    indices = np.asarray(indices, np.int64)
    shape, start, size = (np.asarray(a, np.int64) for a in (shape, start, size))
    _check_sparse(indices, np.asarray(values), shape)
    if start.ndim != 1 or start.size != shape.size:
        raise invalid_argument(f"Expected start to be a vector of length {shape.size} but got "
                               f"length {start.size}")
    if size.ndim != 1 or size.size != shape.size:
        raise invalid_argument(f"Expected size to be a vector of length {shape.size} but got "
                               f"length {size.size}")
    out_shape = np.where(start < shape - size, size,
                         np.where(start < shape, shape - start, 0)).astype(np.int64)
    keep = np.all((indices >= start) & (indices < start + size), axis=1)
    return (indices[keep] - start).reshape(-1, shape.size), np.asarray(values)[keep], out_shape


def _slice_shape(op):
    return _sparse_outputs_shape(_rank_of(op.inputs[2]))


register_op("SparseSlice",
            inputs=["indices: int64", "values: T", "shape: int64", "start: int64",
                    "size: int64"],
            outputs=["output_indices: int64", "output_values: T", "output_shape: int64"],
            attrs=["T: type"], shape_fn=_slice_shape, kernel=_slice_kernel)


def _slice_grad_kernel(backprop_val_grad, input_indices, input_start, output_indices):
    grad = np.asarray(backprop_val_grad)
    out_idx = np.asarray(output_indices, np.int64)
    shifted = np.asarray(input_indices, np.int64) - np.asarray(input_start, np.int64)
    if grad.shape[0] != out_idx.shape[0]:
        raise invalid_argument(f"backprop_val_grad.dim_size(0) must equal "
                               f"output_indices.dim_size(0), got {grad.shape[0]} and "
                               f"{out_idx.shape[0]}")
    where = {tuple(row): i for i, row in enumerate(out_idx.tolist())}
    val_grad = np.zeros(shifted.shape[0], grad.dtype)
    for i, row in enumerate(shifted.tolist()):
        j = where.get(tuple(row))
        if j is not None:
            val_grad[i] = grad[j]
    return val_grad


def _slice_grad_shape(op):
    dims = dims_of(op.inputs[1])
    return [shape_of([dims[0] if dims else None])]


register_op("SparseSliceGrad",
            inputs=["backprop_val_grad: T", "input_indices: int64", "input_start: int64",
                    "output_indices: int64"],
            outputs=["val_grad: T"], attrs=[f"T: {_GRAD_TYPES}"],
            shape_fn=_slice_grad_shape, kernel=_slice_grad_kernel)


@RegisterGradient("SparseSlice")
def _sparse_slice_grad(op, *grads):
    val_grad = apply_op("SparseSliceGrad", backprop_val_grad=grads[1],
                        input_indices=op.inputs[0], input_start=op.inputs[3],
                        output_indices=op.outputs[0]).outputs[0]
    val_grad.set_shape(op.inputs[1].shape)
    return None, val_grad, None, None, None


def _split_kernel(split_dim, indices, values, shape, *, num_split, T):  # noqa: N803 - TF's attr
    indices = np.asarray(indices, np.int64)
    values, shape = np.asarray(values), np.asarray(shape, np.int64)
    _check_sparse(indices, values, shape)
    rank = shape.size
    axis = int(split_dim)
    if not -rank <= axis < rank:
        raise invalid_argument(f"Input split_dim should be between {-rank} and {rank}, got "
                               f"{axis}")
    axis %= rank
    dim = int(shape[axis])
    if not 1 <= num_split <= dim:
        raise invalid_argument(f"Input num_split should be between 1 and the splitting "
                               f"dimension size ({dim}), got {num_split}")
    small, residual = divmod(dim, num_split)
    bounds = [i * (small + 1) if i < residual else residual * (small + 1) + (i - residual) * small
              for i in range(num_split + 1)]
    out_i, out_v, out_s = [], [], []
    for i in range(num_split):
        keep = (indices[:, axis] >= bounds[i]) & (indices[:, axis] < bounds[i + 1])
        idx = indices[keep].copy()
        idx[:, axis] -= bounds[i]
        part = shape.copy()
        part[axis] = bounds[i + 1] - bounds[i]
        out_i.append(idx.reshape(-1, rank))
        out_v.append(values[keep])
        out_s.append(part)
    return tuple(out_i + out_v + out_s)


def _split_shape(op):
    n = op._attrs["num_split"]
    rank = _rank_of(op.inputs[3])
    return ([shape_of([None, rank])] * n + [shape_of([None])] * n + [shape_of([rank])] * n)


register_op("SparseSplit",
            inputs=["split_dim: int64", "indices: int64", "values: T", "shape: int64"],
            outputs=["output_indices: num_split * int64", "output_values: num_split * T",
                     "output_shape: num_split * int64"],
            attrs=["num_split: int >= 1", "T: type"], shape_fn=_split_shape,
            kernel=_split_kernel)


def sparse_slice(sp_input, start, size, name=None):
    """The part of `sp_input` in the box from `start` of extent `size` (clipped to its
    dense shape), indices counted from `start`."""
    sp_input = _as_sparse(sp_input)
    start = convert_to_tensor(start, dtypes.int64)
    size = convert_to_tensor(size, dtypes.int64)
    with name_scope(name, "SparseSlice", [sp_input]) as name:
        out = apply_op("SparseSlice", indices=sp_input.indices, values=sp_input.values,
                       shape=sp_input.dense_shape, start=start, size=size, name=name).outputs
        return SparseTensor(*out)


class _KeywordRequired:
    def __repr__(self):
        return "KeywordRequired()"


_KEYWORD_REQUIRED = _KeywordRequired()


def sparse_split(keyword_required=_KEYWORD_REQUIRED, sp_input=None, num_split=None,
                 axis=None, name=None, split_dim=None):
    """`sp_input` cut into `num_split` SparseTensors along `axis` (the first
    `size % num_split` parts one longer). Takes keyword arguments only.

    Raises:
      ValueError: for a positional argument or a missing `sp_input`, `num_split` or `axis`.
    """
    if not isinstance(keyword_required, _KeywordRequired):
        raise ValueError("Keyword arguments are required for this function.")
    if sp_input is None:
        raise ValueError("sp_input is required")
    if num_split is None:
        raise ValueError("num_split is required")
    if axis is None:  # TensorFlow asks for `axis` even when `split_dim` is given
        raise ValueError("axis is required")
    if split_dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'split_dim'")
    sp_input = _as_sparse(sp_input)
    outs = apply_op("SparseSplit", split_dim=convert_to_tensor(axis, dtypes.int64),
                    indices=sp_input.indices, values=sp_input.values,
                    shape=sp_input.dense_shape, num_split=num_split, name=name).outputs
    return [SparseTensor(outs[i], outs[num_split + i], outs[2 * num_split + i])
            for i in range(num_split)]
