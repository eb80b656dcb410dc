"""Datasets of tf.data.experimental that carry state across elements or choose among
inputs: ScanDataset (scan), GroupByWindowDataset (group_by_window),
GroupByReducerDataset (group_by_reducer), DirectedInterleaveDataset
(sample_from_datasets / choose_from_datasets) and RandomDataset."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_function import cached_function
from trainflow._src.ops.dataset.dataset_op import register_dataset
from trainflow._src.ops.dataset.map_ops import FUNCTION_ATTRS
from trainflow._src.ops.dataset.window_ops import ListValue


class _Value(dv.DatasetValue):
    """A dataset of one input whose iterator class and settings are given."""

    def __init__(self, iterator_cls, source, cardinality=dv.UNKNOWN, **spec):
        self.iterator_cls, self.source, self._cardinality, self.spec = \
            iterator_cls, source, cardinality, spec

    def iterator(self):
        return self.iterator_cls(self.source.iterator(), **self.spec)

    def cardinality(self):
        return self._cardinality

    def inputs(self):
        return (self.source,)


class _ScanIterator(dv.ChildIterator):
    def __init__(self, source, fn, state):
        super().__init__(source)
        self.fn, self.state = fn, list(state)

    def next(self, state):
        element = self.source.next(state)
        if element is dv.END:
            return dv.END
        out = self.fn(self.state + list(element))
        self.state = list(out[:len(self.state)])
        return out[len(self.state):]

    def save(self):
        return {"source": self.source.save(), "state": [np.asarray(s) for s in self.state]}

    def restore(self, saved):
        self.source.restore(saved["source"])
        self.state = list(saved["state"])


def _int64_scalar(out, what, op):
    value = np.asarray(out[0]) if len(out) == 1 else None
    if value is None or value.shape != () or value.dtype != np.int64:
        raise errors.InvalidArgumentError(None, op, f"`{what}` must return a scalar int64.")
    return int(value)


class _GroupByWindowIterator(dv.ChildIterator):
    """TF's GroupByWindowDatasetOp iterator: a window is reduced when it is full; at the
    end of the input the rest are, smallest key first."""

    def __init__(self, source, key_fn, reduce_fn, window_fn, op):
        super().__init__(source)
        self.key_fn, self.reduce_fn, self.window_fn, self.op = key_fn, reduce_fn, window_fn, op
        self.groups = {}
        self.window_sizes = {}
        self.end_of_input = False
        self.current = None
        self.current_window = None  # (key, elements) of `current`, for save()

    def _flush(self, key):
        elements = self.groups.pop(key)
        self.window_sizes.pop(key, None)
        window = dv.variant(ListValue(elements))
        out = self.reduce_fn([np.int64(key), window])
        self.current = dv.as_dataset(out[0]).iterator()
        self.current_window = (key, elements)

    def _window_size(self, key):
        if key not in self.window_sizes:
            size = _int64_scalar(self.window_fn([np.int64(key)]), "window_size_func", self.op)
            if size <= 0:
                raise errors.InvalidArgumentError(
                    None, self.op, f"Window size must be greater than zero, but got {size}.")
            self.window_sizes[key] = size
        return self.window_sizes[key]

    def next(self, state):
        while True:
            if self.current is not None:
                out = self.current.next(state)
                if out is not dv.END:
                    return out
                self.current.close()
                self.current = self.current_window = None
            while not self.end_of_input:
                element = self.source.next(state)
                if element is dv.END:
                    self.end_of_input = True
                    break
                key = _int64_scalar(self.key_fn(element), "key_func", self.op)
                size = self._window_size(key)
                group = self.groups.setdefault(key, [])
                group.append(element)
                if len(group) == size:
                    self._flush(key)
                    break
            if self.current is None and self.end_of_input and self.groups:
                self._flush(min(self.groups))
            if self.current is None:
                return dv.END

    def save(self):
        return {"source": self.source.save(),
                "groups": {k: list(v) for k, v in self.groups.items()},
                "window_sizes": dict(self.window_sizes), "end_of_input": self.end_of_input,
                "current": None if self.current is None else
                (self.current_window, self.current.save())}

    def restore(self, saved):
        self.source.restore(saved["source"])
        self.groups = {k: list(v) for k, v in saved["groups"].items()}
        self.window_sizes = dict(saved["window_sizes"])
        self.end_of_input = saved["end_of_input"]
        if saved["current"] is not None:
            (key, elements), inner = saved["current"]
            out = self.reduce_fn([np.int64(key), dv.variant(ListValue(elements))])
            self.current = dv.as_dataset(out[0]).iterator()
            self.current.restore(inner)
            self.current_window = (key, elements)

    def close(self):
        if self.current is not None:
            self.current.close()
        super().close()


class _GroupByReducerIterator(dv.ChildIterator):
    """Reads all of the input, reducing each key's elements into its state; then yields
    the finalized states in the order the keys first appeared."""

    def __init__(self, source, key_fn, init_fn, reduce_fn, finalize_fn, op):
        super().__init__(source)
        self.key_fn, self.init_fn, self.reduce_fn, self.finalize_fn, self.op = \
            key_fn, init_fn, reduce_fn, finalize_fn, op
        self.states = {}
        self.keys = []
        self.index = None  # set once the input is consumed

    def next(self, state):
        while self.index is None:
            element = self.source.next(state)
            if element is dv.END:
                self.index = 0
                break
            key = _int64_scalar(self.key_fn(element), "key_func", self.op)
            if key not in self.states:
                self.states[key] = self.init_fn([np.int64(key)])
                self.keys.append(key)
            self.states[key] = self.reduce_fn(list(self.states[key]) + list(element))
        if self.index >= len(self.keys):
            return dv.END
        self.index += 1
        return self.finalize_fn(list(self.states[self.keys[self.index - 1]]))

    def save(self):
        return {"source": self.source.save(), "keys": list(self.keys), "index": self.index,
                "states": {k: [np.asarray(v) for v in s] for k, s in self.states.items()}}

    def restore(self, saved):
        self.source.restore(saved["source"])
        self.keys, self.index = list(saved["keys"]), saved["index"]
        self.states = {k: list(v) for k, v in saved["states"].items()}


class DirectedInterleaveValue(dv.DatasetValue):
    """Elements of `datasets`, each taken from the input the selector's next element
    names; an exhausted input is skipped, and the end comes when all are."""

    def __init__(self, selector, datasets, op):
        self.selector, self.datasets, self.op = selector, list(datasets), op

    def iterator(self):
        return _DirectedIterator(self.selector.iterator(),
                                 [d.iterator() for d in self.datasets], self.op)

    def inputs(self):
        return (self.selector, *self.datasets)


class _DirectedIterator(dv.ChildIterator):
    def __init__(self, selector, inputs, op):
        super().__init__(selector)
        self.inputs, self.op = inputs, op
        self.active = [True] * len(inputs)
        self.done = False

    def next(self, state):
        while not self.done:
            choice = self.source.next(state)
            if choice is dv.END:
                self.done = True
                break
            index = int(np.asarray(choice[0]))
            if index < 0 or index >= len(self.inputs):
                raise errors.InvalidArgumentError(
                    None, self.op, f"Selector index out of range: {index} >= "
                                   f"{len(self.inputs)}")
            if not self.active[index]:
                continue
            out = self.inputs[index].next(state)
            if out is not dv.END:
                return out
            self.active[index] = False
            if not any(self.active):
                self.done = True
        return dv.END

    def save(self):
        return {"selector": self.source.save(), "active": list(self.active),
                "done": self.done, "inputs": [it.save() for it in self.inputs]}

    def restore(self, saved):
        self.source.restore(saved["selector"])
        self.active, self.done = list(saved["active"]), saved["done"]
        for it, inner in zip(self.inputs, saved["inputs"]):
            it.restore(inner)

    def close(self):
        for it in self.inputs:
            it.close()
        super().close()


class RandomValue(dv.DatasetValue):
    """An endless stream of uniform int64 values, the same for each iterator given a
    seed pair other than (0, 0)."""

    def __init__(self, seed, seed2):
        self.seed, self.seed2 = seed, seed2

    def iterator(self):
        return _RandomIterator(self.seed, self.seed2)

    def cardinality(self):
        return dv.INFINITE


class _RandomIterator(dv.ElementIterator):
    def __init__(self, seed, seed2):
        if seed == 0 and seed2 == 0:
            self.key = int(np.random.SeedSequence().generate_state(2, np.uint64)[0]) << 64
        else:
            self.key = ((seed & (2**64 - 1)) << 64) | (seed2 & (2**64 - 1))
        self.count = 0
        self._bits = None

    def next(self, state):
        if self._bits is None:
            self._bits = np.random.Philox(key=self.key)
            if self.count:
                self._bits.random_raw(self.count)  # back to the saved position
        self.count += 1
        return [np.asarray(self._bits.random_raw()).astype(np.uint64).view(np.int64)]

    def save(self):
        return {"key": self.key, "count": self.count}

    def restore(self, saved):
        self.key, self.count, self._bits = saved["key"], saved["count"], None


def _scan(input_dataset, initial_state, other_arguments, *, ctx):
    return _Value(_ScanIterator, dv.as_dataset(input_dataset),
                  dv.as_dataset(input_dataset).cardinality(),
                  fn=cached_function(ctx, "f", other_arguments), state=list(initial_state))


def _group_by_window(input_dataset, key_func_other_arguments, reduce_func_other_arguments,
                     window_size_func_other_arguments, *, ctx):
    return _Value(_GroupByWindowIterator, dv.as_dataset(input_dataset),
                  key_fn=cached_function(ctx, "key_func", key_func_other_arguments),
                  reduce_fn=cached_function(ctx, "reduce_func", reduce_func_other_arguments),
                  window_fn=cached_function(ctx, "window_size_func",
                                            window_size_func_other_arguments), op=ctx.op)


def _group_by_reducer(input_dataset, key_func_other_arguments, init_func_other_arguments,
                      reduce_func_other_arguments, finalize_func_other_arguments, *, ctx):
    return _Value(_GroupByReducerIterator, dv.as_dataset(input_dataset),
                  key_fn=cached_function(ctx, "key_func", key_func_other_arguments),
                  init_fn=cached_function(ctx, "init_func", init_func_other_arguments),
                  reduce_fn=cached_function(ctx, "reduce_func", reduce_func_other_arguments),
                  finalize_fn=cached_function(ctx, "finalize_func",
                                              finalize_func_other_arguments), op=ctx.op)


def _directed(selector_input_dataset, data_input_datasets, *, ctx):
    return DirectedInterleaveValue(dv.as_dataset(selector_input_dataset),
                                   [dv.as_dataset(d) for d in data_input_datasets], ctx.op)


def _random(seed, seed2):
    return RandomValue(dv.scalar_value(seed, "seed"), dv.scalar_value(seed2, "seed2"))


register_dataset("ScanDataset", ["input_dataset: variant", "initial_state: Tstate",
                                 "other_arguments: Targuments"],
                 ["f: func", "Tstate: list(type) >= 1"] + FUNCTION_ATTRS +
                 ["preserve_cardinality: bool = false", "use_default_device: bool = true"],
                 _scan)
register_dataset("GroupByWindowDataset",
                 ["input_dataset: variant",
                  "key_func_other_arguments: Tkey_func_other_arguments",
                  "reduce_func_other_arguments: Treduce_func_other_arguments",
                  "window_size_func_other_arguments: Twindow_size_func_other_arguments"],
                 ["key_func: func", "reduce_func: func", "window_size_func: func",
                  "Tkey_func_other_arguments: list(type) >= 0",
                  "Treduce_func_other_arguments: list(type) >= 0",
                  "Twindow_size_func_other_arguments: list(type) >= 0"], _group_by_window)
register_dataset("GroupByReducerDataset",
                 ["input_dataset: variant",
                  "key_func_other_arguments: Tkey_func_other_arguments",
                  "init_func_other_arguments: Tinit_func_other_arguments",
                  "reduce_func_other_arguments: Treduce_func_other_arguments",
                  "finalize_func_other_arguments: Tfinalize_func_other_arguments"],
                 ["key_func: func", "init_func: func", "reduce_func: func",
                  "finalize_func: func", "Tkey_func_other_arguments: list(type) >= 0",
                  "Tinit_func_other_arguments: list(type) >= 0",
                  "Treduce_func_other_arguments: list(type) >= 0",
                  "Tfinalize_func_other_arguments: list(type) >= 0"], _group_by_reducer,
                 metadata=False)
register_dataset("DirectedInterleaveDataset",
                 ["selector_input_dataset: variant", "data_input_datasets: N * variant"],
                 ["N: int >= 1", "stop_on_empty_dataset: bool = false"], _directed,
                 metadata=False)
register_dataset("RandomDataset", ["seed: int64", "seed2: int64"], [], _random)
