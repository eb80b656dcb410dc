"""TF1's queue-based input functions (`tf.train.string_input_producer`, `batch`,
`shuffle_batch` ...): each builds a queue, enqueue ops run by a QueueRunner added to
the QUEUE_RUNNERS collection, and the dequeue op the model reads from."""
__all__ = ["match_filenames_once", "limit_epochs", "input_producer", "string_input_producer",
           "range_input_producer", "slice_input_producer", "batch", "maybe_batch",
           "batch_join", "maybe_batch_join", "shuffle_batch", "maybe_shuffle_batch",
           "shuffle_batch_join", "maybe_shuffle_batch_join"]

from trainflow._src.framework import dtypes
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.sparse_tensor import SparseTensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import as_shape
from trainflow._src.ops.array.array_ops import identity
from trainflow._src.ops.array.create import range as range_
from trainflow._src.ops.array.shape import shape as shape_of, size
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.array.gather import gather
from trainflow._src.ops.control_flow.assert_op import Assert
from trainflow._src.ops.data_flow.queues import FIFOQueue, RandomShuffleQueue
from trainflow._src.ops.io.file_io_ops import matching_files
from trainflow._src.ops.math.math_ops import greater, maximum
from trainflow._src.ops.random.random_ops import random_shuffle
from trainflow._src.ops.state.variables import VariableV1
from trainflow._src.train import batching as b
from trainflow._src.train.queue_runner_impl import QueueRunner, add_queue_runner


def match_filenames_once(pattern, name=None):
    """A local variable holding the files matching `pattern` (computed when local
    variables are initialized)."""
    with name_scope(name, "matching_filenames", [pattern]) as name:
        return VariableV1(matching_files(pattern), name=name, trainable=False,
                          validate_shape=False, collections=[GraphKeys.LOCAL_VARIABLES])


def limit_epochs(tensor, num_epochs=None, name=None):
    """Returns `tensor` `num_epochs` times, then raises OutOfRangeError (a local
    `epochs` variable counted with CountUpTo)."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with name_scope(name, "limit_epochs", [tensor]) as name:
        zero64 = convert_to_tensor(0, dtype=dtypes.int64)
        epochs = VariableV1(zero64, name="epochs", trainable=False,
                            collections=[GraphKeys.LOCAL_VARIABLES])
        counter = epochs.count_up_to(num_epochs)
        with control_dependencies([counter]):
            return identity(tensor, name=name)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None,
                   capacity=32, shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFO queue fed with the rows of `input_tensor` (shuffled per epoch if
    `shuffle`), for `num_epochs` epochs or forever."""
    with name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(
            as_shape(element_shape) if element_shape is not None else input_tensor.shape[1:])
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or "
                             "`element_shape` must be specified")
        if shuffle:
            input_tensor = random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype],
                      shapes=[element_shape], shared_name=shared_name, name=name)
        enq = q.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            b.fraction_summary(summary_name, b.queue_fraction(q, capacity))
        return q


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32,
                          shared_name=None, name=None, cancel_op=None):
    """A queue of the strings (file names) in `string_tensor`, for input readers.

    Raises:
      ValueError: for an empty list.
    """
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not hasattr(string_tensor, "op") and not len(string_tensor):
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer", [string_tensor]) as name:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        with control_dependencies([Assert(greater(size(string_tensor), 0), [not_null_err])]):
            string_tensor = identity(string_tensor)
        return input_producer(input_tensor=string_tensor, shuffle=shuffle, seed=seed,
                              num_epochs=num_epochs, shared_name=shared_name, name=name,
                              summary_name=f"fraction_of_{capacity}_full", cancel_op=cancel_op,
                              capacity=capacity)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """A queue of the integers 0 .. limit-1."""
    with name_scope(name, "input_producer", [limit]) as name:
        range_tensor = range_(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity,
                              shared_name, f"fraction_of_{capacity}_full", name)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """One row (slice along dimension 0) of each tensor in `tensor_list` at a time."""
    with name_scope(name, "input_producer", tensor_list):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = shape_of(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle,
                                     seed=seed, capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [gather(t, index) for t in tensor_list]


def _batch(tensors, batch_size, keep_input, num_threads=1, capacity=32, enqueue_many=False,
           shapes=None, dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
           name=None):
    tensor_list = b.as_tensor_list(tensors)
    with name_scope(name, "batch", _flat_inputs(tensor_list) + [keep_input]) as name:
        tensor_list = b.validate(tensor_list)
        keep_input = b.validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = b.store_sparse_tensors(tensor_list, enqueue_many, keep_input)
        types = b.dtypes_of([tensor_list])
        shapes = b.shapes_of([tensor_list], shapes, enqueue_many)
        queue = b.which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes,
                                           shared_name=shared_name)
        b.enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        b.fraction_summary(f"fraction_of_{capacity}_full", b.queue_fraction(queue, capacity))
        return _dequeue_batch(queue, batch_size, allow_smaller_final_batch, name,
                              sparse_info, tensors)


def _batch_join(tensors_list, batch_size, keep_input, capacity=32, enqueue_many=False,
                shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                shared_name=None, name=None):
    tensor_list_list = b.as_tensor_list_list(tensors_list)
    flat = [t for tl in tensor_list_list for t in _flat_inputs(tl)]
    with name_scope(name, "batch_join", flat + [keep_input]) as name:
        tensor_list_list = b.validate_join(tensor_list_list)
        keep_input = b.validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = _store_join(tensor_list_list, enqueue_many, keep_input)
        types = b.dtypes_of(tensor_list_list)
        shapes = b.shapes_of(tensor_list_list, shapes, enqueue_many)
        queue = b.which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes,
                                           shared_name=shared_name)
        b.enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        b.fraction_summary(f"fraction_of_{capacity}_full", b.queue_fraction(queue, capacity))
        return _dequeue_batch(queue, batch_size, allow_smaller_final_batch, name,
                              sparse_info, tensors_list[0])


def _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads=1,
                   seed=None, enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                   shared_name=None, name=None):
    tensor_list = b.as_tensor_list(tensors)
    with name_scope(name, "shuffle_batch", _flat_inputs(tensor_list) + [keep_input]) as name:
        _check_min_after_dequeue(capacity, min_after_dequeue)
        tensor_list = b.validate(tensor_list)
        keep_input = b.validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = b.store_sparse_tensors(tensor_list, enqueue_many, keep_input)
        types = b.dtypes_of([tensor_list])
        shapes = b.shapes_of([tensor_list], shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue,
                                   seed=seed, dtypes=types, shapes=shapes,
                                   shared_name=shared_name)
        b.enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _shuffle_summary(queue, capacity, min_after_dequeue)
        return _dequeue_batch(queue, batch_size, allow_smaller_final_batch, name,
                              sparse_info, tensors)


def _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input,
                        seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    tensor_list_list = b.as_tensor_list_list(tensors_list)
    flat = [t for tl in tensor_list_list for t in _flat_inputs(tl)]
    with name_scope(name, "shuffle_batch_join", flat + [keep_input]) as name:
        _check_min_after_dequeue(capacity, min_after_dequeue)
        tensor_list_list = b.validate_join(tensor_list_list)
        keep_input = b.validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = _store_join(tensor_list_list, enqueue_many, keep_input)
        types = b.dtypes_of(tensor_list_list)
        shapes = b.shapes_of(tensor_list_list, shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue,
                                   seed=seed, dtypes=types, shapes=shapes,
                                   shared_name=shared_name)
        b.enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _shuffle_summary(queue, capacity, min_after_dequeue)
        return _dequeue_batch(queue, batch_size, allow_smaller_final_batch, name,
                              sparse_info, tensors_list[0])


def _check_min_after_dequeue(capacity, min_after_dequeue):
    if capacity <= min_after_dequeue:
        raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue "
                         f"{min_after_dequeue}.")


def _dequeue_batch(queue, batch_size, allow_smaller_final_batch, name, sparse_info, like):
    """The batch op `name` off `queue` (a smaller final batch allowed or not), its sparse
    tensors restored, in the form (list, dict or single tensor) of `like`."""
    if allow_smaller_final_batch:
        dequeued = queue.dequeue_up_to(batch_size, name=name)
    else:
        dequeued = queue.dequeue_many(batch_size, name=name)
    return b.as_original_type(like, b.restore_sparse_tensors(dequeued, sparse_info))


def _flat_inputs(tensor_list):
    out = []
    for t in tensor_list:
        if isinstance(t, SparseTensor):
            out.extend([t.indices, t.values, t.dense_shape])
        else:
            out.append(t)
    return out


def _store_join(tensor_list_list, enqueue_many, keep_input):
    """Stores the SparseTensors of every list in maps shared per column."""
    stored, info = b.store_sparse_tensors(tensor_list_list[0], enqueue_many, keep_input)
    shared = [i.map_op for i in info]
    out = [stored]
    for tl in tensor_list_list[1:]:
        s, _ = b.store_sparse_tensors(tl, enqueue_many, keep_input, shared_map_ops=shared)
        out.append(s)
    return out, info


def _shuffle_summary(queue, capacity, min_after_dequeue):
    full = cast(maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * \
        (1. / (capacity - min_after_dequeue))
    b.fraction_summary(f"fraction_over_{min_after_dequeue}_of_"
                       f"{capacity - min_after_dequeue}_full", full)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
          dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches `tensors` (a list or dict) through a FIFO (or padding) queue filled by
    `num_threads` threads."""
    return _batch(tensors, batch_size, keep_input=True, num_threads=num_threads,
                  capacity=capacity, enqueue_many=enqueue_many, shapes=shapes,
                  dynamic_pad=dynamic_pad, allow_smaller_final_batch=allow_smaller_final_batch,
                  shared_name=shared_name, name=name)


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32,
                enqueue_many=False, shapes=None, dynamic_pad=False,
                allow_smaller_final_batch=False, shared_name=None, name=None):
    """`batch`, enqueueing only the elements whose `keep_input` is true."""
    return _batch(tensors, batch_size, keep_input, num_threads=num_threads, capacity=capacity,
                  enqueue_many=enqueue_many, shapes=shapes, dynamic_pad=dynamic_pad,
                  allow_smaller_final_batch=allow_smaller_final_batch,
                  shared_name=shared_name, name=name)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
               name=None):
    """Batches from several lists of tensors, one enqueue thread per list."""
    return _batch_join(tensors_list, batch_size, keep_input=True, capacity=capacity,
                       enqueue_many=enqueue_many, shapes=shapes, dynamic_pad=dynamic_pad,
                       allow_smaller_final_batch=allow_smaller_final_batch,
                       shared_name=shared_name, name=name)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False,
                     shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                     shared_name=None, name=None):
    """`batch_join`, enqueueing only the elements whose `keep_input` is true."""
    return _batch_join(tensors_list, batch_size, keep_input, capacity=capacity,
                       enqueue_many=enqueue_many, shapes=shapes, dynamic_pad=dynamic_pad,
                       allow_smaller_final_batch=allow_smaller_final_batch,
                       shared_name=shared_name, name=name)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None,
                  enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                  shared_name=None, name=None):
    """Batches `tensors` in random order through a RandomShuffleQueue."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input=True,
                          num_threads=num_threads, seed=seed, enqueue_many=enqueue_many,
                          shapes=shapes, allow_smaller_final_batch=allow_smaller_final_batch,
                          shared_name=shared_name, name=name)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                        num_threads=1, seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    """`shuffle_batch`, enqueueing only the elements whose `keep_input` is true."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                          num_threads=num_threads, seed=seed, enqueue_many=enqueue_many,
                          shapes=shapes, allow_smaller_final_batch=allow_smaller_final_batch,
                          shared_name=shared_name, name=name)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):
    """Shuffle-batches from several lists of tensors, one enqueue thread per list."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
                               keep_input=True, seed=seed, enqueue_many=enqueue_many,
                               shapes=shapes,
                               allow_smaller_final_batch=allow_smaller_final_batch,
                               shared_name=shared_name, name=name)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
                             keep_input, seed=None, enqueue_many=False, shapes=None,
                             allow_smaller_final_batch=False, shared_name=None, name=None):
    """`shuffle_batch_join`, enqueueing only the elements whose `keep_input` is true."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
                               keep_input, seed=seed, enqueue_many=enqueue_many,
                               shapes=shapes,
                               allow_smaller_final_batch=allow_smaller_final_batch,
                               shared_name=shared_name, name=name)
