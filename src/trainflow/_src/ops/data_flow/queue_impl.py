"""The queue resources behind TF's queue ops: FIFO, padding FIFO, random shuffle and
priority queues living in a session's resource manager.

Blocking follows TensorFlow: an enqueue waits for room, a dequeue for elements;
concurrent requests are served in arrival order, and a request larger than the
capacity is served piecewise (a `dequeue_many(128)` on a queue of capacity 32
works). Every wait goes through the step's RunState, so `Session.close()` and
`RunOptions(timeout_in_ms)` end it with CancelledError / DeadlineExceededError.
"""
import collections
import heapq
import threading

import numpy as np

from trainflow._src.framework import errors


def _fmt(shape):
    return "[" + ",".join("?" if d is None or d < 0 else str(d) for d in shape) + "]"


class QueueResource:
    """A FIFO queue of tuples of arrays (TF's FIFOQueue)."""

    kind = "FIFOQueue"
    enqueue_kind = "FIFOQueue"  # the word TF's enqueue errors use

    def __init__(self, name, dtypes, shapes, capacity):
        """
        Args:
          name: the resource name used in error messages.
          dtypes: the NumPy dtypes of the components.
          shapes: one tuple per component (None dims allowed for padding queues), or
            an empty list when the shapes are unspecified.
          capacity: the most elements held; -1 (or any negative) for unbounded.
        """
        self.name = name
        self.dtypes = list(dtypes)
        self.shapes = [tuple(s) for s in shapes] if shapes else []
        self.capacity = capacity if capacity >= 0 else None
        self._cond = threading.Condition()
        self._closed = False
        self._cancel_enqueues = False
        self._torn_down = False
        self._enqueuers = collections.deque()
        self._dequeuers = collections.deque()
        self._init_storage()

    # -- storage (overridden by the random-shuffle and priority queues) ----------------
    def _init_storage(self):
        self._items = collections.deque()

    def _put(self, item):
        self._items.append(item)

    def _take(self):
        return self._items.popleft()

    def _take_n(self, k):
        take = self._take
        return [take() for _ in range(k)]

    def _restore(self, items):
        self._items.extendleft(reversed(items))

    def _available(self):
        """How many elements a dequeue may take now."""
        return len(self._items)

    # -- introspection ---------------------------------------------------------------
    def size(self):
        return len(self._items)

    def is_closed(self):
        return self._closed

    def spec(self):
        return (self.kind, [np.dtype(d) for d in self.dtypes], self.shapes, self.capacity)

    # -- validation -------------------------------------------------------------------
    def check_components(self, components, batched):
        """Raises InvalidArgumentError unless `components` fit the queue's signature."""
        if len(components) != len(self.dtypes):
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind} '{self.name}' expects {len(self.dtypes)} components "
                            f"but got {len(components)}")
        n = None
        for i, c in enumerate(components):
            shape = c.shape[1:] if batched else c.shape
            if batched:
                if c.ndim == 0:
                    raise errors.InvalidArgumentError(
                        None, None, f"Shape mismatch in tuple component {i}. Expected at least "
                                    "rank 1 for enqueue_many, got []")
                if n is None:
                    n = c.shape[0]
                elif c.shape[0] != n:
                    raise errors.InvalidArgumentError(
                        None, None, "Expected all components to have the same size in the 0th "
                                    f"dimension, but component {i} has {c.shape[0]}, "
                                    f"component 0 has {n}")
            if self.shapes and not self._shape_ok(shape, self.shapes[i]):
                what = "Expected batched shape" if batched else "Expected"
                expected = _fmt(((n,) if batched else ()) + tuple(self.shapes[i]))
                got = _fmt(c.shape)
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch in tuple component {i}. {what} {expected}, "
                                f"got {got}")
        return n

    @staticmethod
    def _shape_ok(shape, expected):
        return len(shape) == len(expected) and all(
            e is None or e < 0 or e == d for d, e in zip(shape, expected))

    # -- operations -------------------------------------------------------------------
    def enqueue(self, rs, components, batched=False):
        """Adds one element (or, if `batched`, each row) to the queue, waiting for room."""
        n = self.check_components(components, batched)
        # Elements hold copies (later updates of the inputs never show in the queue);
        # scalars are stored as NumPy scalars / Python objects, which batch quickly.
        if batched:
            items = list(zip(*[list(np.array(c)) for c in components])) if n else []
        else:
            items = [tuple(c[()] if c.ndim == 0 else np.array(c) for c in components)]
        with self._cond:
            if self._closed:
                raise errors.CancelledError(None, None, f"{self.enqueue_kind} '{self.name}' is "
                                                        "closed.")
            req = object()
            self._enqueuers.append(req)
            try:
                i = 0
                while i < len(items):
                    rs.wait(self._cond, lambda: self._cancel_enqueues or (
                        self._enqueuers[0] is req and self._has_room()))
                    self._check_torn_down()
                    if self._cancel_enqueues:
                        raise errors.CancelledError(
                            None, None, f"{self.enqueue_kind} '{self.name}' is closed.")
                    room = len(items) - i if self.capacity is None else \
                        min(len(items) - i, self.capacity - len(self._items))
                    for item in items[i:i + room]:
                        self._put(item)
                    i += room
                    self._cond.notify_all()
            finally:
                self._enqueuers.remove(req)
                self._cond.notify_all()

    def _has_room(self):
        return self.capacity is None or len(self._items) < self.capacity

    def dequeue(self, rs, n=None, allow_smaller=False):
        """Removes one element (n None) or a batch of `n`; returns a list of arrays.

        Raises:
          OutOfRangeError: if the queue is closed with too few elements.
        """
        count = 1 if n is None else n
        if n is not None and not self.shapes and count > 0:
            op = "DequeueUpTo" if allow_smaller else "DequeueMany"
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind}'s {op} requires the components to have specified "
                            "shapes.")
        taken = []
        with self._cond:
            req = object()
            self._dequeuers.append(req)
            try:
                while len(taken) < count:
                    rs.wait(self._cond, lambda: self._dequeuers[0] is req and (
                        self._closed or self._available() > 0))
                    self._check_torn_down()
                    avail = self._available()
                    if avail > 0:
                        taken.extend(self._take_n(min(avail, count - len(taken))))
                        self._cond.notify_all()
                        continue
                    if allow_smaller and taken:
                        break
                    size = len(self._items) + len(taken)
                    self._restore(taken)
                    self._cond.notify_all()
                    raise errors.OutOfRangeError(
                        None, None, f"{self.kind} '{self.name}' is closed and has insufficient "
                                    f"elements (requested {count}, current size {size})")
            finally:
                self._dequeuers.remove(req)
                self._cond.notify_all()
        if n is None:
            return [np.asarray(x, dtype=d) for x, d in zip(taken[0], self.dtypes)]
        return self._batch(taken)

    def _batch(self, taken):
        out = []
        for i, dtype in enumerate(self.dtypes):
            if taken:
                out.append(np.array([t[i] for t in taken], dtype=dtype))
            else:
                out.append(np.zeros((0,) + tuple(self.shapes[i]), dtype=dtype))
        return out

    def close_queue(self, cancel_pending_enqueues=False):
        """Marks the queue closed; waiting dequeues that can't be served fail.

        Raises:
          CancelledError: closing an already closed queue without cancelling pending
            enqueues, as in TF.
        """
        with self._cond:
            was_closed = self._closed
            self._closed = True
            if cancel_pending_enqueues:
                self._cancel_enqueues = True
            self._cond.notify_all()
        if was_closed and not cancel_pending_enqueues:
            raise errors.CancelledError(None, None, f"Queue '{self.name}' is already closed.")

    def close(self):
        """Teardown by the resource manager (session closed): every waiter is cancelled."""
        with self._cond:
            self._torn_down = True
            self._closed = self._cancel_enqueues = True
            self._cond.notify_all()

    def _check_torn_down(self):
        if self._torn_down:
            raise errors.CancelledError(None, None, "Session has been closed.")


class PaddingQueueResource(QueueResource):
    """A FIFO queue whose batches pad each component to the batch's largest shape."""

    kind = "PaddingFIFOQueue"

    def _batch(self, taken):
        out = []
        for i, dtype in enumerate(self.dtypes):
            rank = len(self.shapes[i])
            dims = [max((np.shape(t[i])[d] for t in taken), default=0)
                    if self.shapes[i][d] is None or self.shapes[i][d] < 0 else self.shapes[i][d]
                    for d in range(rank)]
            fill = b"" if np.dtype(dtype) == object else 0
            batch = np.full([len(taken)] + dims, fill, dtype=dtype)
            for j, t in enumerate(taken):
                batch[(j,) + tuple(slice(0, s) for s in np.shape(t[i]))] = t[i]
            out.append(batch)
        return out


class RandomShuffleQueueResource(QueueResource):
    """A queue that dequeues a uniformly random element while more than
    `min_after_dequeue` remain (or the queue is closed)."""

    kind = "RandomShuffleQueue"
    enqueue_kind = "RandomShuffleQueue"

    def __init__(self, name, dtypes, shapes, capacity, min_after_dequeue, seed, seed2):
        self.min_after_dequeue = min_after_dequeue
        if seed == 0 and seed2 == 0:
            self._rng = np.random.default_rng()
        else:
            self._rng = np.random.default_rng([seed, seed2])
        super().__init__(name, dtypes, shapes, capacity)

    def _init_storage(self):
        self._items = []

    def _take(self):
        return self._take_n(1)[0]

    def _take_n(self, k):
        # One draw of k uniforms: each picks among the elements left at its turn.
        items = self._items
        out = []
        for u in self._rng.random(k).tolist():
            j = int(u * len(items))
            items[j], items[-1] = items[-1], items[j]
            out.append(items.pop())
        return out

    def _restore(self, items):
        self._items.extend(items)

    def _available(self):
        if self._closed:
            return len(self._items)
        return max(0, len(self._items) - self.min_after_dequeue)


class PriorityQueueResource(QueueResource):
    """A queue whose first component is an int64 priority; smallest comes out first."""

    kind = "PriorityQueue"
    enqueue_kind = "PriorityQueue"

    def _init_storage(self):
        self._items = []
        self._seq = 0

    def _put(self, item):
        self._seq += 1
        heapq.heappush(self._items, (int(item[0]), self._seq, item))

    def _take(self):
        return heapq.heappop(self._items)[2]

    def _restore(self, items):
        for item in items:
            self._put(item)

    def check_components(self, components, batched):
        n = super().check_components(components, batched)
        pri = components[0]
        if pri.ndim != (1 if batched else 0):
            raise errors.InvalidArgumentError(
                None, None, f"Expected the priority element to be a scalar, but received "
                            f"shape: {_fmt(pri.shape[1:] if batched else pri.shape)}")
        return n
