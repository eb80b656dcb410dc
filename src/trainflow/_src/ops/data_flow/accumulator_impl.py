"""The state behind ConditionalAccumulator and SparseConditionalAccumulator: gradients
summed until `take` finds enough of them; gradients older than the global step are
dropped (stale), as in TensorFlow."""
import threading

import numpy as np

from trainflow._src import tf_logging as logging
from trainflow._src.framework import errors


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _fmt(shape):
    return "[" + ",".join("?" if d is None or d < 0 else str(d) for d in shape) + "]"


class Accumulator:
    """A dense gradient accumulator."""

    def __init__(self, name, dtype, shape, reduction_type):
        self.name = name
        self.dtype = np.dtype(dtype)
        self.shape = shape  # tuple with None dims, or None for unknown rank
        self.reduction_type = reduction_type
        self.global_step = 0
        self.count = 0
        self._sum = None
        self._cond = threading.Condition()

    def spec(self):
        return (type(self).__name__, self.dtype, self.shape, self.reduction_type)

    def _check_shape(self, shape):
        ok = self.shape is None or (len(shape) == len(self.shape) and all(
            e is None or e < 0 or e == d for d, e in zip(shape, self.shape)))
        if self._sum is not None and ok:
            ok = self._sum_shape() == tuple(shape)
        if not ok:
            want = self._sum_shape() if self._sum is not None else self.shape
            raise _invalid(f"Shape mismatch: expected shape {_fmt(want or ())}, got "
                           f"{_fmt(shape)}")

    def _sum_shape(self):
        return self._sum.shape

    def num_accumulated(self):
        with self._cond:
            return self.count

    def set_global_step(self, step):
        with self._cond:
            if step < self.global_step:
                logging.warning(f"Attempt to set current_global_step_ to smaller value: "
                                f"current_global_step_ = {self.global_step} >= "
                                f"new_global_step = {step}.")
            self.global_step = int(step)

    def apply(self, local_step, grad):
        """Adds `grad` unless `local_step` is older than the global step."""
        with self._cond:
            self._check_shape(grad.shape)
            if local_step < self.global_step:
                logging.vlog(1, f"Stale gradient for accumulator {self.name}: local_step "
                                f"{local_step} < global_step {self.global_step}; dropped")
                return
            if self._sum is None:
                self._sum = np.array(grad, dtype=self.dtype)
            else:
                self._sum += grad
            self.count += 1
            self._cond.notify_all()

    def _wait(self, rs, num_required):
        if num_required < 1:
            raise _invalid(f"Argument num_required must be positive, but was {num_required}")
        rs.wait(self._cond, lambda: self.count >= num_required)

    def take(self, rs, num_required):
        """The mean (or sum) of the gradients, after waiting for `num_required`."""
        with self._cond:
            self._wait(rs, num_required)
            out = self._sum
            if self.reduction_type == b"MEAN" or self.reduction_type == "MEAN":
                out = (out / self.count).astype(self.dtype)
            self._reset()
            return out

    def _reset(self):
        self._sum = None
        self.count = 0
        self.global_step += 1


class SparseAccumulator(Accumulator):
    """Accumulates IndexedSlices-style gradients row by row; the mean divides each
    row by the number of gradients that touched it."""

    def __init__(self, name, dtype, shape, reduction_type):
        super().__init__(name, dtype, shape, reduction_type)
        self._rows = {}
        self._counts = {}
        self._row_shape = None

    def _sum_shape(self):
        return None

    def apply_sparse(self, local_step, indices, values, shape, has_known_shape):
        with self._cond:
            if has_known_shape:
                shape = tuple(int(d) for d in shape)
                self._check_dense(shape)
            if values.ndim < 1 or values.shape[0] != indices.shape[0]:
                raise _invalid(f"Shape mismatch: indices have {indices.shape[0]} entries but "
                               f"values has shape {_fmt(values.shape)}")
            row = values.shape[1:]
            if self._row_shape is not None and row != self._row_shape:
                raise _invalid(f"Shape mismatch: expected values of shape "
                               f"{_fmt((None,) + self._row_shape)}, got {_fmt(values.shape)}")
            if self.shape is not None and not self._row_ok(row):
                raise _invalid(f"Shape mismatch: expected values of shape "
                               f"{_fmt((None,) + tuple(self.shape[1:]))}, got "
                               f"{_fmt(values.shape)}")
            if local_step < self.global_step:
                logging.vlog(1, f"Stale gradient for accumulator {self.name}; dropped")
                return
            self._row_shape = row
            for i, v in zip(indices.tolist(), values):
                if i in self._rows:
                    self._rows[i] = self._rows[i] + v
                    self._counts[i] += 1
                else:
                    self._rows[i] = np.array(v, dtype=self.dtype)
                    self._counts[i] = 1
            self.count += 1
            self._cond.notify_all()

    # As in TF, the accumulator's shape constrains only the leading dims of a gradient
    # (a rank-0 shape, as SyncReplicasOptimizer makes, accepts any gradient).
    def _row_ok(self, row):
        tail = self.shape[1:]
        return len(row) >= len(tail) and all(e is None or e < 0 or e == d
                                             for d, e in zip(row, tail))

    def _check_dense(self, shape):
        if self.shape is not None and not (len(shape) >= len(self.shape) and all(
                e is None or e < 0 or e == d for d, e in zip(shape, self.shape))):
            raise _invalid(f"Shape mismatch: expected shape {_fmt(self.shape)}, got "
                           f"{_fmt(shape)}")

    def take_sparse(self, rs, num_required):
        with self._cond:
            self._wait(rs, num_required)
            keys = sorted(self._rows)
            row = self._row_shape or ()
            mean = self.reduction_type in (b"MEAN", "MEAN")
            values = np.zeros((len(keys),) + tuple(row), dtype=self.dtype)
            for j, k in enumerate(keys):
                v = self._rows[k]
                values[j] = v / self._counts[k] if mean else v
            # TF's dense shape: dim 0 from the accumulator's shape (-1 when it has none),
            # the other dims from the values; the applied gradient_shape is not used.
            first = self.shape[0] if self.shape else None
            shape = np.asarray((-1 if first is None or first < 0 else first,) + tuple(row),
                               np.int64)
            self._rows, self._counts = {}, {}
            self._reset()
            return np.asarray(keys, np.int64), values, shape
