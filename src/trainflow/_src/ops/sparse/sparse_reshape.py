"""`tf.sparse_reshape` / `tf.sparse.reshape` (SparseReshape): a SparseTensor's indices
recomputed for a new dense shape (one -1 inferred), its values unchanged. TensorFlow
defines no gradient for SparseReshape (the values pass through an Identity)."""
import numpy as np

from trainflow._src.framework import dtypes, errors, tensor_util
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.array.shape_util import invalid_argument, shape_of, static_value
from trainflow._src.ops.sparse.sparse_ops import _as_sparse

__all__ = ["sparse_reshape"]


def _sparse_reshape(input_indices, input_shape, new_shape):
    indices = np.asarray(input_indices, np.int64)
    in_shape = [int(d) for d in np.asarray(input_shape).tolist()]
    target = [int(d) for d in np.asarray(new_shape).tolist()]
    dense_size = int(np.prod(in_shape))
    unknown = [i for i, d in enumerate(target) if d == -1]
    if len(unknown) > 1:
        raise invalid_argument(f"only one output dimension may be -1, not both {unknown[0]} "
                               f"and {unknown[1]}")
    for i, d in enumerate(target):
        if d < -1:
            raise invalid_argument(f"size {i} must be non-negative, not {d}")
    product = int(np.prod([d for d in target if d != -1]))
    if unknown:
        if product == 0 or dense_size % product:
            raise invalid_argument(f"Input to reshape is a SparseTensor with {dense_size} "
                                   f"dense values, but the requested shape requires a "
                                   f"multiple of {product}. inputShape={in_shape} "
                                   f"outputShape={target}")
        target[unknown[0]] = dense_size // product
    if int(np.prod(target)) != dense_size:
        raise invalid_argument(f"Input to reshape is a tensor with {dense_size} dense values, "
                               f"but the requested shape has {int(np.prod(target))}. "
                               f"inputShape={in_shape} outputShape={target}")
    if indices.size == 0:
        return np.zeros((0, len(target)), np.int64), np.array(target, np.int64)
    flat = np.ravel_multi_index(tuple(indices.T), in_shape)
    out = np.stack(np.unravel_index(flat, target), axis=1).astype(np.int64)
    return out.reshape(-1, len(target)), np.array(target, np.int64)


def _sparse_reshape_shape(op):
    in_shape, new_shape = static_value(op.inputs[1]), static_value(op.inputs[2])
    if in_shape is not None and new_shape is not None:
        try:  # TF's shape function checks what the kernel would
            _sparse_reshape(np.zeros((0, in_shape.size), np.int64), in_shape, new_shape)
        except errors.InvalidArgumentError as e:
            raise ValueError(f"{e.message} for '{op.name}'") from e
    n = op.inputs[2].shape.as_list()[0] if op.inputs[2].shape.rank else None
    nnz = op.inputs[0].shape.as_list()[0] if op.inputs[0].shape.rank else None
    return [shape_of([nnz, n]), shape_of([n])]


register_op("SparseReshape",
            inputs=["input_indices: int64", "input_shape: int64", "new_shape: int64"],
            outputs=["output_indices: int64", "output_shape: int64"],
            shape_fn=_sparse_reshape_shape, kernel=_sparse_reshape)


def sparse_reshape(sp_input, shape, name=None):
    """`sp_input` as a SparseTensor of dense shape `shape` (at most one -1), its entries in
    the same row-major order.

    Raises:
      ValueError: if the static shapes show the sizes differ or more than one -1.
    """
    sp_input = _as_sparse(sp_input)
    shape = cast(shape, dtypes.int64)
    with name_scope(name, "SparseReshape", [sp_input]) as scope:
        indices, reshaped_shape = apply_op("SparseReshape", input_indices=sp_input.indices,
                                           input_shape=sp_input.dense_shape, new_shape=shape,
                                           name=scope).outputs
        const = tensor_util.constant_value_as_shape(shape)
        const = const.as_list() if const.rank is not None else None
        if const is not None and None not in const and sp_input.shape.is_fully_defined():
            const = list(const)
            implied = sum(d == -1 for d in const)
            if implied > 1:
                raise ValueError(f"At most one dimension can be inferred (-1). Found: {const}")
            original = list(const)
            in_size = int(np.prod(sp_input.shape.as_list()))
            non_implied = original
            if implied:
                idx = original.index(-1)
                non_implied = original[:idx] + original[idx + 1:]
                const[idx] = int(in_size // np.prod(non_implied))
            if not implied or in_size % np.prod(non_implied) == 0:
                size = int(np.prod(const))
                if size != in_size:
                    raise ValueError(f"Cannot reshape a tensor with {in_size} elements to "
                                     f"shape {original} ({size} elements).")
                reshaped_shape = constant(const, dtype=dtypes.int64)
        return SparseTensor(indices, identity(sp_input.values), reshaped_shape)
