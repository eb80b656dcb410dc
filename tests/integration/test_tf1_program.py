"""A TF1-style program gives on trainflow what it gives on TensorFlow 2.21 (compat.v1)."""
import json
import os
import sys

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tf1_program  # noqa: E402


def _expected():
    with open(os.path.join(HERE, "tf1_program_expected.json")) as f:
        return json.load(f)


def test_program_matches_recorded_tensorflow_results():
    assert json.loads(json.dumps(tf1_program.run(tf), sort_keys=True)) == _expected()


@needs_tf
def test_program_matches_live_tensorflow():
    code = ("import json, sys; sys.path.insert(0, %r); import tensorflow.compat.v1 as tf; "
            "tf.disable_v2_behavior(); import tf1_program; "
            "print(json.dumps(tf1_program.run(tf), sort_keys=True))" % HERE)
    live = run_json(code, timeout=600)
    assert json.loads(json.dumps(tf1_program.run(tf), sort_keys=True)) == live
