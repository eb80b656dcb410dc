"""OptimizeDataset: the graph rewrites tf.data.Options ask for at iterator creation.

TF rewrites the pipeline graph; here the rewrites that change what a pipeline yields
act on the iterators instead. "make_sloppy" (experimental_deterministic=False) lets the
parallel map and interleave iterators made under it return elements as they become
ready instead of in input order. The others (map_and_batch_fusion, noop_elimination ...)
only make TF faster and leave the elements as they are.
"""
import threading

import numpy as np

from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import register_dataset

_scope = threading.local()


def nondeterministic():
    """Whether the iterator being made (or read) is under a "make_sloppy" rewrite."""
    return getattr(_scope, "sloppy", False)


class _Sloppy:
    """Marks the calling thread as under a "make_sloppy" rewrite while it lasts."""

    def __enter__(self):
        self.before = nondeterministic()
        _scope.sloppy = True

    def __exit__(self, *exc):
        _scope.sloppy = self.before


class OptimizeValue(dv.DatasetValue):
    """`source` with `optimizations` applied."""

    def __init__(self, source, optimizations):
        self.source, self.optimizations = source, frozenset(optimizations)

    def iterator(self):
        sloppy = "make_sloppy" in self.optimizations
        if not sloppy:
            return self.source.iterator()
        with _Sloppy():
            return _SloppyIterator(self.source.iterator())

    def cardinality(self):
        return self.source.cardinality()

    def inputs(self):
        return (self.source,)


class _SloppyIterator(dv.ChildIterator):
    """Reads `source` under the "make_sloppy" rewrite (the iterators it makes on the way,
    a repeat's next epoch, an interleave's next dataset, are made under it too)."""

    def next(self, state):
        with _Sloppy():
            return self.source.next(state)

    def next_many(self, state, n):
        with _Sloppy():
            return self.source.next_many(state, n)

    def save(self):
        return {"source": self.source.save()}

    def restore(self, saved):
        self.source.restore(saved["source"])


def _optimize(input_dataset, optimizations):
    names = [o.decode() if isinstance(o, bytes) else str(o)
             for o in np.asarray(optimizations, dtype=object).reshape(-1)]
    return OptimizeValue(dv.as_dataset(input_dataset), names)


register_dataset("OptimizeDataset", ["input_dataset: variant", "optimizations: string"],
                 ["optimization_configs: list(string) = []"], _optimize, metadata=False)
