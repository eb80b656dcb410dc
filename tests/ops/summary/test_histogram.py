"""TF's default histogram buckets and the encoder's collapsing of empty buckets."""
import sys

import numpy as np
import pytest

from trainflow._src.ops.summary import histogram


def test_default_bucket_limits():
    limits = histogram.DEFAULT_BUCKET_LIMITS
    assert len(limits) == 1551  # 775 edges each side of 0, DBL_MAX at both ends
    assert limits[0] == -sys.float_info.max and limits[-1] == sys.float_info.max
    assert limits[775] == 0.0 and limits[776] == 1e-12
    np.testing.assert_array_equal(limits[:775], -limits[776:][::-1])
    assert np.all(np.diff(limits) > 0)


@pytest.mark.parametrize("values,limits,counts", [
    # a value equal to a limit goes to the next bucket (upper_bound)
    ([0.0], [0.0, 1e-12, sys.float_info.max], [0.0, 1.0, 0.0]),
    ([-1.0, 1.0], [-1.0089710279437536, -0.917246389039776, 0.917246389039776,
                   1.0089710279437536, sys.float_info.max], [0.0, 1.0, 0.0, 1.0, 0.0]),
    ([], [sys.float_info.max], [0.0]),
])
def test_buckets_collapse_runs_of_empty_ones(values, limits, counts):
    *_, got_limits, got_counts = histogram.histogram_fields(np.array(values))
    assert (got_limits, got_counts) == (limits, counts)


def test_sums_are_sequential_in_double():
    values = np.array([1e16, 1.0, -1e16, 1.0] * 3)
    _, _, num, total, squares, _, _ = histogram.histogram_fields(values)
    expected = 0.0
    for v in values:
        expected += v
    assert (num, total) == (12.0, expected)
    assert histogram.sequential_sums(values) == (total, squares)
    assert squares == _seq_squares(values)


def _seq_squares(values):
    total = 0.0
    for v in values:
        total += v * v
    return total


def test_empty_histogram_fields():
    assert histogram.histogram_fields(np.zeros(0))[:5] == (
        sys.float_info.max, -sys.float_info.max, 0.0, 0.0, 0.0)
