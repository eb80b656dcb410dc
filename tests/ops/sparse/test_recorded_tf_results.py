"""The sparse, edit-distance, bincount, SparseMatMul, batch-scatter, WAV and proto ops
against TensorFlow 2.21's results recorded in data/tf_results.json (by
data/gen_tf_results.py, from the expressions of the interop tests it lists), so they are
checked without TensorFlow too: op types, static shapes, values to float32 round-off,
error classes."""
import importlib.util
import json
import os

import pytest

from expr_values import assert_same, trainflow_results

_HERE = os.path.dirname(os.path.abspath(__file__))
_TESTS = os.path.dirname(os.path.dirname(_HERE))
with open(os.path.join(_HERE, "data", "tf_results.json")) as _f:
    RECORDED = json.load(_f)["modules"]
_CASES = [(path, i) for path, entry in sorted(RECORDED.items())
          for i in range(len(entry["expressions"]))]
_OURS = {}


def _module(path):
    spec = importlib.util.spec_from_file_location(
        "recorded_" + os.path.basename(path)[:-3], os.path.join(_TESTS, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ours(path):
    if path not in _OURS:
        module = _module(path)
        assert module.EXPRESSIONS == RECORDED[path]["expressions"], \
            "the interop test changed: run data/gen_tf_results.py again"
        _OURS[path] = trainflow_results(module.PRELUDE, module.EXPRESSIONS)
    return _OURS[path]


@pytest.mark.parametrize("path, i", _CASES,
                         ids=[f"{os.path.basename(p)[5:-14]}-{i}" for p, i in _CASES])
def test_matches_recorded_tf(path, i):
    assert_same(_ours(path)[i], RECORDED[path]["results"][i])
