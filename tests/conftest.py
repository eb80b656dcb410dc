"""Makes the shared test helpers in tests/helpers importable (`from tf_interop import
run_json`): pytest runs with --import-mode=importlib, which puts no test folder on sys.path."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "helpers"))
