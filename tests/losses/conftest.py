"""Fixtures of the tf.losses tests: TensorFlow's reference results (written by
data/gen_tf_losses_reference.py)."""
import json
import os

import numpy as np
import pytest

_REF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                    "tf_losses_reference.json")


@pytest.fixture(scope="session")
def losses_ref():
    """The reference JSON; `inputs` holds NumPy arrays (int32 class ids for `sparse`)."""
    with open(_REF) as f:
        ref = json.load(f)
    ref["inputs"] = {k: np.array(v, np.int32 if k == "sparse" else np.float32)
                     for k, v in ref["inputs"].items()}
    return ref
