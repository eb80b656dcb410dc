"""CacheDataset (cache): the elements of the first complete pass, kept in memory
(filename "") or in a tensor bundle at `filename` (TF's layout: `filename.index` and
`filename.data-00000-of-00001`, one entry per component keyed as TF keys them).

A pass that stops early leaves no cache: its partial contents are discarded (the file
writer removes its temporary files and lockfile). While a file cache is being written,
`filename_0.lockfile` exists and a second writer fails with AlreadyExistsError, as in TF.
"""
import os
import threading

import numpy as np

from trainflow._src import tf_logging
from trainflow._src.formats import tensor_bundle
from trainflow._src.formats.tensor_bundle_reader import BundleReader
from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import register_dataset

_PARTIAL = ("The calling iterator did not fully read the dataset being cached. In order to "
            "avoid unexpected truncation of the dataset, the partially cached contents of the "
            "dataset will be discarded. This can happen if you have an input pipeline similar "
            "to `dataset.cache().take(k).repeat()`. You should use "
            "`dataset.take(k).cache().repeat()` instead.")


def cache_key(index, component, n_components):
    """TF's key of component `component` of element `index`: printf "%7zu_%Nzu" (space
    padded; N the digits of the largest component index)."""
    return f"{index:7d}_{component:{len(str(max(n_components - 1, 0)))}d}"


class MemoryCacheValue(dv.DatasetValue):
    """`source`'s elements; after one complete pass, the stored elements of that pass."""

    def __init__(self, source):
        self.source = source
        self.lock = threading.Lock()
        self.elements = None  # set by the first pass that reaches the end

    def iterator(self):
        return _MemoryCacheIterator(self)

    def complete(self, elements):
        with self.lock:
            if self.elements is None:
                self.elements = elements

    def cardinality(self):
        return self.source.cardinality()

    def inputs(self):
        return (self.source,)


class _MemoryCacheIterator(dv.ElementIterator):
    """Replays the cache when it is complete, else reads (and records) the input. Its
    saved state holds the cache's elements when replaying, as TF's checkpoints do."""

    def __init__(self, spec):
        self.spec = spec
        with spec.lock:
            self.replay = spec.elements
        self.source = spec.source.iterator() if self.replay is None else None
        self.seen, self.index, self.complete = [], 0, False

    def next(self, state):
        if self.replay is not None:
            if self.index >= len(self.replay):
                return dv.END
            self.index += 1
            return list(self.replay[self.index - 1])
        if self.complete:
            return dv.END
        element = self.source.next(state)
        if element is dv.END:
            self.complete = True
            self.spec.complete(self.seen)
            return dv.END
        self.seen.append(list(element))
        return element

    def save(self):
        if self.replay is not None:
            return {"replay": self.replay, "index": self.index}
        return {"seen": self.seen, "complete": self.complete, "source": self.source.save()}

    def restore(self, saved):
        self.close()
        if "replay" in saved:
            self.replay, self.index, self.source = saved["replay"], saved["index"], None
            self.spec.complete(self.replay)
            return
        self.replay = None
        self.source = self.spec.source.iterator()
        self.seen, self.complete = [list(e) for e in saved["seen"]], saved["complete"]
        self.source.restore(saved["source"])

    def close(self):
        if self.source is not None:
            if not self.complete and self.seen:
                tf_logging.warning(_PARTIAL)
            self.seen = []
            self.source.close()


class FileCacheValue(dv.DatasetValue):
    """`source`'s elements, written to the bundle at `filename` on the first complete
    pass and read from it when it exists."""

    def __init__(self, source, filename, op):
        self.source, self.filename, self.op = source, filename, op

    def iterator(self):
        if os.path.exists(tensor_bundle.index_filename(self.filename)):
            return _FileReaderIterator(self.filename, self.op)
        return _FileWriterIterator(self)

    def cardinality(self):
        return self.source.cardinality()

    def inputs(self):
        return (self.source,)


class _FileReaderIterator(dv.ElementIterator):
    def __init__(self, filename, op):
        self.reader = BundleReader(filename)
        self.op = op
        keys = [k.decode() if isinstance(k, bytes) else k for k in self.reader.keys()]
        self.n_components = sum(1 for k in keys if k.startswith("      0_"))
        self.count = sum(1 for k in keys if "_" in k) // max(self.n_components, 1)
        self.index = 0

    def next(self, state):
        if self.index >= self.count:
            return dv.END
        n = self.n_components
        element = [self.reader.lookup(cache_key(self.index, k, n)) for k in range(n)]
        self.index += 1
        return element

    def save(self):
        return {"index": self.index}

    def restore(self, saved):
        self.index = saved["index"]

    def close(self):
        self.reader.close()


class _FileWriterIterator(dv.ChildIterator):
    def __init__(self, spec):
        super().__init__(spec.source.iterator())
        self.spec = spec
        self.lockfile = spec.filename + "_0.lockfile"  # TF's: the lockfile of shard 0
        self.writer = None
        self.count = 0
        self.complete = False

    def _start(self):
        if os.path.exists(self.lockfile):
            with open(self.lockfile) as f:
                contents = f.read()
            raise errors.AlreadyExistsError(
                None, self.spec.op,
                "There appears to be a concurrent caching iterator running - cache lockfile "
                f"already exists ('{self.lockfile}'). If you are sure no other running TF "
                "computations are using this cache prefix, delete the lockfile and "
                f"re-initialize the iterator. Lockfile contents: {contents}")
        directory = os.path.dirname(self.spec.filename)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with open(self.lockfile, "w") as f:
            f.write(f"Created at: {os.getpid()}")
        self.writer = tensor_bundle.BundleWriter(self.spec.filename, sync=False)

    def next(self, state):
        if self.complete:
            return dv.END
        if self.writer is None:
            self._start()
        element = self.source.next(state)
        if element is dv.END:
            self.writer.finish()
            self.complete = True
            self._unlock()
            return dv.END
        n = len(element)
        for k, value in enumerate(element):
            value = np.asarray(value)
            if value.dtype == object and value.size and not isinstance(
                    value.reshape(-1)[0], (bytes, str)):
                raise errors.UnimplementedError(
                    None, self.spec.op, "Caching a dataset with variant components to a "
                                        "file is not supported")
            self.writer.add(cache_key(self.count, k, n), value)
        self.count += 1
        return element

    def _unlock(self):
        try:
            os.remove(self.lockfile)
        except FileNotFoundError:
            pass

    def save(self):
        raise errors.UnimplementedError(
            None, self.spec.op, "Saving the position of a file cache being written is not "
                                "supported")

    def close(self):
        if self.writer is not None and not self.complete:
            if self.count:
                tf_logging.warning(_PARTIAL)
            self.writer.abort()
            self._unlock()
            self.writer = None
        super().close()


def _cache(input_dataset, filename, *, ctx):
    source = dv.as_dataset(input_dataset)
    name = np.asarray(filename, dtype=object)[()]
    name = name.decode() if isinstance(name, bytes) else str(name)
    if not name:
        return MemoryCacheValue(source)
    return FileCacheValue(source, name, ctx.op)


register_dataset("CacheDataset", ["input_dataset: variant", "filename: string"], [], _cache)
