"""Writes ragged_values.json: what TensorFlow 2.21 gives for each expression of
tests/helpers/ragged_cases.py (op types, static shapes and dtypes, values or the error
class). Run with the project's python and TensorFlow's python in TRAINFLOW_TF_PYTHON:

    TRAINFLOW_TF_PYTHON=/path/to/tf/python python tests/ops/ragged/data/gen_ragged_values.py

Not a test; tests/ops/ragged/test_ragged_recorded.py reads the JSON it wrote.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "helpers"))

import expr_values  # noqa: E402
import ragged_cases  # noqa: E402

results = expr_values.tf_results(ragged_cases.PRELUDE, ragged_cases.EXPRESSIONS)
with open(os.path.join(HERE, "ragged_values.json"), "w") as f:
    json.dump(dict(zip(ragged_cases.EXPRESSIONS, results)), f, indent=0, sort_keys=True)
    f.write("\n")
