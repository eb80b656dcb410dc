"""Golden tests from recorded TensorFlow results: a JSON file written by
tests/ops/math/data/gen_tf_values.py (an interop module's prelude, expressions and TF
2.21's results) turned into a test that checks trainflow's results against it, without
TensorFlow."""
import json

import pytest

from expr_values import assert_same, trainflow_results


def golden_test(path, rtol=2e-5):
    """A test, parametrized over the recorded expressions, comparing each one's trainflow
    result with TensorFlow's (`assert_same`); a module binds it to a `test_` name."""
    with open(path) as f:
        record = json.load(f)
    expressions = record["expressions"]
    differ = set(record["ops_differ"])
    cache = []

    @pytest.mark.parametrize("i", range(len(expressions)), ids=expressions)
    def test(i):
        if not cache:
            cache.append(trainflow_results(record["prelude"], expressions))
        assert_same(cache[0][i], record["results"][i], rtol=rtol,
                    compare_ops=expressions[i] not in differ)
    return test
