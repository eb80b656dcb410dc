"""LU factorization: the `Lu` op (partial pivoting; TensorFlow registers no gradient for
it) and the graph functions built on it as TensorFlow builds them: `lu_reconstruct`,
`lu_solve` and `lu_matrix_inverse`."""
import collections

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import create
from trainflow._src.ops.array import gather as gather_ops
from trainflow._src.ops.array import join
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, dims_of, invalid_argument, merge_dim, shape_of, with_rank_at_least)
from trainflow._src.ops.control_flow.functional_ops import map_fn
from trainflow._src.ops.linalg import linalg_impl
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions

__all__ = ["lu", "lu_matrix_inverse", "lu_reconstruct", "lu_solve"]

LuResult = collections.namedtuple("Lu", ["lu", "p"])


def _lu_factor(a):
    """In-place Doolittle LU with partial pivoting of a batch [B, n, n]; the row
    permutation [B, n]; the largest |entry| of each column is the pivot (the first
    of equals), as LAPACK's getrf and Eigen's PartialPivLU choose it."""
    batch, n = a.shape[0], a.shape[-1]
    perm = np.tile(np.arange(n), (batch, 1))
    rows = np.arange(batch)
    singular = np.zeros(batch, bool)
    for k in range(n):
        pivot = k + np.argmax(np.abs(a[:, k:, k]), axis=1)
        row_k, row_p = a[rows, k].copy(), a[rows, pivot].copy()
        a[rows, k], a[rows, pivot] = row_p, row_k
        perm_k, perm_p = perm[rows, k].copy(), perm[rows, pivot].copy()
        perm[rows, k], perm[rows, pivot] = perm_p, perm_k
        head = a[:, k, k]
        zero = head == 0
        singular |= zero
        safe = np.where(zero, 1, head)
        a[:, k + 1:, k] /= safe[:, None]
        a[:, k + 1:, k + 1:] -= a[:, k + 1:, k:k + 1] * a[:, k:k + 1, k + 1:]
    return a, perm, singular


def _lu_kernel(input, *, output_idx_type):  # noqa: A002 - TF's name
    x = np.asarray(input)
    if x.ndim < 2:
        raise invalid_argument(f"Input must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise invalid_argument(f"Input matrices must be squares, got{x.shape[-2]} != "
                               f"{x.shape[-1]}")
    dt = x.dtype
    idx = output_idx_type.as_numpy_dtype
    if x.size == 0:
        return x.copy(), np.zeros(x.shape[:-1], idx)
    wide = x.astype(np.complex128 if dt.kind == "c" else np.float64)
    n = x.shape[-1]
    flat = wide.reshape((-1, n, n)).copy()
    factors, perm, singular = _lu_factor(flat)
    if singular.any():
        raise invalid_argument("Input is not invertible.")
    return (factors.reshape(x.shape).astype(dt),
            perm.reshape(x.shape[:-1]).astype(idx))


def _lu_shape(op):
    dims = with_rank_at_least(dims_of(op.inputs[0]), 2)
    if dims is None:
        return [UNKNOWN, UNKNOWN]
    n = merge_dim(dims[-2], dims[-1])
    return [shape_of(dims[:-2] + (n, n)), shape_of(dims[:-2] + (n,))]


register_op("Lu", inputs=["input: T"], outputs=["lu: T", "p: output_idx_type"],
            attrs=["T: {double, float, half, complex64, complex128}",
                   "output_idx_type: {int32, int64} = DT_INT32"],
            shape_fn=_lu_shape, kernel=_lu_kernel)


def lu(input, output_idx_type=dtypes.int32, name=None):  # noqa: A002 - TF's name
    """The LU factorization of square matrices (`Lu`): (lu, p) with the unit-lower L
    and U packed in `lu` and input[p] = L U."""
    op = apply_op("Lu", input=input, output_idx_type=output_idx_type, name=name)
    return LuResult(*op.outputs)


def _check_lu(lower_upper, perm):
    rank = lower_upper.shape.rank
    if rank is not None and rank < 2:
        raise ValueError("Input `lower_upper` must have at least 2 dimensions.")
    if rank is not None and perm.shape.rank is not None and rank != perm.shape.rank + 1:
        raise ValueError("`rank(lower_upper)` must equal `rank(perm) + 1`")
    dims = dims_of(lower_upper)
    if dims is not None and None not in dims[:-2] and dims[-2] != dims[-1]:
        raise ValueError("`lower_upper` must be square.")


def _unit_lower(lower_upper):
    band = linalg_impl.band_part(lower_upper, num_lower=-1, num_upper=0)
    ones = create.ones(shape_lib.shape(lower_upper)[:-1], dtype=lower_upper.dtype)
    return linalg_impl.set_diag(band, ones)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """The matrices whose LU factorization is (lower_upper, perm)."""
    with get_default_graph().name_scope(name or "lu_reconstruct"):
        lower_upper = convert_to_tensor(lower_upper, dtype_hint=dtypes.float32,
                                        name="lower_upper")
        perm = convert_to_tensor(perm, dtype_hint=dtypes.int32, name="perm")
        _check_lu(lower_upper, perm)
        shape = shape_lib.shape(lower_upper)
        lower = linalg_impl.set_diag(
            linalg_impl.band_part(lower_upper, num_lower=-1, num_upper=0),
            create.ones(shape[:-1], dtype=lower_upper.dtype))
        upper = linalg_impl.band_part(lower_upper, num_lower=0, num_upper=-1)
        x = arith.matmul(lower, upper)
        if lower_upper.shape.rank != 2:
            batch_size = reductions.reduce_prod(shape[:-2])
            d = shape[-1]
            x = shape_lib.reshape(x, [batch_size, d, d])
            perm = shape_lib.reshape(perm, [batch_size, d])
            perm = map_fn(gather_ops.invert_permutation, perm)
            batch_indices = shape_lib.broadcast_to(
                shape_lib.expand_dims(create.range(batch_size), 1), [batch_size, d])
            x = gather_ops.gather_nd(x, join.stack([batch_indices, perm], axis=-1))
            x = shape_lib.reshape(x, shape)
        else:
            x = gather_ops.gather(x, gather_ops.invert_permutation(perm))
        x.set_shape(lower_upper.shape)
        return x


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """Solves A X = rhs given A's LU factorization (lower_upper, perm)."""
    with get_default_graph().name_scope(name or "lu_solve"):
        lower_upper = convert_to_tensor(lower_upper, dtype_hint=dtypes.float32,
                                        name="lower_upper")
        perm = convert_to_tensor(perm, dtype_hint=dtypes.int32, name="perm")
        rhs = convert_to_tensor(rhs, dtype_hint=lower_upper.dtype, name="rhs")
        _check_lu(lower_upper, perm)
        if rhs.shape.rank is not None and rhs.shape.rank < 2:
            raise ValueError("Input `rhs` must have at least 2 dimensions.")
        lu_dims, rhs_dims = dims_of(lower_upper), dims_of(rhs)
        if (lu_dims is not None and rhs_dims is not None and None not in
                (lu_dims[-1], rhs_dims[-2]) and lu_dims[-1] != rhs_dims[-2]):
            raise ValueError("`lower_upper.shape[-1]` must equal `rhs.shape[-1]`.")
        if rhs.shape.rank == 2 and perm.shape.rank == 1:
            permuted_rhs = gather_ops.gather(rhs, perm, axis=-2)
        else:
            rhs_shape = shape_lib.shape(rhs)
            batch_shape = shape_lib.broadcast_dynamic_shape(
                rhs_shape[:-2], shape_lib.shape(perm)[:-1])
            d, m = rhs_shape[-2], rhs_shape[-1]
            rhs_broadcast_shape = join.concat([batch_shape, [d, m]], axis=0)
            broadcast_rhs = shape_lib.broadcast_to(rhs, rhs_broadcast_shape)
            broadcast_rhs = shape_lib.reshape(broadcast_rhs, [-1, d, m])
            broadcast_perm = shape_lib.broadcast_to(perm, rhs_broadcast_shape[:-1])
            broadcast_perm = shape_lib.reshape(broadcast_perm, [-1, d])
            batch_size = reductions.reduce_prod(batch_shape)
            batch_indices = shape_lib.broadcast_to(
                shape_lib.expand_dims(create.range(batch_size), 1), [batch_size, d])
            broadcast_perm = join.stack([batch_indices, broadcast_perm], axis=-1)
            permuted_rhs = gather_ops.gather_nd(broadcast_rhs, broadcast_perm)
            permuted_rhs = shape_lib.reshape(permuted_rhs, rhs_broadcast_shape)
        lower = _unit_lower(lower_upper)
        return linalg_impl.matrix_triangular_solve(
            lower_upper,  # only its upper triangle is read
            linalg_impl.matrix_triangular_solve(lower, permuted_rhs), lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of A given its LU factorization (lower_upper, perm)."""
    with get_default_graph().name_scope(name or "lu_matrix_inverse"):
        lower_upper = convert_to_tensor(lower_upper, dtype_hint=dtypes.float32,
                                        name="lower_upper")
        perm = convert_to_tensor(perm, dtype_hint=dtypes.int32, name="perm")
        _check_lu(lower_upper, perm)
        shape = shape_lib.shape(lower_upper)
        return lu_solve(lower_upper, perm,
                        rhs=linalg_impl.eye(shape[-1], batch_shape=shape[:-2],
                                            dtype=lower_upper.dtype),
                        validate_args=False)
