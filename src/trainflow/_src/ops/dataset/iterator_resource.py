"""The iterator resource behind IteratorV2 / OneShotIterator handles: one ElementIterator
at a time, its element types and shapes checked as TF checks them, callers serialized."""
import threading

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv

NOT_INITIALIZED = ("GetNext() failed because the iterator has not been initialized. Ensure "
                   "that you have run the initializer operation for this iterator before "
                   "getting the next element.")


def shapes_compatible(shape, spec):
    """Whether array shape `shape` fits TensorShape `spec`."""
    if spec.rank is None:
        return True
    dims = spec.as_list()
    return len(dims) == len(shape) and all(d is None or d == s for d, s in zip(dims, shape))


class IteratorResource:
    """A named iterator: `make(dataset)` starts a pass, `get_next` reads it."""

    def __init__(self, name, output_types, output_shapes):
        self.name = name
        self.output_types = list(output_types)
        self.output_shapes = list(output_shapes)
        self.lock = threading.Lock()
        # Held while a one-shot iterator makes its pass, so that of several steps starting
        # at once exactly one makes it and the others read it.
        self.init_lock = threading.Lock()
        self.iterator = None
        self.dataset = None

    def make(self, dataset):
        """Starts a fresh pass over `dataset` (closing the previous one)."""
        fresh = dataset.iterator()
        with self.lock:
            old, self.iterator, self.dataset = self.iterator, fresh, dataset
        if old is not None:
            old.close()

    def get_next(self, state, op=None):
        """The next element's components; OutOfRangeError at the end."""
        with self.lock:
            if self.iterator is None:
                raise errors.FailedPreconditionError(None, op, NOT_INITIALIZED)
            element = self.iterator.next(state)
        if element is dv.END:
            raise errors.OutOfRangeError(None, op, "End of sequence")
        return self.check(element, op)

    def check(self, element, op=None):
        """`element` as arrays of the declared types; InvalidArgumentError on a mismatch."""
        if len(element) != len(self.output_types):
            raise errors.InvalidArgumentError(
                None, op, f"Expected {len(self.output_types)} components but got "
                          f"{len(element)}")
        out = []
        for k, (value, dtype, shape) in enumerate(zip(element, self.output_types,
                                                       self.output_shapes)):
            value = np.asarray(value)
            want = dtype.as_numpy_dtype
            if want is np.object_ and value.dtype.kind in "SU":  # a string kernel's bytes_
                value = np.array([s.encode() if isinstance(s, str) else s
                                  for s in value.ravel().tolist()],
                                 dtype=object).reshape(value.shape)
            if value.dtype != want:
                raise errors.InvalidArgumentError(
                    None, op, f"Data type mismatch at component {k}: expected "
                              f"{dtype.name} but got {value.dtype.name}.")
            if not shapes_compatible(value.shape, shape):
                raise errors.InvalidArgumentError(
                    None, op, f"Incompatible shapes at component {k}: expected "
                              f"{shape} but got {list(value.shape)}.")
            out.append(value)
        return out

    def save(self):
        """The position of the current pass (plain data); FailedPreconditionError if none."""
        with self.lock:
            if self.iterator is None:
                raise errors.FailedPreconditionError(None, None, NOT_INITIALIZED)
            return self.iterator.save()

    def restore(self, saved):
        """Puts the current pass (made from the same dataset) at position `saved`."""
        with self.lock:
            if self.dataset is None:
                raise errors.FailedPreconditionError(None, None, NOT_INITIALIZED)
            fresh = self.dataset.iterator()
            fresh.restore(saved)
            old, self.iterator = self.iterator, fresh
        if old is not None:
            old.close()

    def close(self):
        with self.lock:
            old, self.iterator = self.iterator, None
        if old is not None:
            old.close()
