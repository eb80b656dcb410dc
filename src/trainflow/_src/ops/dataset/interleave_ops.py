"""Datasets interleaving the datasets a function makes of each input element:
InterleaveDataset (interleave), ParallelInterleaveDatasetV2-V4 (interleave with
num_parallel_calls) and ParallelInterleaveDataset (tf.data.experimental.parallel_interleave).

All deliver TF's deterministic order: `cycle_length` open iterators, `block_length`
elements from each in turn; an exhausted iterator's place takes the next input element
when the cycle comes back to it. The parallel kinds read each open iterator ahead on its
own thread (a PrefetchIterator), so the cycle's elements are computed concurrently.
"""
import os

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import background
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_function import cached_function
from trainflow._src.ops.dataset.dataset_op import register_dataset
from trainflow._src.ops.dataset.map_ops import FUNCTION_ATTRS
from trainflow._src.ops.dataset.prefetch_ops import PrefetchIterator


def _positive(value, what, op, autotune=None):
    value = dv.scalar_value(value, what)
    if value == background.AUTOTUNE and autotune is not None:
        return autotune
    if value <= 0:
        raise errors.InvalidArgumentError(None, op, f"{what} must be greater than zero.")
    return value


class InterleaveValue(dv.DatasetValue):
    """The datasets `fn` makes of `source`'s elements, interleaved; `buffer` > 0 reads each
    open one ahead by that many elements on a thread."""

    def __init__(self, source, fn, cycle, block, buffer=0):
        self.source, self.fn, self.cycle, self.block, self.buffer = \
            source, fn, cycle, block, buffer

    def iterator(self):
        return InterleaveIterator(self.source.iterator(), self)

    def inputs(self):
        return (self.source,)


class InterleaveIterator(dv.ChildIterator):
    """TF's InterleaveDatasetOp iterator (the same order)."""

    def __init__(self, source, spec):
        super().__init__(source)
        self.spec = spec
        self.args = [None] * spec.cycle  # the input element of each open iterator
        self.current = [None] * spec.cycle
        self.cycle_index = 0
        self.block_index = 0
        self.end_of_input = False
        self.num_open = 0

    def _make(self, element):
        it = dv.as_dataset(self.spec.fn(element)[0]).iterator()
        return PrefetchIterator(it, self.spec.buffer) if self.spec.buffer > 0 else it

    def _open(self, element):
        it = self._make(element)
        if isinstance(it, PrefetchIterator):
            it._start()  # read ahead now: that is the parallelism
        return it

    def _advance_cycle(self):
        self.block_index = 0
        self.cycle_index = (self.cycle_index + 1) % self.spec.cycle

    def next(self, state):
        while not self.end_of_input or self.num_open > 0:
            i = self.cycle_index
            if self.current[i] is not None:
                out = self.current[i].next(state)
                if out is not dv.END:
                    self.block_index += 1
                    if self.block_index == self.spec.block:
                        self._advance_cycle()
                    return out
                self.current[i].close()
                self.current[i] = self.args[i] = None
                self.num_open -= 1
                self._advance_cycle()
            elif not self.end_of_input:
                element = self.source.next(state)
                if element is dv.END:
                    self.end_of_input = True
                    continue
                self.current[i] = self._open(element)
                self.args[i] = element
                self.num_open += 1
            else:
                self._advance_cycle()
        return dv.END

    def save(self):
        return {"source": self.source.save(), "args": list(self.args),
                "current": [None if c is None else self._inner_state(c)
                            for c in self.current],
                "cycle_index": self.cycle_index, "block_index": self.block_index,
                "end_of_input": self.end_of_input, "num_open": self.num_open}

    @staticmethod
    def _inner_state(it):
        if isinstance(it, PrefetchIterator):
            saved = it.save()
            return {"inner": saved["source"], "buffer": saved["buffer"],
                    "finished": saved["finished"]}
        return {"inner": it.save()}

    def restore(self, saved):
        self.close_open()
        self.source.restore(saved["source"])
        for key in ("cycle_index", "block_index", "end_of_input", "num_open"):
            setattr(self, key, saved[key])
        self.args = list(saved["args"])
        self.current = [None] * self.spec.cycle
        for i, inner in enumerate(saved["current"]):
            if inner is None:
                continue
            it = self._make(self.args[i])
            if isinstance(it, PrefetchIterator):
                it.restore({"source": inner["inner"], "buffer": inner.get("buffer", []),
                            "finished": inner.get("finished", False)})
            else:
                it.restore(inner["inner"])
            self.current[i] = it

    def close_open(self):
        for it in self.current:
            if it is not None:
                it.close()
        self.current = [None] * self.spec.cycle

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
    return InterleaveValue(dv.as_dataset(input_dataset),
                           cached_function(ctx, "f", other_arguments), cycle, block,
                           buffer=block)


def _parallel_interleave_v4(input_dataset, other_arguments, cycle_length, block_length,
                            buffer_output_elements, prefetch_input_elements,
                            num_parallel_calls, *, ctx):
    value = _parallel_interleave(input_dataset, other_arguments, cycle_length, block_length,
                                 num_parallel_calls, ctx=ctx)
    buffer = dv.scalar_value(buffer_output_elements, "buffer_output_elements")
    value.buffer = value.block if buffer == background.AUTOTUNE else max(1, buffer)
    return value


def _legacy_parallel_interleave(input_dataset, other_arguments, cycle_length, block_length,
                                sloppy, buffer_output_elements, prefetch_input_elements,
                                *, ctx):
    del sloppy, prefetch_input_elements  # the order is always the deterministic one
    cycle = _positive(cycle_length, "cycle_length", ctx.op)
    block = _positive(block_length, "block_length", ctx.op)
    buffer = _positive(buffer_output_elements, "buffer_output_elements", ctx.op)
    return InterleaveValue(dv.as_dataset(input_dataset),
                           cached_function(ctx, "f", other_arguments), cycle, block,
                           buffer=buffer)


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
