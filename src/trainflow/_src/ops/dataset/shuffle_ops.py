"""Datasets that shuffle: ShuffleDataset (shuffle) and ShuffleAndRepeatDataset
(tf.data.experimental.shuffle_and_repeat).

Seeds follow TF: (seed, seed2) = (0, 0) draws fresh random seeds when the dataset is
made. With `reshuffle_each_iteration` every iterator made over the dataset (each
epoch of a repeat) takes the next seeds of a generator keyed by (seed, seed2), so a
fixed seed gives the same sequence of orders each time the dataset op runs (each
initialization); without it every iterator uses the same order. The numbers come from
NumPy's Philox, not TF's, so the orders differ from TensorFlow's.
"""
import itertools
import threading

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import register_dataset
from trainflow._src.ops.dataset.sequence_ops import RepeatValue

_MASK64 = (1 << 64) - 1


def make_rng(seed, seed2, iteration):
    """A NumPy Generator for (seed, seed2) and the iteration number."""
    entropy = [seed & _MASK64, seed2 & _MASK64, iteration]
    return np.random.Generator(np.random.Philox(np.random.SeedSequence(entropy)))


class ShuffleValue(dv.DatasetValue):
    """The elements of `source` through a shuffle buffer of `buffer_size` elements."""

    def __init__(self, source, buffer_size, seed, seed2, reshuffle, op):
        if buffer_size <= 0:
            raise errors.InvalidArgumentError(None, op,
                                              "buffer_size must be greater than zero.")
        if seed == 0 and seed2 == 0:
            seed, seed2 = (int(x) for x in np.random.SeedSequence().generate_state(
                2, np.uint64))
        self.source, self.buffer_size = source, buffer_size
        self.seed, self.seed2, self.reshuffle = seed, seed2, reshuffle
        self._iterations = itertools.count()
        self._lock = threading.Lock()

    def iterator(self):
        with self._lock:
            iteration = next(self._iterations) if self.reshuffle else 0
        return _ShuffleIterator(self, iteration)

    def iterations_made(self):
        """How many iterators took seeds so far (the seed generator's state)."""
        with self._lock:
            made = next(self._iterations)
            self._iterations = itertools.count(made)
        return made

    def set_iterations_made(self, made):
        with self._lock:
            self._iterations = itertools.count(made)

    def cardinality(self):
        return self.source.cardinality()

    def inputs(self):
        return (self.source,)


class _ShuffleIterator(dv.ChildIterator):
    def __init__(self, spec, iteration):
        super().__init__(spec.source.iterator())
        self.spec = spec
        self.size = spec.buffer_size
        self.iteration = iteration
        self.rng = make_rng(spec.seed, spec.seed2, iteration)
        self.buffer = []
        self.done = False

    def next(self, state):
        while not self.done and len(self.buffer) < self.size:
            element = self.source.next(state)
            if element is dv.END:
                self.done = True
            else:
                self.buffer.append(element)
        if not self.buffer:
            return dv.END
        i = int(self.rng.integers(len(self.buffer)))
        out = self.buffer[i]
        self.buffer[i] = self.buffer[-1]
        self.buffer.pop()
        return out

    def next_many(self, state, n):
        """What `n` calls of next() return, the input read in one request: the refills
        those calls would make, in the same order, with the same draws."""
        pending = []
        if not self.done:
            need = self.size - len(self.buffer) + n - 1
            if need > 0:
                pending = self.source.next_many(state, need)
                self.done = len(pending) < need
        buffer, size, integers = self.buffer, self.size, self.rng.integers
        out, taken = [], 0
        for _ in range(n):
            while len(buffer) < size and taken < len(pending):
                buffer.append(pending[taken])
                taken += 1
            if not buffer:
                break
            i = int(integers(len(buffer)))
            out.append(buffer[i])
            buffer[i] = buffer[-1]
            buffer.pop()
        buffer.extend(pending[taken:])  # (only where the input ended: none are left)
        return out

    def save(self):
        return {"iteration": self.iteration, "rng": self.rng.bit_generator.state,
                "iterations_made": self.spec.iterations_made(),
                "buffer": [list(e) for e in self.buffer], "done": self.done,
                "source": self.source.save()}

    def restore(self, saved):
        self.spec.set_iterations_made(saved["iterations_made"])
        self.iteration = saved["iteration"]
        self.rng.bit_generator.state = saved["rng"]
        self.buffer = [list(e) for e in saved["buffer"]]
        self.done = saved["done"]
        self.source.restore(saved["source"])


def _seeds(seed, seed2):
    return dv.scalar_value(seed, "seed"), dv.scalar_value(seed2, "seed2")


def _shuffle(input_dataset, buffer_size, seed, seed2, *, reshuffle_each_iteration, ctx):
    return ShuffleValue(dv.as_dataset(input_dataset),
                        dv.scalar_value(buffer_size, "buffer_size"), *_seeds(seed, seed2),
                        bool(reshuffle_each_iteration), ctx.op)


def _shuffle_and_repeat(input_dataset, buffer_size, seed, seed2, count, *,
                        reshuffle_each_iteration, ctx):
    shuffled = ShuffleValue(dv.as_dataset(input_dataset),
                            dv.scalar_value(buffer_size, "buffer_size"), *_seeds(seed, seed2),
                            bool(reshuffle_each_iteration), ctx.op)
    return RepeatValue(shuffled, dv.scalar_value(count, "count"))


_SEEDED = ["input_dataset: variant", "buffer_size: int64", "seed: int64", "seed2: int64"]
register_dataset("ShuffleDataset", _SEEDED, ["reshuffle_each_iteration: bool = true"],
                 _shuffle)
register_dataset("ShuffleAndRepeatDataset", _SEEDED + ["count: int64"],
                 ["reshuffle_each_iteration: bool = true"], _shuffle_and_repeat)
