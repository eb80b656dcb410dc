"""ParallelMapDatasetV2 (map with num_parallel_calls) and MapAndBatchDataset: a function
applied to elements on several worker threads, results delivered in input order.

`num_parallel_calls` workers each read the next input element (in turn, so the
results' places follow the input order) and compute it, with at most that many results
in flight (computed or not yet taken); a consumer asking for n at a time (next_many:
batch, shuffle's refills) lets up to n be in flight, and each worker then reads its
share of them from the input in one turn. Errors of the
input or of the function reach the consumer at their element's place, and reading goes
on after them, as the sequential map does. Sloppy (TF's `sloppy` / deterministic
"false", or an iterator made under OptimizeDataset's "make_sloppy") delivers each result
as soon as it is computed instead. close() cancels the threads and joins them.
"""
import collections
import os
import threading
import time

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import background
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.batch_ops import BatchValue
from trainflow._src.ops.dataset.dataset_function import cached_function
from trainflow._src.ops.dataset.dataset_op import register_dataset
from trainflow._src.ops.dataset.map_ops import FUNCTION_ATTRS
from trainflow._src.ops.dataset.optimize_ops import nondeterministic

# The most input elements a worker claims in one turn, and the most results in flight.
_CHUNK = 32
_MAX_DEMAND = 1024


def parallelism(value, op, what="num_parallel_calls"):
    """The thread count of `what` (AUTOTUNE: the machine's CPUs, at least 2)."""
    if value == background.AUTOTUNE:
        return max(2, os.cpu_count() or 2)
    if value <= 0:
        raise errors.InvalidArgumentError(None, op, f"{what} must be greater than zero.")
    return value


def error_data(exc):
    """An error as plain data (for save())."""
    code = getattr(exc, "error_code", errors.UNKNOWN)
    return {"error_code": int(code), "message": str(exc)}


def error_from_data(data, op):
    return errors.exception_type_from_error_code(data["error_code"])(
        None, op, data["message"])


def guarded(fn, preserve_cardinality, op):
    """`fn` where an OutOfRangeError it raises ends the sequence (TF 1.x's map) or, with
    `preserve_cardinality`, becomes an InvalidArgumentError (it must not look like the end)."""

    def call(element):
        try:
            return fn(element)
        except errors.OutOfRangeError as e:
            if not preserve_cardinality:
                return dv.END
            raise errors.InvalidArgumentError(
                None, op, "Function invocation produced OutOfRangeError: " + e.message) from e

    return call


class ParallelMapValue(dv.DatasetValue):
    """`fn` applied to each element of `source` by `calls` threads."""

    def __init__(self, source, fn, calls, op, sloppy=False):
        self.source, self.fn, self.calls, self.op = source, fn, calls, op
        self.sloppy = sloppy

    def iterator(self):
        preserve = bool(self.op.get_attr("preserve_cardinality")) if self.op else False
        return ParallelMapIterator(self.source.iterator(), guarded(self.fn, preserve, self.op),
                                   self.calls, self.op, self.sloppy or nondeterministic())

    def cardinality(self):
        return self.source.cardinality()

    def inputs(self):
        return (self.source,)


class _Slot:
    """One element's place in the output order: its input and, once computed, its
    result (a list of arrays, an exception, or END)."""

    __slots__ = ("element", "result", "done")

    def __init__(self, element=None, result=None, done=False):
        self.element, self.result, self.done = element, result, done


class ParallelMapIterator(dv.ChildIterator):
    """In-order (or, `sloppy`, ready-first) results of `fn` over `source`, `calls`
    computed at a time."""

    def __init__(self, source, fn, calls, op, sloppy=False):
        super().__init__(source)
        self.fn, self.calls, self.op, self.sloppy = fn, calls, op, sloppy
        self.cond = threading.Condition()  # guards slots, pending, input_done
        self.input_lock = threading.Lock()  # one worker reads the input at a time
        self.slots = collections.deque()
        self.pending = collections.deque()  # restored slots still to compute
        self.input_done = False  # END of the input is in `slots` (or was taken)
        self.finished = False  # END was returned
        self.demand = calls  # how many may be in flight (next_many raises it to its n)
        self.threads = []
        self.token = None

    # -- background: each worker reads an element (in turn), computes it, repeats --------
    def _start(self):
        self.token = token = background.Cancellation()
        self.pending = collections.deque(s for s in self.slots if not s.done)
        self.threads = [background.start_thread(lambda: self._work(token),
                                                "tf.data parallel map")
                        for _ in range(self.calls)]

    def _claim(self, token):
        """The next slots to compute (a restored one, or fresh input elements' slots,
        appended in input order), or None when there is none or the worker must stop.
        A worker reads its share of what may be in flight in one turn at the input."""
        with self.cond:
            if self.pending:
                return [self.pending.popleft()]
        with self.input_lock:
            with self.cond:
                try:
                    token.wait(self.cond, lambda: self.input_done or
                               len(self.slots) < self.demand)
                except errors.CancelledError:
                    return None
                if self.input_done:
                    return None
                room = self.demand - len(self.slots)
                count = max(1, min(room, -(-self.demand // self.calls), _CHUNK))
            claimed = []
            for _ in range(count):
                slot = self._read(token)
                if slot is None:
                    break
                with self.cond:  # kept even when stopping: the input has moved past it
                    self.slots.append(slot)
                    self.input_done = self.input_done or slot.result is dv.END and slot.done
                    self.cond.notify_all()
                if slot.done:
                    break
                claimed.append(slot)
        return None if not claimed or token.cancelled else claimed

    def _read(self, token):
        """The slot of the input's next element (an error or END already done), or None
        when stopped while waiting on the input (nothing was read)."""
        try:
            element = self.source.next(token)
        except Exception as e:  # noqa: BLE001 - delivered in order to the consumer
            if token.cancelled and isinstance(e, errors.CancelledError):
                return None
            return _Slot(result=e, done=True)
        return _Slot(element=element, result=dv.END, done=element is dv.END)

    def _work(self, token):
        fn, cond = self.fn, self.cond
        while not token.cancelled:
            slots = self._claim(token)
            if slots is None:
                with cond:
                    if token.cancelled or self.input_done and not self.pending:
                        return
                continue
            for slot in slots:
                try:
                    result = fn(slot.element)
                except Exception as e:  # noqa: BLE001 - delivered in order to the consumer
                    result = e
                with cond:
                    slot.result, slot.done = result, True
                    cond.notify_all()

    def _stop(self):
        if self.token is None:
            return
        self.token.cancel()
        deadline = time.monotonic() + 5.0
        for thread in self.threads:
            background.join(thread, max(0.0, deadline - time.monotonic()))
        self.threads, self.token = [], None

    # -- the consumer -----------------------------------------------------------------
    def next(self, state):
        if self.finished:
            return dv.END
        if self.token is None:
            self._start()
        with self.cond:
            if self.sloppy:
                state.wait(self.cond, lambda: self._ready() is not None)
                slot = self._ready()
                self.slots.remove(slot)
            else:
                state.wait(self.cond, lambda: bool(self.slots) and self.slots[0].done)
                slot = self.slots.popleft()
            self.cond.notify_all()
        return self._deliver(slot)

    def _ready(self):
        """(sloppy) The first computed slot, the end only once it is the first slot."""
        for k, slot in enumerate(self.slots):
            if slot.done and (k == 0 or slot.result is not dv.END):
                return slot
        return None

    def _deliver(self, slot):
        if slot.result is dv.END:  # the input's end, or the function's OutOfRangeError
            self.finished = True
            self._stop()
            return dv.END
        if isinstance(slot.result, Exception):
            raise slot.result
        return slot.result

    def next_many(self, state, n):
        """Up to `n` results; while the consumer asks for `n` at a time, up to `n` (not
        just num_parallel_calls) are in flight, and each worker takes its share of them
        from the input in one turn (fewer hand-offs between threads)."""
        out = []
        if self.finished or n <= 0:
            return out
        if self.sloppy:
            while len(out) < n:
                element = self.next(state)
                if element is dv.END:
                    break
                out.append(element)
            return out
        with self.cond:
            self.demand = max(self.calls, min(n, _MAX_DEMAND))
            self.cond.notify_all()
        if self.token is None:
            self._start()
        head_done = lambda: bool(self.slots) and self.slots[0].done  # noqa: E731
        while len(out) < n:
            with self.cond:
                state.wait(self.cond, head_done)
                ready = []
                while self.slots and self.slots[0].done and len(out) + len(ready) < n:
                    slot = self.slots.popleft()
                    ready.append(slot)
                    if slot.result is dv.END or isinstance(slot.result, Exception):
                        break
                self.cond.notify_all()
            for slot in ready:
                result = self._deliver(slot)
                if result is dv.END:
                    return out
                out.append(result)
        return out

    def save(self):
        self._stop()  # the threads pause while the position is taken
        slots = []
        for slot in self.slots:
            if not slot.done:
                slots.append({"element": slot.element})
            elif isinstance(slot.result, Exception):
                slots.append({"error": error_data(slot.result)})
            elif slot.result is dv.END:
                slots.append({"end": True})
            else:
                slots.append({"result": [np.asarray(v) for v in slot.result]})
        return {"source": self.source.save(), "slots": slots,
                "input_done": self.input_done, "finished": self.finished}

    def restore(self, saved):
        self._stop()
        self.source.restore(saved["source"])
        self.slots = collections.deque(self._slot(s) for s in saved["slots"])
        self.input_done, self.finished = saved["input_done"], saved["finished"]

    def _slot(self, saved):
        if "element" in saved:
            return _Slot(element=saved["element"])
        if "error" in saved:
            return _Slot(result=error_from_data(saved["error"], self.op), done=True)
        if "end" in saved:
            return _Slot(result=dv.END, done=True)
        return _Slot(result=saved["result"], done=True)

    def close(self):
        self._stop()
        super().close()


def _parallel_map(input_dataset, other_arguments, num_parallel_calls, *, ctx):
    calls = parallelism(dv.scalar_value(num_parallel_calls, "num_parallel_calls"), ctx.op)
    attrs = ctx.op._attrs
    sloppy = bool(attrs.get("sloppy", False)) or attrs.get("deterministic") in ("false",
                                                                               b"false")
    return ParallelMapValue(dv.as_dataset(input_dataset),
                            cached_function(ctx, "f", other_arguments), calls, ctx.op, sloppy)


def _map_and_batch(input_dataset, other_arguments, batch_size, num_parallel_calls,
                   drop_remainder, *, ctx):
    size = dv.scalar_value(batch_size, "batch_size")
    calls = parallelism(dv.scalar_value(num_parallel_calls, "num_parallel_calls"), ctx.op)
    mapped = ParallelMapValue(dv.as_dataset(input_dataset),
                              cached_function(ctx, "f", other_arguments), calls, ctx.op)
    return BatchValue(mapped, size, bool(np.asarray(drop_remainder)), ctx.op)


_INPUTS = ["input_dataset: variant", "other_arguments: Targuments"]
register_dataset("ParallelMapDatasetV2", _INPUTS + ["num_parallel_calls: int64"],
                 ["f: func"] + FUNCTION_ATTRS + [
                     "use_inter_op_parallelism: bool = true",
                     "deterministic: string = 'default'",
                     "preserve_cardinality: bool = false",
                     "use_unbounded_threadpool: bool = false"], _parallel_map)
# TF 1.15's graphs: num_parallel_calls as int32.
register_dataset("ParallelMapDataset", _INPUTS + ["num_parallel_calls: int32"],
                 ["f: func"] + FUNCTION_ATTRS + [
                     "use_inter_op_parallelism: bool = true", "sloppy: bool = false",
                     "preserve_cardinality: bool = false"], _parallel_map)
register_dataset("MapAndBatchDataset",
                 _INPUTS + ["batch_size: int64", "num_parallel_calls: int64",
                            "drop_remainder: bool"],
                 ["f: func"] + FUNCTION_ATTRS + ["preserve_cardinality: bool = false"],
                 _map_and_batch)
