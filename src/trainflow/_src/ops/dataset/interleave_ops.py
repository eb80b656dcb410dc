"""Datasets interleaving the datasets a function makes of each input element:
InterleaveDataset (interleave), ParallelInterleaveDatasetV2-V4 (interleave with
num_parallel_calls) and ParallelInterleaveDataset (tf.data.experimental.parallel_interleave).

All deliver TF's deterministic order: `cycle_length` open iterators, `block_length`
elements from each in turn; an exhausted iterator's place takes the next input element
when the cycle comes back to it. The parallel kinds read each open iterator ahead on its
own thread (a PrefetchIterator), so the cycle's elements are computed concurrently.
"""
import collections
import copy
import os
import time

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import background
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_function import cached_function
from trainflow._src.ops.dataset.dataset_op import register_dataset
from trainflow._src.ops.dataset.map_ops import FUNCTION_ATTRS
from trainflow._src.ops.dataset.optimize_ops import nondeterministic
from trainflow._src.ops.dataset.parallel_map_ops import error_data, error_from_data
from trainflow._src.ops.dataset.prefetch_ops import PrefetchIterator


def _positive(value, what, op, autotune=None):
    value = dv.scalar_value(value, what)
    if value == background.AUTOTUNE and autotune is not None:
        return autotune
    if value <= 0:
        raise errors.InvalidArgumentError(None, op, f"{what} must be greater than zero.")
    return value


class InterleaveValue(dv.DatasetValue):
    """The datasets `fn` makes of `source`'s elements, interleaved. `buffer` > 0 makes it
    the parallel kind: each open dataset is read that many elements ahead on a thread, the
    cycle is filled at the start, `prefetch` more input datasets are opened ahead, and an
    error takes the place of the element it replaces (TF's parallel interleave). `sloppy`
    returns the first ready element of the cycle instead of waiting for the next in order."""

    def __init__(self, source, fn, cycle, block, buffer=0, prefetch=0, sloppy=False):
        self.source, self.fn, self.cycle, self.block, self.buffer, self.prefetch = \
            source, fn, cycle, block, buffer, prefetch
        self.sloppy = sloppy and buffer > 0

    def iterator(self):
        spec = self
        if nondeterministic() and self.buffer > 0 and not self.sloppy:
            spec = copy.copy(self)
            spec.sloppy = True
        return InterleaveIterator(self.source.iterator(), spec)

    def inputs(self):
        return (self.source,)


class _ErrorIterator(dv.ElementIterator):
    """The place of an input element that failed (reading it, or making its dataset):
    raises the error once, then ends."""

    def __init__(self, error):
        self.error = error

    def next(self, state):
        if self.error is None:
            return dv.END
        error, self.error = self.error, None
        raise error


def _counts_as_element(error):
    return isinstance(error, errors.OpError) and not isinstance(
        error, (errors.CancelledError, errors.DeadlineExceededError))


class InterleaveIterator(dv.ChildIterator):
    """TF's interleave order: `cycle` open iterators (`slots`, each [element, iterator]),
    `block` elements from each in turn; a finished one's place takes the next input."""

    def __init__(self, source, spec):
        super().__init__(source)
        self.spec = spec
        self.parallel = spec.buffer > 0
        self.slots = [None] * spec.cycle
        self.future = collections.deque()  # [element, iterator] opened ahead (parallel)
        self.cycle_index = 0
        self.block_index = 0
        self.end_of_input = False
        self.num_open = 0
        self.started = not self.parallel

    def _make(self, element):
        it = dv.as_dataset(self.spec.fn(element)[0]).iterator()
        return PrefetchIterator(it, self.spec.buffer) if self.parallel else it

    def _read(self, state):
        """[element, its iterator] of the next input element; None at the input's end."""
        if self.end_of_input:
            return None
        try:
            element = self.source.next(state)
            if element is dv.END:
                self.end_of_input = True
                return None
            it = self._make(element)
        except Exception as e:
            if not self.parallel or not _counts_as_element(e):
                raise
            return [None, _ErrorIterator(e)]
        if isinstance(it, PrefetchIterator):
            it._start()  # read ahead now: that is the parallelism
        return [element, it]

    def _take_input(self, state):
        item = self.future.popleft() if self.future else self._read(state)
        while self.parallel and len(self.future) < self.spec.prefetch:
            ahead = self._read(state)
            if ahead is None:
                break
            self.future.append(ahead)
        return item

    def _fill(self, i, state):
        item = self._take_input(state)
        if item is not None:
            self.slots[i] = item
            self.num_open += 1

    def _advance_block(self):
        self.block_index += 1
        if self.block_index == self.spec.block:
            self._advance_cycle()

    def _advance_cycle(self):
        self.block_index = 0
        self.cycle_index = (self.cycle_index + 1) % self.spec.cycle

    def next(self, state):
        if not self.started:
            self.started = True
            for i in range(self.spec.cycle):
                self._fill(i, state)
        if self.spec.sloppy:
            return self._next_sloppy(state)
        while not self.end_of_input or self.num_open > 0 or self.future:
            i = self.cycle_index
            if self.slots[i] is not None:
                try:
                    out = self.slots[i][1].next(state)
                except Exception as e:
                    if self.parallel and _counts_as_element(e):
                        self._advance_block()
                    raise
                if out is not dv.END:
                    self._advance_block()
                    return out
                self.slots[i][1].close()
                self.slots[i] = None
                self.num_open -= 1
                if self.parallel:
                    self._fill(i, state)
                self._advance_cycle()
            elif not self.end_of_input or self.future:
                self._fill(i, state)
            else:
                self._advance_cycle()
        return dv.END

    @staticmethod
    def _ready(item):
        it = item[1]
        if not isinstance(it, PrefetchIterator):
            return True
        if it.thread is None and not it.finished and not it.buffer:
            it._start()  # restored: its reading ahead starts again
        return bool(it.buffer) or it.finished

    def _advance_from(self, j):
        """Counts an element of slot `j` (sloppy): a full block moves the cycle past j."""
        self.block_index += 1
        if self.block_index == self.spec.block:
            self.block_index = 0
            self.cycle_index = (j + 1) % self.spec.cycle

    def _next_sloppy(self, state):
        """The first ready element, scanning the cycle from its position (TF's sloppy
        parallel interleave: no waiting behind a slow dataset)."""
        while self.num_open > 0 or self.future or not self.end_of_input:
            for k in range(self.spec.cycle):
                j = (self.cycle_index + k) % self.spec.cycle
                item = self.slots[j]
                if item is None:
                    if self.future or not self.end_of_input:
                        self._fill(j, state)
                    continue
                if not self._ready(item):
                    continue
                try:
                    out = item[1].next(state)
                except Exception as e:
                    if _counts_as_element(e):
                        self._advance_from(j)
                    raise
                if out is not dv.END:
                    self._advance_from(j)
                    return out
                item[1].close()
                self.slots[j] = None
                self.num_open -= 1
                self._fill(j, state)
            if self.num_open > 0:
                state.check()
                time.sleep(0.001)  # none ready: the open datasets' threads are working
        return dv.END

    # -- save / restore -------------------------------------------------------------------
    @staticmethod
    def _save_item(item):
        if item is None:
            return None
        element, it = item
        if isinstance(it, _ErrorIterator):
            return {"error": None if it.error is None else error_data(it.error)}
        if isinstance(it, PrefetchIterator):
            saved = it.save()
            return {"element": element, "inner": saved["source"], "buffer": saved["buffer"],
                    "finished": saved["finished"]}
        return {"element": element, "inner": it.save()}

    def _restore_item(self, saved):
        if saved is None:
            return None
        if "error" in saved:
            error = saved["error"]
            return [None, _ErrorIterator(None if error is None else
                                         error_from_data(error, None))]
        it = self._make(saved["element"])
        if isinstance(it, PrefetchIterator):
            it.restore({"source": saved["inner"], "buffer": saved["buffer"],
                        "finished": saved["finished"]})
        else:
            it.restore(saved["inner"])
        return [saved["element"], it]

    def save(self):
        return {"source": self.source.save(),
                "slots": [self._save_item(item) for item in self.slots],
                "future": [self._save_item(item) for item in self.future],
                "cycle_index": self.cycle_index, "block_index": self.block_index,
                "end_of_input": self.end_of_input, "num_open": self.num_open,
                "started": self.started}

    def restore(self, saved):
        self.close_open()
        self.source.restore(saved["source"])
        for key in ("cycle_index", "block_index", "end_of_input", "num_open", "started"):
            setattr(self, key, saved[key])
        self.slots = [self._restore_item(item) for item in saved["slots"]]
        self.future = collections.deque(self._restore_item(item) for item in saved["future"])

    def close_open(self):
        for item in list(self.slots) + list(self.future):
            if item is not None:
                item[1].close()
        self.slots = [None] * self.spec.cycle
        self.future.clear()

    def close(self):
        self.close_open()
        super().close()


def _interleave(input_dataset, other_arguments, cycle_length, block_length, *, ctx):
    cycle = _positive(cycle_length, "cycle_length", ctx.op, os.cpu_count() or 1)
    block = _positive(block_length, "block_length", ctx.op)
    return InterleaveValue(dv.as_dataset(input_dataset),
                           cached_function(ctx, "f", other_arguments), cycle, block)


def _parallel_interleave(input_dataset, other_arguments, cycle_length, block_length,
                         num_parallel_calls, *, ctx):
    cycle = _positive(cycle_length, "cycle_length", ctx.op, os.cpu_count() or 1)
    block = _positive(block_length, "block_length", ctx.op)
    _positive(num_parallel_calls, "num_parallel_calls", ctx.op, cycle)
    attrs = ctx.op._attrs
    sloppy = bool(attrs.get("sloppy", False)) or attrs.get("deterministic") in ("false",
                                                                               b"false")
    return InterleaveValue(dv.as_dataset(input_dataset),
                           cached_function(ctx, "f", other_arguments), cycle, block,
                           buffer=block, sloppy=sloppy)


def _parallel_interleave_v4(input_dataset, other_arguments, cycle_length, block_length,
                            buffer_output_elements, prefetch_input_elements,
                            num_parallel_calls, *, ctx):
    value = _parallel_interleave(input_dataset, other_arguments, cycle_length, block_length,
                                 num_parallel_calls, ctx=ctx)
    buffer = dv.scalar_value(buffer_output_elements, "buffer_output_elements")
    value.buffer = value.block if buffer == background.AUTOTUNE else max(1, buffer)
    prefetch = dv.scalar_value(prefetch_input_elements, "prefetch_input_elements")
    value.prefetch = value.cycle if prefetch == background.AUTOTUNE else max(0, prefetch)
    return value


def _legacy_parallel_interleave(input_dataset, other_arguments, cycle_length, block_length,
                                sloppy, buffer_output_elements, prefetch_input_elements,
                                *, ctx):
    cycle = _positive(cycle_length, "cycle_length", ctx.op)
    block = _positive(block_length, "block_length", ctx.op)
    buffer = _positive(buffer_output_elements, "buffer_output_elements", ctx.op)
    prefetch = dv.scalar_value(prefetch_input_elements, "prefetch_input_elements")
    if prefetch < 0:
        raise errors.InvalidArgumentError(
            None, ctx.op, "prefetch_input_elements must be greater than or equal to zero.")
    return InterleaveValue(dv.as_dataset(input_dataset),
                           cached_function(ctx, "f", other_arguments), cycle, block,
                           buffer=buffer, prefetch=prefetch, sloppy=bool(np.asarray(sloppy)))


_INPUTS = ["input_dataset: variant", "other_arguments: Targuments", "cycle_length: int64",
           "block_length: int64"]
_ATTRS = ["f: func"] + FUNCTION_ATTRS
register_dataset("InterleaveDataset", _INPUTS, _ATTRS, _interleave)
register_dataset("ParallelInterleaveDatasetV2", _INPUTS + ["num_parallel_calls: int64"],
                 _ATTRS + ["sloppy: bool = false"], _parallel_interleave)
register_dataset("ParallelInterleaveDatasetV3", _INPUTS + ["num_parallel_calls: int64"],
                 _ATTRS + ["deterministic: string = 'default'"], _parallel_interleave)
register_dataset("ParallelInterleaveDatasetV4",
                 _INPUTS + ["buffer_output_elements: int64", "prefetch_input_elements: int64",
                            "num_parallel_calls: int64"],
                 _ATTRS + ["deterministic: string = 'default'"], _parallel_interleave_v4)
register_dataset("ParallelInterleaveDataset",
                 _INPUTS + ["sloppy: bool", "buffer_output_elements: int64",
                            "prefetch_input_elements: int64"], _ATTRS,
                 _legacy_parallel_interleave)
