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
