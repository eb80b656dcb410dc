"""The tf.nn.rnn_cell cells under dynamic_rnn, static_rnn and the bidirectional drivers
against TensorFlow 2.21's TF1 cells and drivers (`rnn_cell_impl`, TF 1.15's code):
variable names and shapes, outputs, final states, and the gradients with respect to the
inputs and every variable. Skipped without TRAINFLOW_TF_PYTHON."""
import json

import numpy as np
import pytest

from rnn_cases import CASES, PROGRAM
from tf_interop import needs_tf, run_json

import trainflow.compat.v1 as tf

_TF_SCRIPT = PROGRAM + r'''
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
from tensorflow.python.ops import rnn_cell_impl as rc
cases = json.loads(sys.stdin.read())
print(json.dumps([run_case(tf, rc, case) for case in cases]))
'''


@pytest.fixture(scope="module")
def tf_results():
    return run_json(_TF_SCRIPT, spec=[case for _, case in CASES])


def _ours(case):
    namespace = {}
    exec(PROGRAM, namespace)  # noqa: S102 - the shared test program
    return namespace["run_case"](tf, tf.nn.rnn_cell, json.loads(json.dumps(case)))


@needs_tf
@pytest.mark.parametrize("i, case", list(enumerate(c for _, c in CASES)),
                         ids=[name for name, _ in CASES])
def test_same_as_tensorflow(tf_results, i, case):
    want = tf_results[i]
    got = _ours(case)
    assert got["variables"] == want["variables"]
    assert got["static_shapes"] == want["static_shapes"]
    assert len(got["values"]) == len(want["values"])
    for g, w in zip(got["values"] + got["grads"], want["values"] + want["grads"]):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-5, atol=1e-5)
