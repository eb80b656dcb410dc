"""Test-wide setup.

- Makes the shared test helpers in tests/helpers importable (`from tf_interop import
  run_json`): pytest runs with --import-mode=importlib, which puts no test folder on sys.path.
- TRAINFLOW_XLA=1 switches XLA on for every session (the CI job for the XLA backend).
- jax's persistent compilation cache is off (TRAINFLOW_XLA_CACHE_DIR empty) unless set.
- Labels every test with one tier, so a contributor can run one (`pytest -m unit tests`):
  `interop` runs real TensorFlow in a subprocess (needs TRAINFLOW_TF_PYTHON), `xla` needs jax
  (the XLA backend's own tests), `golden` compares against data recorded from TensorFlow
  (`tests/fixtures/`, or a `data/` folder beside the test), `unit` is everything else. The
  first rule of `_TIERS` that matches wins.
"""
import os
import sys

import pytest

_TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_TESTS, "helpers"))

from tf_interop import (  # noqa: E402 - needs the helpers folder on sys.path
    TF_ESTIMATOR_SKIP_REASON, TF_SKIP_REASON)

# Compiled programs are not written to the user's cache folder (tests that need the
# persistent cache point it at a temporary folder).
os.environ.setdefault("TRAINFLOW_XLA_CACHE_DIR", "")

if os.environ.get("TRAINFLOW_XLA") == "1" and "--tf_xla_auto_jit" not in \
        os.environ.get("TF_XLA_FLAGS", ""):
    os.environ["TF_XLA_FLAGS"] = (os.environ.get("TF_XLA_FLAGS", "") +
                                  " --tf_xla_auto_jit=2").strip()


def _runs_tensorflow(item):
    return any(m.kwargs.get("reason") in (TF_SKIP_REASON, TF_ESTIMATOR_SKIP_REASON)
               for m in item.iter_markers("skipif"))


def _needs_jax(item):
    module = getattr(item, "module", None)
    return (os.path.basename(str(item.fspath)).startswith("test_xla_")
            or "jax" in vars(module if module is not None else object()))


def _reads_golden_data(item):
    module = getattr(item, "module", None)
    if module is None:
        return False
    data = os.path.join(os.path.dirname(str(item.fspath)), "data")
    roots = (os.path.join(_TESTS, "fixtures"), data)
    return any(isinstance(v, str) and os.path.isabs(v) and v.startswith(roots)
               for v in vars(module).values())


_TIERS = (
    ("interop", _runs_tensorflow),
    ("xla", _needs_jax),
    ("golden", _reads_golden_data),
    ("unit", lambda item: True),
)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "xla_differs(reason): by design, the test's outcome differs with the XLA "
                   "backend on; skipped when TRAINFLOW_XLA=1 (listed in docs/xla.md)")
    for tier, _ in _TIERS:
        config.addinivalue_line("markers", f"{tier}: test tier (see tests/conftest.py)")


def pytest_collection_modifyitems(config, items):
    """Labels each test with its tier; with TRAINFLOW_XLA=1, the tests marked xla_differs are
    skipped with their reason."""
    xla_on = os.environ.get("TRAINFLOW_XLA") == "1"
    for item in items:
        tier = next(name for name, matches in _TIERS if matches(item))
        item.add_marker(getattr(pytest.mark, tier))
        mark = item.get_closest_marker("xla_differs")
        if xla_on and mark is not None:
            reason = mark.kwargs.get("reason") or (mark.args[0] if mark.args else "")
            item.add_marker(pytest.mark.skip(reason=f"differs under XLA by design: {reason}"))
