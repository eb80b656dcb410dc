"""Makes the shared test helpers in tests/helpers importable (`from tf_interop import
run_json`): pytest runs with --import-mode=importlib, which puts no test folder on sys.path."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "helpers"))

# TRAINFLOW_XLA=1 runs the whole suite with XLA switched on for every session, through the
# environment variable TensorFlow reads (the CI job flag for the XLA backend).
if os.environ.get("TRAINFLOW_XLA") == "1" and "--tf_xla_auto_jit" not in \
        os.environ.get("TF_XLA_FLAGS", ""):
    os.environ["TF_XLA_FLAGS"] = (os.environ.get("TF_XLA_FLAGS", "") +
                                  " --tf_xla_auto_jit=2").strip()


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "xla_differs(reason): by design, the test's outcome differs with the XLA "
                   "backend on; skipped when TRAINFLOW_XLA=1 (listed in docs/xla.md)")


def pytest_collection_modifyitems(config, items):
    """With TRAINFLOW_XLA=1, the tests marked xla_differs are skipped with their reason."""
    if os.environ.get("TRAINFLOW_XLA") != "1":
        return
    import pytest
    for item in items:
        mark = item.get_closest_marker("xla_differs")
        if mark is not None:
            reason = mark.kwargs.get("reason") or (mark.args[0] if mark.args else "")
            item.add_marker(pytest.mark.skip(reason=f"differs under XLA by design: {reason}"))
