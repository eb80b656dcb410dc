"""Writes quantize_dequantize.json: inputs, attrs and TensorFlow 2.21's outputs of
QuantizeAndDequantizeV2 / V3. Run with a TF python:

    /path/to/tf/python tests/ops/array/data/gen_quantize_dequantize.py [--stdout]

Not a test; the tests read the JSON it wrote.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "quantize_dequantize.json")


def cases():
    rng = np.random.RandomState(11)
    x = rng.uniform(-3, 5, (3, 4)).round(4).tolist()
    halves = [[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, 3.5, 126.5]]
    out = []
    for op, attrs, lo, hi, inp, dtype in [
        ("V2", {}, 0.0, 0.0, x, "float32"),
        ("V2", {"range_given": True}, -1.0, 2.0, x, "float32"),
        ("V2", {"range_given": True, "signed_input": False}, 0.0, 6.0, x, "float32"),
        ("V2", {"signed_input": False, "num_bits": 4}, 0.0, 0.0, x, "float32"),
        ("V2", {"narrow_range": True, "num_bits": 4}, 0.0, 0.0, x, "float64"),
        ("V2", {"range_given": True}, -128.0, 127.0, halves, "float32"),
        ("V2", {"range_given": True, "round_mode": "HALF_UP"}, -128.0, 127.0, halves,
         "float32"),
        ("V3", {"num_bits": 4, "axis": 1}, [-1.0, 0.0, -2.0, 1.0],
         [1.0, 3.0, 0.5, 4.0], x, "float32"),
        ("V2", {"axis": 0}, [0.0] * 3, [0.0] * 3, x, "float32"),
        ("V3", {"num_bits": 5}, -2.0, 3.0, x, "float32"),
        ("V3", {"num_bits": 3, "range_given": False, "signed_input": False}, 0.0, 0.0, x,
         "float64"),
    ]:
        out.append({"op": op, "attrs": attrs, "input_min": lo, "input_max": hi,
                    "input": inp, "dtype": dtype})
    return out


def fake_quant_cases():
    rng = np.random.RandomState(12)
    x = rng.uniform(-3, 5, (3, 4)).round(3).tolist()
    g = rng.uniform(-1, 1, (3, 4)).round(3).tolist()
    return [{"input": x, "gradients": g, "min": lo, "max": hi, "attrs": attrs}
            for lo, hi, attrs in [(-1.0, 2.0, {}), (-2.5, 4.0, {"num_bits": 4}),
                                  (0.3, 3.0, {"narrow_range": True}),
                                  (-6.0, -1.0, {"num_bits": 3}),
                                  (-0.1, 0.2, {"num_bits": 16})]]


def main():
    import tensorflow as tf
    ref = {"tensorflow": tf.__version__, "cases": []}
    for case in cases():
        dt = getattr(tf, case["dtype"])
        x = tf.constant(case["input"], dt)
        lo, hi = tf.constant(case["input_min"], dt), tf.constant(case["input_max"], dt)
        attrs = dict(case["attrs"])
        if case["op"] == "V3":
            bits = attrs.pop("num_bits")
            y = tf.raw_ops.QuantizeAndDequantizeV3(input=x, input_min=lo, input_max=hi,
                                                   num_bits=bits, **attrs)
        else:
            y = tf.raw_ops.QuantizeAndDequantizeV2(input=x, input_min=lo, input_max=hi,
                                                   **attrs)
        ref["cases"].append(dict(case, expected=y.numpy().tolist()))
    ref["fake_quant"] = []
    for case in fake_quant_cases():
        args = dict(inputs=tf.constant(case["input"], tf.float32), min=case["min"],
                    max=case["max"], **case["attrs"])
        y = tf.raw_ops.FakeQuantWithMinMaxVars(**args)
        grads = tf.raw_ops.FakeQuantWithMinMaxVarsGradient(
            gradients=tf.constant(case["gradients"], tf.float32), **args)
        ref["fake_quant"].append(dict(case, expected=y.numpy().tolist(),
                                      expected_grads=[g.numpy().tolist() for g in grads]))
    if "--stdout" in sys.argv:
        print(json.dumps(ref))
    else:
        with open(OUT, "w") as f:
            json.dump(ref, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
