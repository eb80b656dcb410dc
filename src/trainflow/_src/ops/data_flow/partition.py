"""DynamicPartition, DynamicStitch and ParallelDynamicStitch (TensorFlow's data_flow ops
that sharded embedding lookups are built from), with kernels, shapes and gradients.

`dynamic_partition(data, partitions, n)` splits the rows of `data` by partition
number; `dynamic_stitch(indices, data)` interleaves pieces back into one tensor,
row `indices[m][i]` taking `data[m][i]` (a later piece wins on duplicate indices).
"""
import numpy as np

from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.ops.array import create, gather, shape
from trainflow._src.ops.math import reductions, segment
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.nn.shape_util import merge_dims, shape_str
from trainflow._src.ops.array.shape_util import dims_of

__all__ = ["dynamic_partition", "dynamic_stitch", "parallel_dynamic_stitch"]


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _dynamic_partition_kernel(data, partitions, *, num_partitions):
    if data.shape[:partitions.ndim] != partitions.shape:
        raise _invalid(f"data.shape must start with partitions.shape, got data.shape = "
                       f"{shape_str(data.shape)}, partitions.shape = "
                       f"{shape_str(partitions.shape)}")
    flat = partitions.reshape(-1)
    bad = (flat < 0) | (flat >= num_partitions)
    if np.any(bad):
        i = int(np.argmax(bad))
        where = np.unravel_index(i, partitions.shape) if partitions.ndim else ()
        index = ",".join(str(int(w)) for w in where)
        raise _invalid(f"partitions[{index}] = {int(flat[i])} is not in [0, {num_partitions})")
    rows = data.reshape((flat.size,) + data.shape[partitions.ndim:])
    return tuple(rows[flat == p] for p in range(num_partitions))


def _dynamic_partition_shape(op):
    data, parts = dims_of(op.inputs[0]), dims_of(op.inputs[1])
    n = op._attrs["num_partitions"]
    if data is None or parts is None:
        return [None] * n
    if len(data) < len(parts):
        raise ValueError(f"Shape must be at least rank {len(parts)} but is rank {len(data)}")
    merge_dims(tuple(data[:len(parts)]), parts)
    return [TensorShape([None] + list(data[len(parts):]))] * n


register_op("DynamicPartition", inputs=["data: T", "partitions: int32"],
            outputs=["outputs: num_partitions * T"],
            attrs=["num_partitions: int >= 1", "T: type"],
            shape_fn=_dynamic_partition_shape, kernel=_dynamic_partition_kernel)


def _stitch_kernel(indices, data):
    if not indices:
        raise _invalid("DynamicStitch needs at least one input")
    first_ndim = indices[0].ndim
    tail = data[0].shape[first_ndim:]
    total = 0
    for m, (idx, piece) in enumerate(zip(indices, data)):
        if piece.shape[:idx.ndim] != idx.shape or piece.shape[idx.ndim:] != tail:
            raise _invalid(f"data[{m}].shape = {shape_str(piece.shape)} does not start with "
                           f"indices[{m}].shape = {shape_str(idx.shape)}")
        total = max(total, int(idx.max()) + 1 if idx.size else 0)
        if idx.size and int(idx.min()) < 0:
            raise _invalid(f"indices[{m}] holds a negative index {int(idx.min())}")
    # Rows no index names stay zero.
    out = np.zeros((total,) + tail, dtype=data[0].dtype)
    for idx, piece in zip(indices, data):
        flat = idx.reshape(-1)
        out[flat] = piece.reshape((flat.size,) + tail)
    return out


def _stitch_shape(op):
    n = op._attrs["N"]
    indices, data = op.inputs[:n], op.inputs[n:]
    tail = None
    for idx, piece in zip(indices, data):
        i_dims, d_dims = dims_of(idx), dims_of(piece)
        if i_dims is None or d_dims is None:
            continue
        if len(d_dims) < len(i_dims):
            raise ValueError(f"Shape must be at least rank {len(i_dims)} but is rank "
                             f"{len(d_dims)}")
        merge_dims(tuple(d_dims[:len(i_dims)]), i_dims)
        tail = merge_dims(tail, tuple(d_dims[len(i_dims):]))
    first = None
    values = [constant_value(t) for t in indices]
    if all(v is not None for v in values):
        first = max((int(np.max(v)) + 1 for v in values if np.size(v)), default=0)
    return [TensorShape(None) if tail is None else TensorShape([first] + list(tail))]


for _name in ("DynamicStitch", "ParallelDynamicStitch"):
    register_op(_name, inputs=["indices: N * int32", "data: N * T"], outputs=["merged: T"],
                attrs=["N: int >= 1", "T: type"], shape_fn=_stitch_shape,
                kernel=_stitch_kernel)


@RegisterGradient("DynamicPartition")
def _dynamic_partition_grad(op, *grads):
    # Partition the positions of the rows the same way and stitch the gradients back.
    data, partitions = op.inputs
    prefix = shape.shape(partitions)
    positions = shape.reshape(create.range(reductions.reduce_prod(prefix)), prefix)
    parted = dynamic_partition(positions, partitions, op._attrs["num_partitions"])
    stitched = parallel_dynamic_stitch(parted, list(grads))
    return shape.reshape(stitched, shape.shape(data)), None


def _stitch_grad(op, grad):
    # Each data piece receives the rows of the gradient its indices selected.
    n = op._attrs["N"]
    if isinstance(grad, IndexedSlices):
        rows = shape.shape(op.outputs[0])[0]
        grad = segment.unsorted_segment_sum(grad.values, grad.indices, rows)
    return [None] * n + [gather.gather(grad, idx) for idx in op.inputs[:n]]


RegisterGradient("DynamicStitch")(_stitch_grad)
RegisterGradient("ParallelDynamicStitch")(_stitch_grad)


def dynamic_partition(data, partitions, num_partitions, name=None):
    """Splits `data` into `num_partitions` tensors by the partition number of each row
    (`tf.dynamic_partition`).

    Args:
      data: a Tensor.
      partitions: int32 Tensor whose shape is a prefix of data's, values in
        [0, num_partitions).
      num_partitions: the number of outputs (an int >= 1).
      name: the op name (default "DynamicPartition").

    Returns:
      a list of `num_partitions` Tensors.
    """
    return apply_op("DynamicPartition", data=data, partitions=partitions,
                    num_partitions=num_partitions, name=name).outputs


def dynamic_stitch(indices, data, name=None):
    """Interleaves the `data` pieces into one tensor by `indices` (`tf.dynamic_stitch`).

    Args:
      indices: a list of int32 Tensors.
      data: a list of Tensors, data[m].shape = indices[m].shape + element shape.
      name: the op name (default "DynamicStitch").
    """
    return apply_op("DynamicStitch", indices=list(indices), data=list(data),
                    name=name).outputs[0]


def parallel_dynamic_stitch(indices, data, name=None):
    """`dynamic_stitch` as op ParallelDynamicStitch (`tf.dynamic_stitch`'s parallel form)."""
    return apply_op("ParallelDynamicStitch", indices=list(indices), data=list(data),
                    name=name).outputs[0]
