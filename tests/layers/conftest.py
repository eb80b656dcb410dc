"""Fixtures of the tf.layers tests: TensorFlow's reference results (written by
data/gen_tf_layers_reference.py) and the deterministic inputs they were made from."""
import json
import os

import numpy as np
import pytest

_REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                    "tf_layers_reference.json")


@pytest.fixture(scope="session")
def layers_ref():
    """The reference JSON as a dict."""
    with open(_REF) as f:
        return json.load(f)


def sines(shape, scale=0.1, shift=0.0):
    """The generator's inputs: sin(0.37 i + shift) * 10 scale, float32, in `shape`."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.37 + shift) * scale * 10).reshape(shape).astype(np.float32)


@pytest.fixture(scope="session")
def arr():
    """`sines` as a fixture (test modules can't import conftest in importlib mode)."""
    return sines
