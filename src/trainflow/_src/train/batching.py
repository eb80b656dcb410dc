"""Shared machinery of TF1's batching functions: tensor-list handling, shapes and
dtypes, keep_input, SparseTensors through queues, enqueue runners and the
queue-fullness summaries."""
import collections

from trainflow._src.framework import dtypes
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import as_shape
from trainflow._src.framework.tensor_util import constant_value
from trainflow._src.ops.array.array_ops import expand_dims, ones, squeeze
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.control_flow.grouping import no_op
from trainflow._src.ops.data_flow.partition import dynamic_partition
from trainflow._src.ops.data_flow.queues import FIFOQueue, PaddingFIFOQueue
from trainflow._src.ops.sparse import sparse_tensors_map as stm
from trainflow._src.ops.summary import summary_ops
from trainflow._src.train.queue_runner_impl import QueueRunner, add_queue_runner

SparseMetaData = collections.namedtuple("SparseMetaData", ["sparse", "map_op", "rank"])


def fraction_summary(name, fraction):
    """Adds TF's queue-fullness scalar summary `name` of `fraction`."""
    return summary_ops.scalar(name, fraction)


def as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return tensors


def as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        keys = set(tensors_list[0])
        for d in tensors_list[1:]:
            if set(d) != keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [as_tensor_list(d) for d in tensors_list]
    return tensors_list


def as_original_type(original, tensor_list):
    if isinstance(original, dict):
        if len(original) == 1:
            tensor_list = [tensor_list]
        return {k: tensor_list[i] for i, k in enumerate(sorted(original, key=str))}
    return tensor_list


def _convert(t):
    if isinstance(t, SparseTensor):
        return t
    return convert_to_tensor(t)


def validate(tensor_list):
    tensor_list = [_convert(t) for t in tensor_list]
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return tensor_list


def validate_join(tensor_list_list):
    tensor_list_list = [[_convert(t) for t in tl] for tl in tensor_list_list]
    if not tensor_list_list:
        raise ValueError("Expected at least one input in batch_join().")
    return tensor_list_list


def validate_keep_input(keep_input, enqueue_many):
    keep_input = convert_to_tensor(keep_input, dtype=dtypes.bool)
    ndims = keep_input.shape.rank
    if ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _smart_cond(pred, true_fn, false_fn):
    value = constant_value(pred)
    if value is not None:
        return true_fn() if bool(value) else false_fn()
    return cond(pred, true_fn, false_fn)


def dtypes_of(tensor_list_list):
    all_types = [[t.dtype for t in tl] for tl in tensor_list_list]
    types = all_types[0]
    for other in all_types[1:]:
        if other != types:
            raise TypeError(f"Expected types to be consistent: {', '.join(t.name for t in types)}"
                            f" vs. {', '.join(t.name for t in other)}.")
    return types


def _merge_shapes(shape_list, enqueue_many):
    shape_list = [as_shape(s) for s in shape_list]
    if enqueue_many:
        shape_list = [s.with_rank_at_least(1)[1:] for s in shape_list]
    merged = shape_list[0]
    for s in shape_list[1:]:
        merged = merged.merge_with(s)
    return merged.as_list()


def shapes_of(tensor_list_list, shapes, enqueue_many):
    if shapes is None:
        n = len(tensor_list_list[0])
        for tl in tensor_list_list:
            for i in range(n):
                if tl[i].shape.rank is None:
                    raise ValueError(f"Cannot infer Tensor's rank: {tl[i]}")
        shapes = [_merge_shapes([tl[i].shape for tl in tensor_list_list], enqueue_many)
                  for i in range(n)]
    return shapes


def which_queue(dynamic_pad):
    return PaddingFIFOQueue if dynamic_pad else FIFOQueue


def store_sparse_tensors(tensor_list, enqueue_many, keep_input, shared_map_ops=None):
    """Replaces each SparseTensor by its handle(s) in a SparseTensorsMap (shape [1] per
    element, as TF enqueues them); returns (tensors, SparseMetaData list)."""
    shared_map_ops = shared_map_ops or [None] * len(tensor_list)
    stored, info = [], []
    for t, shared in zip(tensor_list, shared_map_ops):
        if not isinstance(t, SparseTensor):
            stored.append(t)
            info.append(SparseMetaData(False, None, None))
            continue
        name = shared.name if shared is not None else None
        if keep_input.shape.rank == 1:
            raise ValueError("A vector `keep_input` is not supported with SparseTensor inputs "
                             "here; filter the SparseTensor before batching.")
        # The branches read this iteration's `t` and `name`: _smart_cond calls them at once
        # (cond builds both branches before it returns), so B023 does not apply.
        if enqueue_many:
            handle = _smart_cond(
                keep_input,
                lambda: stm.add_many_sparse_to_tensors_map(
                    t, shared_name=name),  # noqa: B023 - called in this iteration
                lambda: -1 * ones(t.dense_shape[0:1], dtypes.int64))  # noqa: B023 - idem
            handle.set_shape([None])
        else:
            handle = _smart_cond(
                keep_input,
                lambda: stm.add_sparse_to_tensors_map(
                    t, shared_name=name),  # noqa: B023 - called in this iteration
                lambda: convert_to_tensor(-1, dtypes.int64))
        map_op = _find_map_op(handle)
        rank = t.dense_shape.shape.with_rank(1).as_list()[0]
        if rank is not None and enqueue_many:
            rank -= 1
        info.append(SparseMetaData(True, shared or map_op, rank))
        stored.append(expand_dims(handle, -1))
    return stored, info


def _find_map_op(handle):
    op = handle.op
    if op.type in ("AddSparseToTensorsMap", "AddManySparseToTensorsMap"):
        return op
    stack, seen = [op], set()
    while stack:
        o = stack.pop()
        if o in seen:
            continue
        seen.add(o)
        if o.type in ("AddSparseToTensorsMap", "AddManySparseToTensorsMap"):
            return o
        stack.extend(i.op for i in o.inputs)
    return op


def restore_sparse_tensors(stored_list, sparse_info_list):
    """The dequeued tensors with SparseTensors rebuilt from their handles."""
    received_sequence = isinstance(stored_list, (list, tuple))
    if not received_sequence:
        stored_list = (stored_list,)
    out = []
    for s, info in zip(stored_list, sparse_info_list):
        if info.sparse:
            out.append(stm.take_many_sparse_from_tensors_map(
                info.map_op, squeeze(s, [1]),
                rank=None if info.rank is None else info.rank + 1))
        else:
            out.append(s)
    return out if received_sequence else out[0]


def enqueue(queue, tensor_list, threads, enqueue_many, keep_input):
    """Adds a QueueRunner with `threads` copies of the enqueue op."""
    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    if keep_input.shape.rank == 1:
        op = enqueue_fn(select_which_to_enqueue(tensor_list, keep_input))
    else:
        op = _smart_cond(keep_input, lambda: enqueue_fn(tensor_list), _no_op)
    add_queue_runner(QueueRunner(queue, [op] * threads))


def enqueue_join(queue, tensor_list_list, enqueue_many, keep_input):
    """Adds a QueueRunner with one enqueue op (and thread) per tensor list."""
    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    if keep_input.shape.rank == 1:
        ops = [enqueue_fn(select_which_to_enqueue(x, keep_input)) for x in tensor_list_list]
    else:
        ops = [_smart_cond(keep_input, lambda x=x: enqueue_fn(x), _no_op)
               for x in tensor_list_list]
    add_queue_runner(QueueRunner(queue, ops))


def _no_op():
    return no_op()


def select_which_to_enqueue(tensor_list, keep_input):
    """The rows of each tensor whose `keep_input` entry is true."""
    select = cast(keep_input, dtypes.int32)
    return [dynamic_partition(x, select, num_partitions=2)[1] for x in tensor_list]


def queue_fraction(queue, capacity):
    """cast(size) * (1 / capacity), the fullness TF summarizes."""
    return cast(queue.size(), dtypes.float32) * (1. / capacity)
