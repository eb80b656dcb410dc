"""Event data for `trainflow events`: histogram percentiles and sparklines."""
import io
import sys

import numpy as np
import pytest

from trainflow._src.ops.summary.histogram import fill_histogram_proto
from trainflow._src.protos import summary_pb2
from trainflow._src.tools import event_data, events_text


def _histo(values):
    return fill_histogram_proto(summary_pb2.HistogramProto(), np.asarray(values, np.float64))


def test_percentiles_follow_the_data():
    values = np.random.RandomState(0).randn(20000)
    got = event_data.histogram_percentiles(_histo(values), [0.0, 0.1587, 0.5, 0.8413, 1.0])
    assert got[0] == values.min() and got[-1] == values.max()
    np.testing.assert_allclose(got[1:4], [-1.0, 0.0, 1.0], atol=0.1)


def test_percentiles_of_one_value_and_of_nothing():
    assert event_data.histogram_percentiles(_histo([2.5] * 3), [0, 0.5, 1]) == [2.5] * 3
    assert all(np.isnan(event_data.histogram_percentiles(_histo([]), [0.5])))


@pytest.mark.parametrize("encoding,alphabet", [("utf-8", events_text._BLOCKS),
                                               ("ascii", events_text._ASCII)])
def test_sparkline_uses_blocks_the_terminal_can_print(monkeypatch, encoding, alphabet):
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding=encoding))
    line = events_text.sparkline(_histo([0.0] * 10 + [1.0]), width=4)
    assert len(line) == 4 and line[0] == alphabet[-1] and line[1:3] == "  "
    assert line[3] in alphabet
