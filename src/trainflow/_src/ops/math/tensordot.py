"""`tensordot`: contraction of two tensors over given axes, built (as TF does)
from Transpose and Reshape around one MatMul.

With fully known shapes every shape is a constant and steps that would do
nothing (identity transpose, reshape to the same shape) are skipped, which
gives TensorFlow's graph. With known ranks but unknown sizes the shapes are
computed in the graph (Shape, GatherV2, Prod, ConcatV2, Pack).
"""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.math import reductions
from trainflow._src.ops.math.arith import matmul


def _out(op_type, name, **kwargs):
    return apply_op(op_type, name=name, **kwargs).outputs[0]


def _contraction_axes(a, b, axes):
    """Returns (a_axes, b_axes) as lists of ints.

    Raises:
      ValueError: for a negative or too large int, or axes lists of different lengths.
    """
    rank_a = a.shape.rank
    if isinstance(axes, (int, np.integer)):
        axes = int(axes)
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        if axes > rank_a:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of "
                             f"tensor {a}.  Received {axes}, vs tensor dimensions {rank_a}.")
        return list(range(rank_a - axes, rank_a)), list(range(axes))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [a_axes], [b_axes]
        a_axes, b_axes = [int(i) for i in a_axes], [int(i) for i in b_axes]
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, "
                             f"{len(a_axes)} != {len(b_axes)}.")
        return a_axes, b_axes
    raise ValueError("tensordot needs `axes` as a Python int or a pair of int lists; "
                     f"got {axes!r}")


def _reshape_for_matmul(x, axes, flipped):
    """Moves `axes` of x last (first when flipped) and flattens to a matrix.

    Returns:
      (matrix, free_dims): free_dims is a list of ints when x's shape is fully
      known, else an int32 Tensor; plus the static free dims (ints or None).
    """
    dims = x.shape.as_list()
    rank = len(dims)
    axes = [i + rank if i < 0 else i for i in axes]
    free = [i for i in range(rank) if i not in axes]
    free_static = [dims[i] for i in free]
    perm = axes + free if flipped else free + axes
    if x.shape.is_fully_defined():
        prod_free = int(np.prod(free_static, dtype=np.int64))
        prod_axes = int(np.prod([dims[i] for i in axes], dtype=np.int64))
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        if perm != list(range(rank)):
            x = _out("Transpose", "transpose", x=x, perm=perm)
        if x.shape.as_list() != new_shape:
            x = _out("Reshape", None, tensor=x, shape=new_shape)
        return x, free_static, free_static
    axes_t = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
    free_t = convert_to_tensor(free, dtype=dtypes.int32, name="free")
    shape = _out("Shape", None, input=x)
    free_dims = _out("GatherV2", None, params=shape, indices=free_t, axis=0)
    axes_dims = _out("GatherV2", None, params=shape, indices=axes_t, axis=0)
    prod_free = reductions.reduce_prod(free_dims)
    prod_axes = reductions.reduce_prod(axes_dims)
    order = [axes_t, free_t] if flipped else [free_t, axes_t]
    perm_t = _out("ConcatV2", "concat", values=order, axis=0)
    sizes = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
    new_shape = _out("Pack", "stack", values=sizes, axis=0)
    x = _out("Reshape", None, tensor=_out("Transpose", "transpose", x=x, perm=perm_t),
             shape=new_shape)
    return x, free_dims, free_static


def tensordot(a, b, axes, name=None):
    """Tensor contraction of `a` and `b` over `axes` (`tf.tensordot`).

    Args:
      a, b: Tensors of the same dtype and known rank.
      axes: an int N (the last N axes of a with the first N of b), or a pair
        of equal-length lists of axes ([a_axes, b_axes]; ints are allowed).
      name: the name scope.

    Returns:
      a Tensor of shape free(a) + free(b).

    Raises:
      ValueError: for bad axes, contracted sizes that differ, or inputs of unknown rank.
    """
    with name_scope(name, "Tensordot", [a, b, axes]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        if a.shape.rank is None or b.shape.rank is None:
            raise ValueError("tensordot needs inputs of known rank; got shapes "
                             f"{a.shape} and {b.shape}")
        a_axes, b_axes = _contraction_axes(a, b, axes)
        a_mat, a_free, a_static = _reshape_for_matmul(a, a_axes, False)
        b_mat, b_free, b_static = _reshape_for_matmul(b, b_axes, True)
        product = matmul(a_mat, b_mat)
        if isinstance(a_free, list) and isinstance(b_free, list):
            if product.shape.is_fully_defined() and product.shape.as_list() == a_free + b_free:
                return product
            return _out("Reshape", scope, tensor=product, shape=a_free + b_free)
        a_free = convert_to_tensor(a_free, dtype=dtypes.int32)
        b_free = convert_to_tensor(b_free, dtype=dtypes.int32)
        out_shape = _out("ConcatV2", "concat", values=[a_free, b_free], axis=0)
        out = _out("Reshape", scope, tensor=product, shape=out_shape)
        out.set_shape(a_static + b_static)
        return out
