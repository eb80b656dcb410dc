"""`trainflow ops`: the TF 1.15 symbol and op-type support matrix, and docs/support.md."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

import trainflow
from trainflow._src.tools import support, tf1_api

SRC = os.path.dirname(os.path.dirname(os.path.abspath(trainflow.__file__)))
HAS_JAX = importlib.util.find_spec("jax") is not None
# The committed file, beside the tests in the checkout (trainflow itself may be installed).
DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "support.md")


def _ops(*argv):
    proc = subprocess.run([sys.executable, "-m", "trainflow", "ops", *argv],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=SRC))
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout


def test_the_symbol_list_is_tf1s_api():
    names = tf1_api.tf1_symbols()
    assert len(names) > 2000 and names == sorted(set(names))
    for name in ("tf.placeholder", "tf.train.AdamOptimizer", "tf.nn.conv2d", "tf.layers.dense",
                 "tf.app.flags.DEFINE_integer", "tf.compat.as_bytes", "tf.data.Dataset"):
        assert name in names
    assert not any(n.startswith(("tf.raw_ops.", "tf.keras.", "tf.compat.v1.")) for n in names)


def test_symbol_support():
    symbols = support.symbol_support()
    assert symbols["tf.train.AdamOptimizer"] and symbols["tf.disable_v2_behavior"]
    assert symbols["tf.nn.sparse_softmax_cross_entropy_with_logits"]
    assert symbols["tf.data.Dataset"] and symbols["tf.saved_model.loader.load"]
    assert symbols["tf.GradientTape"] and symbols["tf.RaggedTensor"]
    missing_name = "tf.experimental.DynamicRaggedShape"
    assert not symbols[missing_name] and not symbols["tf.data.experimental.service.distribute"]


def test_op_type_support():
    ops = support.op_type_support()
    # The XLA column is read from the lowerings, which load when jax is installed.
    assert ops["MatMul"] == {"numpy": True, "gradient": "yes", "xla": HAS_JAX}
    assert ops["FusedBatchNormGradV3"]["xla"] == ops["While"]["xla"] == HAS_JAX
    assert not ops["WhileGrad"]["xla"] and not ops["PyFunc"]["xla"]
    assert ops["RandomUniform"]["gradient"] == "not differentiable"
    assert ops["All"]["gradient"] == "none in TF"
    assert ops["Qr"]["gradient"] == "yes"
    assert ops["RandomGamma"]["gradient"] == "missing"


def test_summary_and_lists_from_the_command():
    out = _ops()
    assert out.startswith("tf.compat.v1 symbols (TF 2.21): ") and "\nop types: " in out
    missing = _ops("--missing").splitlines()
    missing_name = "tf.experimental.DynamicRaggedShape"
    assert missing_name in missing and "tf.train.AdamOptimizer" not in missing
    symbols = dict(line.split("  ") for line in _ops("--symbols").splitlines())
    assert symbols["tf.train.AdamOptimizer"] == "yes" and symbols[missing_name] == "no"
    assert sorted(n for n, v in symbols.items() if v == "no") == sorted(missing)


def test_the_docs_name_the_symbol_list_for_what_it_is():
    """The list is TF 2.21's tf.compat.v1 (post-1.15 names included), not TF 1.15's API."""
    md = support.markdown(support.symbol_support(), support.op_type_support())
    assert "## TensorFlow 2.21's `tf.compat.v1` symbols" in md
    assert "TF 1.15's `tf.*` API exist" not in md


def test_json_and_the_committed_docs_are_current():
    doc = json.loads(_ops("--json"))
    assert doc["op_types"]["Conv2D"]["gradient"] == "yes"
    assert doc["symbols"]["tf.Session"] is True
    if not HAS_JAX:
        pytest.skip("docs/support.md lists the XLA lowerings, which need jax to load")
    with open(DOC, encoding="utf-8") as f:
        committed = f.read()
    assert committed == _ops("--markdown"), (
        "docs/support.md is out of date: run `trainflow ops --markdown > docs/support.md`")
