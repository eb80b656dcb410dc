"""Records TensorFlow 2.21's results for the expressions of an interop test module
(its PRELUDE and EXPRESSIONS) into a JSON file beside this script, for the golden tests
that run without TensorFlow. Run from the repository root with TensorFlow's python in
TRAINFLOW_TF_PYTHON:

    TRAINFLOW_TF_PYTHON=/path/to/tf/python PYTHONPATH=src python \
        tests/ops/math/data/gen_tf_values.py tests/ops/math/test_x_tf_interop.py out.json

Not a test; the golden tests read the JSON it wrote.
"""
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "helpers"))

from expr_values import tf_results  # noqa: E402


def main(module_path, out_path):
    spec = importlib.util.spec_from_file_location("interop_cases", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expressions = list(module.EXPRESSIONS)
    record = {"prelude": module.PRELUDE, "expressions": expressions,
              "ops_differ": sorted(getattr(module, "OPS_DIFFER", ())),
              "results": tf_results(module.PRELUDE, expressions)}
    with open(out_path, "w") as f:
        json.dump(record, f, indent=0)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
