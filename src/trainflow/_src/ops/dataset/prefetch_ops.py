"""PrefetchDataset (prefetch): a background thread reads ahead of the consumer into a
bounded buffer. Errors of the input reach the consumer in order, and reading goes on
after them as it would without the buffer."""
import collections
import threading

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import background
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import register_dataset


class PrefetchValue(dv.DatasetValue):
    """`source`, read up to `buffer_size` elements ahead on another thread."""

    def __init__(self, source, buffer_size):
        self.source = source
        self.buffer_size = background.AUTOTUNE_BUFFER if buffer_size < 0 else buffer_size

    def iterator(self):
        if self.buffer_size == 0:
            return self.source.iterator()
        return PrefetchIterator(self.source.iterator(), self.buffer_size)

    def cardinality(self):
        return self.source.cardinality()

    def inputs(self):
        return (self.source,)


class PrefetchIterator(dv.ChildIterator):
    """Reads `source` ahead into a buffer of `size` items on a thread started lazily."""

    def __init__(self, source, size):
        super().__init__(source)
        self.size = size
        self.cond = threading.Condition()
        self.buffer = collections.deque()  # elements, exceptions, or END last
        self.thread = None
        self.token = None
        self.finished = False  # END is in the buffer (or was taken)

    def _fill(self, token):
        while True:
            with self.cond:
                try:
                    token.wait(self.cond, lambda: len(self.buffer) < self.size)
                except Exception:  # noqa: BLE001 - cancelled: the consumer closed us
                    return
            try:
                item = self.source.next(token)
            except Exception as e:  # noqa: BLE001 - handed to the consumer in order
                if token.cancelled and isinstance(e, errors.CancelledError):
                    return  # our own cancellation; an input error is kept (save() needs it)
                item = e
            with self.cond:
                self.buffer.append(item)
                self.cond.notify_all()
            if item is dv.END:
                return

    def _start(self):
        self.token = background.Cancellation()
        token = self.token
        self.thread = background.start_thread(lambda: self._fill(token), "tf.data prefetch")

    def next(self, state):
        if self.finished and not self.buffer:
            return dv.END
        if self.thread is None:
            self._start()
        with self.cond:
            state.wait(self.cond, lambda: bool(self.buffer))
            item = self.buffer.popleft()
            self.cond.notify_all()
        if item is dv.END:
            self.finished = True
            return dv.END
        if isinstance(item, Exception):
            raise item
        return item

    def _stop(self):
        if self.thread is not None:
            self.token.cancel()
            background.join(self.thread)
            self.thread = None

    def save(self):
        self._stop()  # the producer pauses while its input is saved
        return {"source": self.source.save(), "buffer": list(self.buffer),
                "finished": self.finished}

    def restore(self, saved):
        self._stop()
        self.source.restore(saved["source"])
        self.buffer = collections.deque(saved["buffer"])
        self.finished = saved["finished"]

    def close(self):
        self._stop()
        super().close()


def _prefetch(input_dataset, buffer_size, *, ctx):
    size = dv.scalar_value(buffer_size, "buffer_size")
    if size < background.AUTOTUNE:
        raise errors.InvalidArgumentError(
            None, ctx.op, "buffer_size must be >= 0 or set buffer_size to be -1 for "
                          "auto-tuning")
    return PrefetchValue(dv.as_dataset(input_dataset), size)


register_dataset("PrefetchDataset", ["input_dataset: variant", "buffer_size: int64"],
                 ["slack_period: int = 0", "legacy_autotune: bool = true",
                  "buffer_size_min: int = 0"], _prefetch)
