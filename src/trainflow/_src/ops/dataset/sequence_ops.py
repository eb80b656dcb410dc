"""Datasets that reorder or cut whole elements: RepeatDataset, TakeDataset, SkipDataset,
ZipDataset, ConcatenateDataset."""
from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import register_dataset


def _product(count, cardinality):
    if count == 0 or cardinality == 0:
        return 0
    if count < 0 or cardinality == dv.INFINITE:
        return dv.INFINITE
    if cardinality == dv.UNKNOWN:
        return dv.UNKNOWN
    return count * cardinality


class RepeatValue(dv.DatasetValue):
    """`source` `count` times over (forever when count is -1)."""

    def __init__(self, source, count):
        self.source, self.count = source, count

    def iterator(self):
        return _RepeatIterator(self.source, self.count)

    def cardinality(self):
        return _product(self.count, self.source.cardinality())

    def inputs(self):
        return (self.source,)


class _RepeatIterator(dv.ElementIterator):
    def __init__(self, dataset, count):
        self.dataset, self.count = dataset, count
        self.epoch = 0
        self.fresh = True  # nothing read yet in this epoch
        self.current = dataset.iterator() if count != 0 else None

    def next(self, state):
        while self.current is not None:
            element = self.current.next(state)
            if element is not dv.END:
                self.fresh = False
                return element
            if self.fresh:
                return self._stop()  # an empty input repeated forever is still empty
            self.epoch += 1
            self.current.close()
            if 0 <= self.count <= self.epoch:
                self.current = None
                break
            self.current = self.dataset.iterator()
            self.fresh = True
        return dv.END

    def _stop(self):
        self.current.close()
        self.current = None
        return dv.END

    def save(self):
        return {"epoch": self.epoch, "fresh": self.fresh,
                "current": self.current.save() if self.current is not None else None}

    def restore(self, saved):
        self.epoch = saved["epoch"]
        self.fresh = bool(saved.get("fresh", True))
        if saved["current"] is None:
            self.close()
            self.current = None
        else:
            self.current.restore(saved["current"])

    def close(self):
        if self.current is not None:
            self.current.close()


class TakeValue(dv.DatasetValue):
    """At most `count` elements of `source` (all when count is -1)."""

    def __init__(self, source, count):
        self.source, self.count = source, count

    def iterator(self):
        return _TakeIterator(self.source.iterator(), self.count)

    def cardinality(self):
        n = self.source.cardinality()
        if self.count < 0:
            return n
        if n == dv.UNKNOWN:
            return dv.UNKNOWN
        return self.count if n == dv.INFINITE else min(n, self.count)

    def inputs(self):
        return (self.source,)


class _TakeIterator(dv.ChildIterator):
    def __init__(self, source, count):
        super().__init__(source)
        self.count, self.taken = count, 0

    def next(self, state):
        if 0 <= self.count <= self.taken:
            self.source.close()  # as TF: the input is released at the end (generators)
            return dv.END
        element = self.source.next(state)
        if element is not dv.END:
            self.taken += 1
        return element

    def save(self):
        return {"taken": self.taken, "source": self.source.save()}

    def restore(self, saved):
        self.taken = saved["taken"]
        self.source.restore(saved["source"])


class SkipValue(dv.DatasetValue):
    """`source` without its first `count` elements (none left when count is -1)."""

    def __init__(self, source, count):
        self.source, self.count = source, count

    def iterator(self):
        return _SkipIterator(self.source.iterator(), self.count)

    def cardinality(self):
        n = self.source.cardinality()
        if n < 0:
            return n if self.count >= 0 or n == dv.UNKNOWN else 0
        return 0 if self.count < 0 else max(0, n - self.count)

    def inputs(self):
        return (self.source,)


class _SkipIterator(dv.ChildIterator):
    def __init__(self, source, count):
        super().__init__(source)
        self.count, self.skipped = count, 0

    def next(self, state):
        while self.count < 0 or self.skipped < self.count:
            if self.source.next(state) is dv.END:
                return dv.END
            self.skipped += 1
        return self.source.next(state)

    def save(self):
        return {"skipped": self.skipped, "source": self.source.save()}

    def restore(self, saved):
        self.skipped = saved["skipped"]
        self.source.restore(saved["source"])


class ZipValue(dv.DatasetValue):
    """Elements of `sources` side by side, until the shortest ends."""

    def __init__(self, sources):
        self.sources = list(sources)

    def iterator(self):
        return _ZipIterator([s.iterator() for s in self.sources])

    def cardinality(self):
        counts = [s.cardinality() for s in self.sources]
        finite = [c for c in counts if c >= 0]
        if finite:
            return min(finite) if dv.UNKNOWN not in counts or min(finite) == 0 \
                else dv.UNKNOWN
        return dv.UNKNOWN if dv.UNKNOWN in counts else dv.INFINITE

    def inputs(self):
        return tuple(self.sources)


class _ZipIterator(dv.ElementIterator):
    def __init__(self, sources):
        self.sources = sources

    def next(self, state):
        """The inputs' next elements side by side. As in TF, an input's error is raised
        only after the other inputs have moved on too, so they stay in step."""
        out, error = [], None
        for it in self.sources:
            try:
                element = it.next(state)
            except errors.OutOfRangeError:
                raise
            except errors.OpError as e:
                error = error or e
                continue
            if element is dv.END:
                break
            out.extend(element)
        else:
            if error is None:
                return out
        if error is not None:
            raise error
        return dv.END

    def save(self):
        return {"sources": [it.save() for it in self.sources]}

    def restore(self, saved):
        for it, s in zip(self.sources, saved["sources"]):
            it.restore(s)

    def close(self):
        for it in self.sources:
            it.close()


class ConcatenateValue(dv.DatasetValue):
    """The elements of `first`, then those of `second`."""

    def __init__(self, first, second):
        self.parts = [first, second]

    def iterator(self):
        return _ConcatenateIterator(self.parts)

    def cardinality(self):
        a, b = (p.cardinality() for p in self.parts)
        if dv.INFINITE in (a, b):
            return dv.INFINITE
        return dv.UNKNOWN if dv.UNKNOWN in (a, b) else a + b

    def inputs(self):
        return tuple(self.parts)


class _ConcatenateIterator(dv.ElementIterator):
    def __init__(self, parts):
        self.parts = parts
        self.index = 0
        self.current = parts[0].iterator()

    def next(self, state):
        while self.current is not None:
            element = self.current.next(state)
            if element is not dv.END:
                return element
            self.current.close()
            self.index += 1
            self.current = self.parts[self.index].iterator() \
                if self.index < len(self.parts) else None
        return dv.END

    def save(self):
        return {"index": self.index,
                "current": self.current.save() if self.current is not None else None}

    def restore(self, saved):
        self.close()
        self.index = saved["index"]
        self.current = self.parts[self.index].iterator() \
            if self.index < len(self.parts) else None
        if self.current is not None:
            self.current.restore(saved["current"])

    def close(self):
        if self.current is not None:
            self.current.close()


def _repeat(input_dataset, count):
    return RepeatValue(dv.as_dataset(input_dataset), dv.scalar_value(count, "count"))


def _take(input_dataset, count):
    return TakeValue(dv.as_dataset(input_dataset), dv.scalar_value(count, "count"))


def _skip(input_dataset, count):
    return SkipValue(dv.as_dataset(input_dataset), dv.scalar_value(count, "count"))


def _zip(input_datasets):
    return ZipValue([dv.as_dataset(d) for d in input_datasets])


def _concatenate(input_dataset, another_dataset):
    return ConcatenateValue(dv.as_dataset(input_dataset), dv.as_dataset(another_dataset))


_COUNTED = ["input_dataset: variant", "count: int64"]
register_dataset("RepeatDataset", _COUNTED, [], _repeat)
register_dataset("TakeDataset", _COUNTED, [], _take)
register_dataset("SkipDataset", _COUNTED, [], _skip)
register_dataset("ZipDataset", ["input_datasets: N * variant"], ["N: int >= 1"], _zip)
register_dataset("ConcatenateDataset", ["input_dataset: variant", "another_dataset: variant"],
                 [], _concatenate)
