"""Writes tf_results.json: TensorFlow 2.21's results (op types, static shapes, values or
error class) for the expressions of the interop tests listed in MODULES, so
test_recorded_tf_results.py checks trainflow against them without TensorFlow. Run with the
project's python and TRAINFLOW_TF_PYTHON set, from the repository root:

    TRAINFLOW_TF_PYTHON=/path/to/tf/python python tests/ops/sparse/data/gen_tf_results.py

Not a test; the tests read the JSON it wrote.
"""
import importlib.util
import json
import os
import sys

TESTS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_results.json")
# The interop tests (paths under tests/) whose expressions are recorded.
MODULES = ["ops/sparse/test_sparse_cut_tf_interop.py",
           "ops/sparse/test_sparse_elementwise_tf_interop.py",
           "ops/sparse/test_sparse_build_tf_interop.py",
           "ops/sparse/test_sparse_bincount_tf_interop.py",
           "ops/math/test_sparse_matmul_tf_interop.py",
           "ops/state/test_batch_scatter_tf_interop.py",
           "ops/audio/test_wav_tf_interop.py",
           "ops/io/test_proto_ops_tf_interop.py"]


def load(relpath):
    """The test module at tests/`relpath` (its PRELUDE and EXPRESSIONS)."""
    spec = importlib.util.spec_from_file_location(
        "recorded_" + os.path.basename(relpath)[:-3], os.path.join(TESTS, relpath))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    sys.path.insert(0, os.path.join(TESTS, "helpers"))
    import expr_values
    out = {"tensorflow": "2.21.0", "modules": {}}
    for relpath in MODULES:
        module = load(relpath)
        out["modules"][relpath] = {
            "expressions": module.EXPRESSIONS,
            "results": expr_values.tf_results(module.PRELUDE, module.EXPRESSIONS)}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
