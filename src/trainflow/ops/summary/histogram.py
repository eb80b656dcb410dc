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


def bucket_counts(values, limits=DEFAULT_BUCKET_LIMITS):
    """Counts of the finite float64 `values` per bucket of `limits` (TF's upper_bound rule)."""
    ordered = np.sort(values)
    # Values below limit k: the cumulative count up to bucket k; differences give buckets.
    below = np.searchsorted(ordered, limits, side="left")
    counts = np.empty(len(limits), dtype=np.float64)
    counts[0] = below[0]
    np.subtract(below[1:], below[:-1], out=counts[1:])
    return counts


def sequential_sum(values):
    """The sum of float64 `values` added left to right, as a C loop adds them."""
    if values.size == 0:
        return 0.0
    return float(np.add.accumulate(values)[-1])


def histogram_fields(values):
    """(min, max, num, sum, sum_squares, bucket_limit, bucket) of finite float64 `values`."""
    values = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    if values.size == 0:
        return DBL_MAX, -DBL_MAX, 0.0, 0.0, 0.0, [DBL_MAX], [0.0]
    counts = bucket_counts(values)
    nonzero = np.flatnonzero(counts > 0)
    # Each kept entry is a non-empty bucket, or a run of empty ones ending just
    # before a non-empty bucket (or at the end); the run carries its last limit.
    ends = []
    previous = -1
    for k in nonzero:
        if k - previous > 1:
            ends.append(k - 1)
        ends.append(k)
        previous = k
    if previous < len(counts) - 1:
        ends.append(len(counts) - 1)
    ends = np.array(ends)
    return (float(values.min()), float(values.max()), float(values.size),
            sequential_sum(values), sequential_sum(values * values),
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
