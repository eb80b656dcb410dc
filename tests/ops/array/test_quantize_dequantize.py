"""QuantizeAndDequantizeV2 / V3 against TensorFlow 2.21's outputs (recorded by
data/gen_quantize_dequantize.py; live with TRAINFLOW_TF_PYTHON), TF's range errors and
the straight-through gradient."""
import json
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op
from tf_interop import needs_tf, run_python

_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(_DATA, "quantize_dequantize.json")) as _f:
    REFERENCE = json.load(_f)


def _quantize(op, x, lo, hi, **attrs):
    if op == "V3":
        bits = attrs.pop("num_bits")
        return apply_op("QuantizeAndDequantizeV3", input=x, input_min=lo, input_max=hi,
                        num_bits=tf.constant(bits), **attrs).outputs[0]
    return apply_op("QuantizeAndDequantizeV2", input=x, input_min=lo, input_max=hi,
                    **attrs).outputs[0]


def _run_case(case):
    dtype = np.dtype(case["dtype"])
    with tf.Graph().as_default():
        y = _quantize(case["op"], np.asarray(case["input"], dtype),
                      np.asarray(case["input_min"], dtype),
                      np.asarray(case["input_max"], dtype), **case["attrs"])
        with tf.Session() as sess:
            return sess.run(y)


def _check(case):
    got = _run_case(case)
    assert got.dtype == np.dtype(case["dtype"])
    np.testing.assert_array_equal(got, np.asarray(case["expected"], case["dtype"]))


@pytest.mark.parametrize("case", REFERENCE["cases"],
                         ids=lambda c: f"{c['op']}-{json.dumps(c['attrs'], sort_keys=True)}"
                         f"-{c['dtype']}")
def test_matches_tensorflow(case):
    _check(case)


@needs_tf
def test_matches_live_tensorflow():
    run_script = ("import runpy, sys; sys.argv = sys.argv[1:]; "
                  "runpy.run_path(sys.argv[0], run_name='__main__')")
    script = os.path.join(_DATA, "gen_quantize_dequantize.py")
    live = json.loads(run_python(run_script, script, "--stdout").strip().splitlines()[-1])
    for case in live["cases"]:
        _check(case)


X = np.arange(12, dtype=np.float32).reshape(3, 4) - 5


@pytest.mark.parametrize("op, lo, hi, attrs, message", [
    ("V2", 1.0, 0.0, {"range_given": True}, "Invalid range: input_min 1 > input_max 0"),
    ("V2", -1.0, [2.0] * 4, {"range_given": True, "axis": 1}, "input_max must be a scalar."),
    ("V2", -1.0, 2.0, {"range_given": True, "axis": 1},
     "Shape must be rank 1 for input_min_tensor when the axis is specified"),
    ("V3", [-1.0] * 3, [2.0] * 3, {"num_bits": 3, "axis": 1},
     "input_min_tensor has incorrect size, was 3 expected 4 to match dim 1 of the input"),
    ("V2", 0.0, 1.0, {"num_bits": 62}, "num_bits is out of range: 62 with signed_input_ 1"),
])
def test_errors_as_tensorflow(op, lo, hi, attrs, message):
    with tf.Graph().as_default():
        y = _quantize(op, X, np.float32(lo), np.float32(hi), **attrs)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(y)
    assert message in str(info.value)


@pytest.mark.parametrize("op", ["V2", "V3"])
def test_gradient_passes_straight_through(op):
    with tf.Graph().as_default():
        x = tf.constant(X)
        attrs = {"num_bits": 4} if op == "V3" else {"range_given": True}
        y = _quantize(op, x, tf.constant(-1.0), tf.constant(2.0), **attrs)
        lo = y.op.inputs[1]
        gx, glo = tf.gradients(y * 3.0, [x, lo])
        assert glo is None
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(gx), np.full((3, 4), 3.0, np.float32))


def _run_fake_quant(case):
    with tf.Graph().as_default():
        x = tf.constant(np.float32(case["input"]))
        lo, hi = tf.constant(np.float32(case["min"])), tf.constant(np.float32(case["max"]))
        y = apply_op("FakeQuantWithMinMaxVars", inputs=x, min=lo, max=hi,
                     **case["attrs"]).outputs[0]
        g = tf.constant(np.float32(case["gradients"]))
        grads = tf.gradients(y, [x, lo, hi], grad_ys=g)
        assert grads[0].op.type == "FakeQuantWithMinMaxVarsGradient"
        with tf.Session() as sess:
            return sess.run([y, grads])


@pytest.mark.parametrize("case", REFERENCE["fake_quant"],
                         ids=lambda c: f"{c['min']}_{c['max']}_{json.dumps(c['attrs'])}")
def test_fake_quant_matches_tensorflow(case):
    y, grads = _run_fake_quant(case)
    np.testing.assert_array_equal(y, np.float32(case["expected"]))
    for got, want in zip(grads, case["expected_grads"]):
        np.testing.assert_allclose(got, np.float32(want), rtol=1e-6, atol=1e-7)


def test_fake_quant_bits_checked():
    with tf.Graph().as_default():
        y = apply_op("FakeQuantWithMinMaxVars", inputs=X, min=-1.0, max=1.0,
                     num_bits=17).outputs[0]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="num_bits must be between 2 and 16, inclusive"):
                sess.run(y)
