"""`tf.linalg.matrix_rank` and `tf.linalg.pinv`: the numerical rank and the
Moore-Penrose pseudo-inverse from the singular values, as TensorFlow builds them."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import cast
from trainflow._src.ops.array import gather as gather_ops
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.linalg import linalg_impl
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions

__all__ = ["matrix_rank", "pinv"]


def _check_matrix(a):
    if not a.dtype.is_floating:
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
    if a.shape.rank is not None and a.shape.rank < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {a.shape.rank}).")


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above `tol` (default eps * max(M, N) * max(s)).

    Raises:
      TypeError: for a non-float `a`.  ValueError: for a rank below 2.
    """
    with get_default_graph().name_scope(name or "matrix_rank"):
        a = convert_to_tensor(a, dtype_hint=dtypes.float32, name="a")
        _check_matrix(a)
        s = linalg_impl.svd(a, compute_uv=False)
        if tol is None:
            dims = a.shape.as_list()[-2:] if a.shape.rank is not None else [None]
            if None not in dims:
                m = np.max(dims)
            else:
                m = reductions.reduce_max(shape_lib.shape(a)[-2:])
            eps = np.finfo(a.dtype.as_numpy_dtype).eps
            tol = (eps * cast.cast(m, a.dtype)
                   * reductions.reduce_max(s, axis=-1, keepdims=True))
        return reductions.reduce_sum(cast.cast(arith.greater(s, tol), dtypes.int32), axis=-1)


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse of matrices; singular values at or below
    rcond * max(s) (default rcond: 10 * max(M, N) * eps) count as zero.

    Raises:
      TypeError: for a non-float `a`.  ValueError: for a rank below 2.
    """
    with get_default_graph().name_scope(name or "pinv"):
        a = convert_to_tensor(a, name="a")
        _check_matrix(a)
        dtype = a.dtype.as_numpy_dtype
        if rcond is None:
            dims = a.shape.as_list()[-2:] if a.shape.rank is not None else [None, None]
            rows = dims[0] if dims[0] is not None else shape_lib.shape(a)[-2]
            cols = dims[1] if dims[1] is not None else shape_lib.shape(a)[-1]
            if isinstance(rows, int) and isinstance(cols, int):
                biggest = float(max(rows, cols))
            else:
                biggest = cast.cast(arith.maximum(rows, cols), a.dtype)
            rcond = 10.0 * biggest * np.finfo(dtype).eps
        rcond = convert_to_tensor(rcond, dtype=a.dtype, name="rcond")
        s, u, v = linalg_impl.svd(a, full_matrices=False, compute_uv=True)
        cutoff = rcond * reductions.reduce_max(s, axis=-1)
        s = gather_ops.where_v2(arith.greater(s, shape_lib.expand_dims(cutoff, -1)), s,
                                np.array(np.inf, dtype))
        a_pinv = arith.matmul(v / shape_lib.expand_dims(s, -2), u, adjoint_b=True)
        if a.shape.rank is not None:
            a_pinv.set_shape(a.shape[:-2].concatenate([a.shape[-1], a.shape[-2]]))
        return a_pinv
