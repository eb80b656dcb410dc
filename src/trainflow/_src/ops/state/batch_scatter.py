"""`tf.batch_scatter_update`: `tf.scatter_update` along the last axis of `indices`, under
leading batch dimensions, as one ScatterNdUpdate whose full indices TensorFlow's way builds
(a broadcast Range per batch dimension, the given indices last)."""
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.create import ones_like
from trainflow._src.ops.array.join import concat
from trainflow._src.ops.array.shape import expand_dims, reshape, shape
from trainflow._src.ops.math import overloads  # noqa: F401 - the Tensor operators used here
from trainflow._src.ops.state.state_ops import scatter_nd_update

__all__ = ["batch_scatter_update"]


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """Writes `updates` into `ref` at `indices` along axis `rank(indices) - 1`, the leading
    dimensions of `ref`, `indices` and `updates` being batch dimensions; returns `ref`
    after the update.

    Raises:
      ValueError: if the rank of `indices` is unknown.
    """
    with name_scope(name):
        indices = convert_to_tensor(indices, name="indices")
        indices_shape = shape(indices)
        ndims = indices.shape.rank
        if ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        nd_indices = expand_dims(indices, axis=-1)
        parts = []
        for dim in range(ndims - 1):
            size = indices_shape[dim]
            broadcast = [1] * (ndims + 1)
            broadcast[dim] = size
            dim_range = reshape(apply_op("Range", start=0, limit=size, delta=1).outputs[0],
                                broadcast)
            if dim_range.dtype.base_dtype != nd_indices.dtype:
                dim_range = cast(dim_range, nd_indices.dtype)
            parts.append(dim_range * ones_like(nd_indices))
        parts.append(nd_indices)
        final_indices = concat(parts, axis=-1)
        return scatter_nd_update(ref, final_indices, updates, use_locking=use_locking)
