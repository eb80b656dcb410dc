"""A queue fed from Python: feed functions that cut batches of row indices out of arrays
epoch by epoch, and the queue runner that feeds them (TF's feeding_functions.py and
feeding_queue_runner.py)."""
import random

from trainflow._src import tf_logging as logging
from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.constant_op import placeholder
from trainflow._src.framework.scopes import name_scope
from trainflow._src.ops.array.array_ops import cast
from trainflow._src.ops.data_flow.queues import FIFOQueue, RandomShuffleQueue
from trainflow._src.ops.math.math_ops import maximum
from trainflow._src.ops.summary.summary_ops import scalar as scalar_summary
from trainflow._src.train.queue_runner_impl import QueueRunner, add_queue_runner


def _get_integer_indices_for_next_batch(batch_indices_start, batch_size, epoch_end,
                                        array_length, current_epoch, total_epochs):
    """The next batch's row indices (cut at the last epoch's end) and the epoch count."""
    if total_epochs is not None and current_epoch >= total_epochs:
        raise errors.OutOfRangeError(None, None, f"Already emitted {current_epoch} epochs.")
    batch_indices = [j % array_length
                     for j in range(batch_indices_start, batch_indices_start + batch_size)]
    epoch_end_indices = [i for i, x in enumerate(batch_indices) if x == epoch_end]
    current_epoch += len(epoch_end_indices)
    if total_epochs is None or current_epoch < total_epochs:
        return batch_indices, current_epoch
    final_epoch_end_inclusive = epoch_end_indices[-(current_epoch - total_epochs + 1)]
    return batch_indices[:final_epoch_end_inclusive + 1], current_epoch


class OrderedDictNumpyFeedFn:
    """Feeds the row index and each column of an ordered dict of equally long arrays."""

    def __init__(self, placeholders, ordered_dict_of_arrays, batch_size, random_start=False,
                 seed=None, num_epochs=None):
        if len(placeholders) != len(ordered_dict_of_arrays) + 1:
            raise ValueError(f"Expected {len(ordered_dict_of_arrays)} placeholders; got "
                             f"{len(placeholders)}.")
        self._index_placeholder = placeholders[0]
        self._col_placeholders = placeholders[1:]
        self._arrays = ordered_dict_of_arrays
        self._max = len(next(iter(ordered_dict_of_arrays.values())))
        for v in ordered_dict_of_arrays.values():
            if len(v) != self._max:
                raise ValueError("Array lengths must match.")
        self._batch_size = batch_size
        self._num_epochs = num_epochs
        self._epoch = 0
        rng = random.Random(seed)
        self._trav = rng.randrange(self._max) if random_start else 0
        self._epoch_end = (self._trav - 1) % self._max

    def __call__(self):
        indices, self._epoch = _get_integer_indices_for_next_batch(
            self._trav, self._batch_size, self._epoch_end, self._max, self._epoch,
            self._num_epochs)
        self._trav = (indices[-1] + 1) % self._max
        feed_dict = {self._index_placeholder: indices}
        feed_dict.update(zip(self._col_placeholders,
                             [column[indices] for column in self._arrays.values()]))
        return feed_dict


class FeedingQueueRunner(QueueRunner):
    """A QueueRunner whose enqueue ops each run with the feed dict of a feed function; a
    feed function's OutOfRangeError (its epochs are done) ends its thread, and the last
    thread to end closes the queue."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 feed_fns=None, queue_closed_exception_types=None):
        super().__init__(queue=queue, enqueue_ops=enqueue_ops, close_op=close_op,
                         cancel_op=cancel_op,
                         queue_closed_exception_types=queue_closed_exception_types)
        if feed_fns is None or len(feed_fns) != len(enqueue_ops):
            raise ValueError("If feed_fns is not None, it must have the same length as "
                             "enqueue_ops.")
        self._feed_fns = dict(zip(enqueue_ops, feed_fns))

    def _run(self, sess, enqueue_op, coord=None):
        feed_fn = self._feed_fns[enqueue_op]
        self._run_steps(sess, lambda: lambda: sess.run(enqueue_op, feed_dict=feed_fn()), coord)


def enqueue_data(data, capacity, shuffle=False, min_after_dequeue=None, num_threads=1,
                 seed=None, name="enqueue_input", enqueue_size=1, num_epochs=None):
    """A queue of (row index, column...) elements fed from an ordered dict of arrays by
    `num_threads` feeding threads (a RandomShuffleQueue when shuffling)."""
    with name_scope(name):
        types = [dtypes.int64] + [dtypes.as_dtype(col.dtype) for col in data.values()]
        queue_shapes = [()] + [col.shape[1:] for col in data.values()]
        if num_threads > 1 and num_epochs is not None:
            logging.warning("enqueue_data was called with num_epochs and num_threads > 1. "
                            "num_epochs is applied per thread, so this will produce more "
                            "epochs than you probably intend. If you want to limit epochs, "
                            "use one thread.")
        if shuffle:
            min_after_dequeue = int(capacity / 4 if min_after_dequeue is None
                                    else min_after_dequeue)
            queue = RandomShuffleQueue(capacity, min_after_dequeue, dtypes=types,
                                       shapes=queue_shapes, seed=seed)
        else:
            min_after_dequeue = 0
            queue = FIFOQueue(capacity, dtypes=types, shapes=queue_shapes)
        enqueue_ops, feed_fns = [], []
        for i in range(num_threads):
            placeholders = [placeholder(t) for t in types]
            enqueue_ops.append(queue.enqueue_many(placeholders))
            seed_i = None if seed is None else (i + 1) * seed
            feed_fns.append(OrderedDictNumpyFeedFn(placeholders, data, enqueue_size,
                                                   random_start=shuffle, seed=seed_i,
                                                   num_epochs=num_epochs))
        add_queue_runner(FeedingQueueRunner(queue=queue, enqueue_ops=enqueue_ops,
                                            feed_fns=feed_fns))
        full = cast(maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (
            1.0 / (capacity - min_after_dequeue))
        scalar_summary(f"queue/{queue.name}/fraction_over_{min_after_dequeue}_of_"
                       f"{capacity - min_after_dequeue}_full", full)
        return queue
