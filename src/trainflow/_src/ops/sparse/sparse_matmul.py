"""SparseTensorDenseMatMul: a rank-2 SparseTensor times a dense matrix
(`tf.sparse_tensor_dense_matmul`, `tf.sparse.sparse_dense_matmul`, `tf.sparse.matmul`),
with TensorFlow's gradient for the sparse values and the dense matrix."""
import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor, SparseTensorValue
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.gather import gather
from trainflow._src.ops.array.layout import transpose
from trainflow._src.ops.array.shape import expand_dims, squeeze
from trainflow._src.ops.array.shape_util import (
    dims_of, invalid_argument, merge_dim, shape_of, static_value, with_rank)
from trainflow._src.ops.math import arith

__all__ = ["sparse_tensor_dense_matmul"]


def _kernel(a_indices, a_values, a_shape, b, *, adjoint_a, adjoint_b):
    idx, vals = np.asarray(a_indices, np.int64), np.asarray(a_values)
    shape, b = [int(d) for d in np.asarray(a_shape).tolist()], np.asarray(b)
    if len(shape) != 2 or b.ndim != 2:
        raise invalid_argument(f"Tensor 'a_shape' is not a vector of size 2 or 'b' is not a "
                               f"matrix: {shape}, {list(b.shape)}")
    idx = idx.reshape(-1, 2)
    for i, row in enumerate(idx.tolist()):
        for j in (0, 1):
            if not 0 <= row[j] < shape[j]:
                raise invalid_argument(f"k ({row[j]}) from index[{i},{j}] out of bounds "
                                       f"(>={shape[j]})")
    dense = np.zeros(shape, vals.dtype)
    np.add.at(dense, (idx[:, 0], idx[:, 1]), vals)
    a = dense.conj().T if adjoint_a else dense
    b = b.conj().T if adjoint_b else b
    if a.shape[1] != b.shape[0]:
        raise invalid_argument(f"Cannot multiply A and B because inner dimension does not "
                               f"match: {a.shape[1]} vs. {b.shape[0]}.  Did you forget a "
                               f"transpose?  Dimensions of A: [{a.shape[0]}, {a.shape[1]}).  "
                               f"Dimensions of B: {list(np.asarray(b).shape)}")
    return np.asarray(a @ b, vals.dtype)


def _shape(op):
    adjoint_a, adjoint_b = op._attrs.get("adjoint_a"), op._attrs.get("adjoint_b")
    b = dims_of(op.inputs[3])
    b = with_rank(b, 2) if b is not None else (None, None)
    if dims_of(op.inputs[2]) is not None:
        with_rank(dims_of(op.inputs[2]), 1)
    a_shape = static_value(op.inputs[2])
    a = tuple(int(d) for d in a_shape.tolist()) if a_shape is not None else (None, None)
    if len(a) != 2:
        raise ValueError(f"SparseTensor must be rank 2, got {len(a)} for '{op.name}'")
    out_rows, inner_a = (a[1], a[0]) if adjoint_a else a
    inner_b, out_cols = (b[1], b[0]) if adjoint_b else b
    merge_dim(inner_a, inner_b)
    return [shape_of([out_rows, out_cols])]


register_op("SparseTensorDenseMatMul",
            inputs=["a_indices: Tindices", "a_values: T", "a_shape: int64", "b: T"],
            outputs=["product: T"],
            attrs=["T: type", "Tindices: {int32, int64} = DT_INT64",
                   "adjoint_a: bool = false", "adjoint_b: bool = false"],
            shape_fn=_shape, kernel=_kernel)


def _mat_mul(a_indices, a_values, a_shape, b, adjoint_a=False, adjoint_b=False):
    return apply_op("SparseTensorDenseMatMul", a_indices=a_indices, a_values=a_values,
                    a_shape=a_shape, b=b, adjoint_a=adjoint_a,
                    adjoint_b=adjoint_b).outputs[0]


@RegisterGradient("SparseTensorDenseMatMul")
def _sparse_tensor_dense_matmul_grad(op, grad):
    """TF's: the values get the products of their row of grad and column of b; b gets
    A^T grad."""
    a_indices, a_values, a_shape, b = op.inputs
    adj_a, adj_b = op.get_attr("adjoint_a"), op.get_attr("adjoint_b")
    if a_values.dtype.base_dtype != b.dtype.base_dtype:
        raise TypeError("SparseTensorDenseMatMul op received operands with different types: "
                        f"`{a_values.dtype.base_dtype}` and `{b.dtype.base_dtype}`.")
    b_grad = _mat_mul(a_indices, a_values, a_shape, grad, adjoint_a=not adj_a)
    if adj_b:
        b_grad = transpose(b_grad, conjugate=True)
    rows, cols = a_indices[:, 0], a_indices[:, 1]
    parts_a = gather(grad, rows if not adj_a else cols)
    parts_b = gather(b if not adj_b else transpose(b), cols if not adj_a else rows)
    if not adj_a and not adj_b:
        values_grad = arith.matmul(expand_dims(parts_a, -2), expand_dims(parts_b, -2),
                                   adjoint_b=True)
    elif adj_a and not adj_b:
        values_grad = arith.matmul(expand_dims(parts_a, -1), expand_dims(parts_b, -1),
                                   adjoint_a=True)
    elif not adj_a and adj_b:
        values_grad = arith.matmul(expand_dims(parts_a, -2), expand_dims(parts_b, -1))
    else:
        values_grad = arith.matmul(expand_dims(parts_a, -1), expand_dims(parts_b, -2),
                                   adjoint_a=True, adjoint_b=True)
    return (None, squeeze(values_grad, axis=[-2, -1]), None, b_grad)


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """`sp_a @ b` for a rank-2 SparseTensor `sp_a` and a dense matrix `b` (either may be
    adjoint); with a SparseTensor `b` it is computed as the transposed product.

    Raises:
      TypeError: if `sp_a` is not a SparseTensor.
    """
    if isinstance(b, (SparseTensor, SparseTensorValue)):
        if adjoint_a != adjoint_b:
            return transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a, adjoint_b))
        return transpose(sparse_tensor_dense_matmul(b, sp_a, adjoint_a=not adjoint_a,
                                                    adjoint_b=not adjoint_b))
    if isinstance(sp_a, SparseTensorValue):
        sp_a = SparseTensor.from_value(sp_a)
    if not isinstance(sp_a, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor; got {sp_a!r}")
    with name_scope(name, "SparseTensorDenseMatMul", [sp_a.indices, sp_a.values, b]) as scope:
        b = convert_to_tensor(b, name="b")
        return apply_op("SparseTensorDenseMatMul", a_indices=sp_a.indices,
                        a_values=sp_a.values, a_shape=sp_a.dense_shape, b=b,
                        adjoint_a=adjoint_a, adjoint_b=adjoint_b, name=scope).outputs[0]
