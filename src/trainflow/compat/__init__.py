"""`tf.compat`: text/bytes/path conversions, type tuples and forward-compatibility checks.

The subpackage `trainflow.compat.v1` holds the TF1 namespace
(`import trainflow.compat.v1 as tf`). TF 1.15's `tf.compat.v2`, TensorFlow 2's eager
API, has no counterpart here: reaching it raises an AttributeError that says so.
"""
import importlib as _importlib

from trainflow._src.compat.conversions import (  # noqa: F401
    as_bytes, as_str, as_str_any, as_text, bytes_or_text_types, complex_types,
    forward_compatibility_horizon, forward_compatible, integral_types, path_to_str,
    real_types)
from trainflow._src.framework.tensor_shape import dimension_at_index, dimension_value  # noqa: F401

__all__ = [
    "as_bytes", "as_text", "as_str", "as_str_any", "path_to_str",
    "bytes_or_text_types", "integral_types", "real_types", "complex_types",
    "forward_compatible", "forward_compatibility_horizon",
    "dimension_value", "dimension_at_index",
]


def __getattr__(name):
    if name == "v1":
        return _importlib.import_module("trainflow.compat.v1")
    if name == "v2":
        raise AttributeError(
            "trainflow.compat has no 'v2': trainflow provides TensorFlow 1.x's graph-mode API "
            "(trainflow.compat.v1), not TensorFlow 2's eager API")
    raise AttributeError(f"module 'trainflow.compat' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | {"v1"})
