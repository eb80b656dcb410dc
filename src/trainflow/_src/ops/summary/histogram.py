"""TensorFlow's summary histogram (`tensorflow/core/lib/histogram`) in NumPy.

Buckets are TF's defaults: edges growing by 10% from 1e-12 to 1e20, mirrored
for negative values, with 0 in the middle and +-DBL_MAX at the ends. A value v
falls in the first bucket whose limit is greater than v. min, max, num, sum and
sum_squares are accumulated in double precision in input order, so they match
TF bit for bit; runs of empty buckets are collapsed into one entry whose limit
is the run's last, as TF's encoder does.
"""
import sys

import numpy as np

DBL_MAX = sys.float_info.max


def _default_bucket_limits():
    positive = []
    v = 1.0e-12
    while v < 1.0e20:
        positive.append(v)
        v *= 1.1
    positive.append(DBL_MAX)
    negative = [-x for x in reversed(positive)]
    return np.array(negative + [0.0] + positive, dtype=np.float64)


DEFAULT_BUCKET_LIMITS = _default_bucket_limits()
DEFAULT_BUCKET_LIMITS.setflags(write=False)


def _bucket_table(limits):
    """A lookup table giving a finite double's bucket from its top 16 bits.

    The top 16 bits (sign, exponent, 4 mantissa bits) cut the doubles into
    intervals spanning a factor of at most 1 + 1/16 < 1.1, so each interval holds
    at most one bucket limit. For an interval, the table counts the limits at or
    below its smallest value; the next limit is the only one that may lie inside,
    so the bucket of v is table[key] + (limits[table[key]] <= v): TF's upper_bound.
    """
    keys = np.arange(1 << 16, dtype=np.uint64)
    low = keys << np.uint64(48)
    high = low | np.uint64((1 << 48) - 1)
    negative = keys >= (1 << 15)
    first = np.where(negative, high, low).view(np.float64)
    last = np.where(negative, low, high).view(np.float64)
    finite = np.isfinite(first) & np.isfinite(last)
    first, last = np.where(finite, first, 0.0), np.where(finite, last, 0.0)
    base = np.searchsorted(limits, first, side="right")
    assert np.all(np.searchsorted(limits, last, side="right") - base <= 1)
    return base.astype(np.intp)


_TABLE = []
# The limits with +inf appended: the "next limit" of the last bucket.
_NEXT_LIMIT = np.append(DEFAULT_BUCKET_LIMITS, np.inf)


def bucket_counts(values):
    """Counts of the finite float64 `values` in each default bucket (upper_bound rule)."""
    if not _TABLE:
        _TABLE.append(_bucket_table(DEFAULT_BUCKET_LIMITS))
    # Indexing with intp is much faster than with uint64: the keys fit in 16 bits.
    keys = (values.view(np.uint64) >> np.uint64(48)).view(np.intp)
    index = np.take(_TABLE[0], keys)
    index += np.take(_NEXT_LIMIT, index) <= values
    return np.bincount(index, minlength=len(DEFAULT_BUCKET_LIMITS)).astype(np.float64)


def sequential_sums(values):
    """(sum of v, sum of v * v) of float64 `values`, each added left to right in
    double precision, as TF's C++ loop adds them.

    Both run in one pass: the real and imaginary parts of a complex128
    accumulation are two independent double additions.
    """
    pairs = np.empty(values.shape, np.complex128)
    pairs.real = values
    np.multiply(values, values, out=pairs.imag)
    last = np.add.accumulate(pairs, out=pairs)[-1]
    return float(last.real), float(last.imag)


def histogram_fields(values):
    """(min, max, num, sum, sum_squares, bucket_limit, bucket) of finite float64 `values`."""
    values = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    if values.size == 0:
        return DBL_MAX, -DBL_MAX, 0.0, 0.0, 0.0, [DBL_MAX], [0.0]
    counts = bucket_counts(values)
    total, squares = sequential_sums(values)
    # Keep every non-empty bucket, and of each run of empty ones its last bucket
    # (the run's entry carries that limit), as TF's encoder collapses them.
    filled = counts > 0
    ends = np.flatnonzero(filled | np.append(filled[1:], True))
    return (float(values.min()), float(values.max()), float(values.size), total, squares,
            DEFAULT_BUCKET_LIMITS[ends].tolist(), counts[ends].tolist())


def fill_histogram_proto(proto, values):
    """Fills a HistogramProto from finite `values` as TF's HistogramSummary does."""
    mn, mx, num, total, squares, limits, counts = histogram_fields(values)
    proto.min = mn
    proto.max = mx
    proto.num = num
    proto.sum = total
    proto.sum_squares = squares
    proto.bucket_limit.extend(limits)
    proto.bucket.extend(counts)
    return proto
