"""The expressions of tests/helpers/ragged_cases.py run by TensorFlow (in a subprocess)
and by trainflow: static shapes, dtypes, values, error classes, and the added op types
where trainflow builds the same ops."""
import pytest

import expr_values
import ragged_cases
from tf_interop import needs_tf

_CACHE = []


def _results():
    if not _CACHE:
        args = (ragged_cases.PRELUDE, ragged_cases.EXPRESSIONS)
        _CACHE.append((expr_values.trainflow_results(*args), expr_values.tf_results(*args)))
    return _CACHE[0]


@needs_tf
@pytest.mark.parametrize("i", range(len(ragged_cases.EXPRESSIONS)),
                         ids=ragged_cases.EXPRESSIONS)
def test_matches_tf(i):
    expr = ragged_cases.EXPRESSIONS[i]
    ours, theirs = (r[i] for r in _results())
    if expr in ragged_cases.STATIC_DIFFER:
        ours = dict(ours, static=theirs["static"])
    expr_values.assert_same(ours, theirs, compare_ops=expr not in ragged_cases.OPS_DIFFER)
