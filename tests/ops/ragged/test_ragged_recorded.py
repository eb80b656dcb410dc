"""Every expression of tests/helpers/ragged_cases.py (RaggedTensor factories, properties,
conversions, indexing and operators; tf.ragged's ops; tf.strings' Unicode, n-gram and
segment-join ops) against the values TensorFlow 2.21 gave for it (data/ragged_values.json,
written by data/gen_ragged_values.py): static shapes, dtypes, values, error classes, and
the added op types where trainflow builds the same ops."""
import json
import os

import pytest

import expr_values
import ragged_cases

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                       "ragged_values.json")) as _f:
    RECORDED = json.load(_f)
_OURS = []


def _ours():
    if not _OURS:
        _OURS.append(dict(zip(ragged_cases.EXPRESSIONS, expr_values.trainflow_results(
            ragged_cases.PRELUDE, ragged_cases.EXPRESSIONS))))
    return _OURS[0]


def test_every_case_is_recorded():
    assert sorted(RECORDED) == sorted(ragged_cases.EXPRESSIONS)


@pytest.mark.parametrize("expr", ragged_cases.EXPRESSIONS)
def test_matches_recorded_tf(expr):
    ours, theirs = _ours()[expr], RECORDED[expr]
    if expr in ragged_cases.STATIC_DIFFER:
        assert ours["static"] != theirs["static"]  # known: see ragged_cases.STATIC_DIFFER
        ours = dict(ours, static=theirs["static"])
    expr_values.assert_same(ours, theirs, compare_ops=expr not in ragged_cases.OPS_DIFFER)
