"""A TF1-style program gives on trainflow what it gives on TensorFlow 2.21 (compat.v1)."""
import json
import os
import subprocess
import sys

import pytest

import trainflow.compat.v1 as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tf1_program  # noqa: E402


def _expected():
    with open(os.path.join(HERE, "tf1_program_expected.json")) as f:
        return json.load(f)


def test_program_matches_recorded_tensorflow_results():
    assert json.loads(json.dumps(tf1_program.run(tf), sort_keys=True)) == _expected()


@pytest.mark.skipif(not os.environ.get("TRAINFLOW_TF_PYTHON"), reason="needs TensorFlow")
def test_program_matches_live_tensorflow():
    code = ("import json, sys; sys.path.insert(0, %r); import tensorflow.compat.v1 as tf; "
            "tf.disable_v2_behavior(); import tf1_program; "
            "print(json.dumps(tf1_program.run(tf), sort_keys=True))" % HERE)
    out = subprocess.run([os.environ["TRAINFLOW_TF_PYTHON"], "-c", code], capture_output=True,
                         text=True, check=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    live = json.loads(out.stdout.strip().splitlines()[-1])
    assert json.loads(json.dumps(tf1_program.run(tf), sort_keys=True)) == live
