"""Fixtures of the tf.metrics tests: TensorFlow's reference results (written by
data/gen_tf_metrics_reference.py)."""
import json
import os

import pytest

_REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                    "tf_metrics_reference.json")


@pytest.fixture(scope="session")
def metrics_ref():
    """The reference JSON: `batches` (the three fed batches) and `metrics` (per case)."""
    with open(_REF) as f:
        return json.load(f)
