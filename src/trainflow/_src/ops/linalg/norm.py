"""`tf.norm`: vector p-norms and the Frobenius, 1, 2 and inf matrix norms, built
from reductions (and the largest singular value for the matrix 2-norm)."""
import numbers

import numpy as np

from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import set_ops
from trainflow._src.ops.array import gather
from trainflow._src.ops.array import join
from trainflow._src.ops.array import layout
from trainflow._src.ops.array import shape
from trainflow._src.ops.linalg import linalg_impl
from trainflow._src.ops.array import cast
from trainflow._src.ops.array import create
from trainflow._src.ops.math import arith
from trainflow._src.ops.math import reductions

__all__ = ["norm", "normalize"]

_MATRIX_ORDS = ("euclidean", "fro", 1, 2, np.inf)
_VECTOR_ORDS = ("euclidean", 1, 2, np.inf)
_AXIS_ERROR = "'axis' must be None, an integer, or a tuple of 2 unique integers, got {}"


def _is_int(v):
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool)


def _is_ord(ord, allowed):  # noqa: A002 - TF's name
    return any(type(ord) is type(a) and ord == a or
               (isinstance(a, (int, float)) and not isinstance(ord, str) and ord == a)
               for a in allowed)


def _check_args(ord, axis):  # noqa: A002
    """(is_matrix_norm, axis as a tuple or None); raises TF's ValueErrors."""
    if isinstance(axis, (tuple, list)) and len(axis) == 2:
        axis = tuple(axis)
        if not _is_int(axis[0]) or not _is_int(axis[1]) or axis[0] == axis[1]:
            raise ValueError(_AXIS_ERROR.format(axis))
        if not _is_ord(ord, _MATRIX_ORDS):
            raise ValueError(f"'ord' must be a supported matrix norm in "
                             f"{list(_MATRIX_ORDS)}, got {ord}")
        return True, axis
    if not (axis is None or _is_int(axis)):
        raise ValueError(_AXIS_ERROR.format(axis))
    if not _is_ord(ord, _VECTOR_ORDS):
        if isinstance(ord, str) or not np.isreal(ord) or ord <= 0:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    return False, None if axis is None else (axis,)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None,  # noqa: A002
         keep_dims=None):
    """The vector or matrix norm of `tensor` (`tf.norm`).

    Args:
      tensor: a float or complex tensor.
      ord: 'euclidean', 'fro', 1, 2, np.inf, or for vectors any p > 0.
      axis: None (the whole tensor as one vector), an int (vectors along it), or a
        pair of ints (matrices in those two dimensions).
      keepdims: keep the reduced dimensions with size 1.
      name: the name scope (default "norm").
      keep_dims: the deprecated spelling of keepdims.

    Raises:
      ValueError: for an unsupported ord or a malformed axis, or both keepdims
        and keep_dims.
    """
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
        keepdims = keep_dims
    keepdims = bool(keepdims)
    is_matrix, axis = _check_args(ord, axis)
    with get_default_graph().name_scope(name or "norm"):
        tensor = convert_to_tensor(tensor)
        if _is_ord(ord, ("fro", "euclidean", 2)):
            if is_matrix and _is_ord(ord, (2,)):
                result = _matrix_two_norm(tensor, axis)
            else:
                result = arith.sqrt(reductions.reduce_sum(
                    tensor * arith.conj(tensor), axis, keepdims=True))
        else:
            result = arith.abs(tensor)
            if _is_ord(ord, (1,)):
                result = reductions.reduce_sum(result, None if axis is None else axis[0],
                                             keepdims=True)
                if is_matrix:
                    result = reductions.reduce_max(result, axis[-1], keepdims=True)
            elif _is_ord(ord, (np.inf,)):
                if is_matrix:
                    result = reductions.reduce_sum(result, axis[1], keepdims=True)
                result = reductions.reduce_max(result, None if axis is None else axis[0],
                                             keepdims=True)
            else:
                result = arith.pow(reductions.reduce_sum(
                    arith.pow(result, ord), axis, keepdims=True), 1.0 / ord)
        if not keepdims:
            result = shape.squeeze(result, axis)
        return result


def _matrix_two_norm(tensor, axis):
    """The largest singular value over the two `axis` dims, kept with size 1."""
    rank = shape.rank(tensor)
    pos = arith.floormod(convert_to_tensor(list(axis)), rank)
    rest = set_ops.setdiff1d(create.range(rank), pos)[0]
    perm_before = join.concat([rest, pos], axis=0)
    perm_after = gather.invert_permutation(perm_before)
    permed = layout.transpose(tensor, perm=perm_before)
    s = linalg_impl.svd(permed, compute_uv=False)
    largest = reductions.reduce_max(arith.abs(s), axis=-1, keepdims=True)
    return layout.transpose(shape.expand_dims(largest, -1), perm=perm_after)


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 - TF's name
    """(tensor / its norm, the norm) with the norm kept to broadcast (`tf.linalg.normalize`)."""
    with get_default_graph().name_scope(name or "normalize"):
        tensor = convert_to_tensor(tensor)
        value = norm(tensor, ord, axis, keepdims=True)
        value = cast.cast(value, tensor.dtype)
        return tensor / value, value
