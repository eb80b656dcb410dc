"""Fixtures of the tf.image tests: TensorFlow 2.21's reference outputs (written by
data/gen_tf_reference.py) as NumPy arrays."""
import json
import os

import numpy as np
import pytest

_REF_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_reference.json")


def _decode(node):
    if isinstance(node, dict) and set(node) == {"dtype", "shape", "value"}:
        return np.array(node["value"], dtype=node["dtype"]).reshape(node["shape"])
    if isinstance(node, dict):
        return {k: _decode(v) for k, v in node.items()}
    return node


@pytest.fixture(scope="session")
def tf_ref():
    """The reference data: nested dicts whose tensors are NumPy arrays."""
    with open(_REF_PATH) as f:
        return _decode(json.load(f))
