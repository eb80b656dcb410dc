"""Writes sdca_reference.json: small SDCA problems and TensorFlow 2.21's outputs for
SdcaOptimizer / SdcaOptimizerV2 (example state data, weight deltas) and SdcaFprint.
Run with a TensorFlow python:

    /path/to/tf/python tests/ops/state/data/gen_sdca_reference.py [--stdout]

With --stdout the JSON is printed instead of written (the live interop test reads it).
TF visits examples in a random order, so every multi-example case touches disjoint
weights (sparse features only) or holds one example, and only one-example cases ask
for adaptive sampling: then the outputs do not depend on the order.
Not a test; the tests read the JSON it wrote.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sdca_reference.json")
LOSSES = ["logistic_loss", "squared_loss", "hinge_loss", "smooth_hinge_loss", "poisson_loss"]


def _label(loss, rng):
    if loss == "squared_loss":
        return float(np.float32(rng.uniform(-2, 2)))
    if loss == "poisson_loss":
        return float(rng.integers(0, 4))
    return float(rng.integers(0, 2))


def _one_example_case(loss, op, adaptive, seed):
    """One example with two dense groups and two sparse groups (one with values)."""
    rng = np.random.default_rng(seed)
    f32 = lambda *s: rng.uniform(-1, 1, size=s).astype(np.float32).tolist()  # noqa: E731
    return {
        "name": f"one/{loss}/{op}/{int(adaptive)}", "op": op, "loss_type": loss,
        "adaptive": adaptive, "l1": 0.05, "l2": 0.7, "num_loss_partitions": 1 + seed % 2,
        "sparse": [
            {"example_indices": [0, 0, 0], "feature_indices": [4, 1, 9],
             "values": f32(3), "indices": [1, 4, 6, 9], "weights": f32(4)},
            {"example_indices": [0, 0], "feature_indices": [2, 0], "values": None,
             "indices": [0, 1, 2], "weights": f32(3)},
        ],
        "dense": [{"features": f32(1, 3), "weights": f32(3)},
                  {"features": f32(1, 2), "weights": f32(2, 1)}],
        "example_weights": [1.5], "example_labels": [_label(loss, rng)],
        "state": [[float(np.float32(0.1 if loss != "poisson_loss" else -0.2)), 0, 0, 1]],
    }


def _disjoint_case(loss, op, seed):
    """Four examples whose sparse features touch disjoint weights (order-independent)."""
    rng = np.random.default_rng(seed)
    f32 = lambda *s: rng.uniform(-1, 1, size=s).astype(np.float32).tolist()  # noqa: E731
    labels = [_label(loss, rng) for _ in range(4)]
    state = [[0.0, 0.0, 0.0, 0.0] for _ in range(4)]
    return {
        "name": f"disjoint/{loss}/{op}", "op": op, "loss_type": loss, "adaptive": False,
        "l1": 0.3, "l2": 1.3, "num_loss_partitions": 1,
        "sparse": [
            # examples 0, 1, 3 (2 has none), ids 10+ never shared between examples
            {"example_indices": [0, 0, 1, 3, 3], "feature_indices": [10, 11, 12, 13, 14],
             "values": f32(5), "indices": [14, 13, 12, 11, 10, 15],
             "weights": f32(6)},
            {"example_indices": [0, 1, 2, 2], "feature_indices": [0, 1, 2, 3],
             "values": None, "indices": [0, 1, 2, 3], "weights": f32(4)},
        ],
        "dense": [], "example_weights": [1.0, 0.5, 2.0, 1.25], "example_labels": labels,
        "state": state,
    }


def cases():
    out = []
    for i, loss in enumerate(LOSSES):
        out.append(_one_example_case(loss, "SdcaOptimizerV2", True, i))
        out.append(_one_example_case(loss, "SdcaOptimizer", False, i + 10))
        out.append(_disjoint_case(loss, "SdcaOptimizerV2", i + 20))
    return out


FPRINT_INPUTS = ["", "a", "abc", "example_17", "\u00e9t\u00e9 \u2603", "x" * 100,
                 "the quick brown fox jumps over the lazy dog" * 3]


def run_case(tf, case):
    sp, dn = case["sparse"], case["dense"]
    kwargs = dict(
        sparse_example_indices=[np.int64(s["example_indices"]) for s in sp],
        sparse_feature_indices=[np.int64(s["feature_indices"]) for s in sp],
        sparse_feature_values=[np.float32(s["values"]) for s in sp if s["values"] is not None],
        dense_features=[np.float32(d["features"]) for d in dn],
        example_weights=np.float32(case["example_weights"]),
        example_labels=np.float32(case["example_labels"]),
        sparse_indices=[np.int64(s["indices"]) for s in sp],
        sparse_weights=[np.float32(s["weights"]) for s in sp],
        dense_weights=[np.float32(d["weights"]) for d in dn],
        example_state_data=np.float32(case["state"]), loss_type=case["loss_type"],
        l1=case["l1"], l2=case["l2"], num_loss_partitions=case["num_loss_partitions"],
        num_inner_iterations=1)
    if case["op"] == "SdcaOptimizer":
        state, dsp, ddn = tf.raw_ops.SdcaOptimizer(adaptative=case["adaptive"], **kwargs)
    else:
        state, dsp, ddn = tf.raw_ops.SdcaOptimizerV2(adaptive=case["adaptive"], **kwargs)
    return {"state": state.numpy().tolist(), "delta_sparse": [d.numpy().tolist() for d in dsp],
            "delta_dense": [d.numpy().tolist() for d in ddn]}


def main():
    import tensorflow as tf
    ref = {"tensorflow": tf.__version__, "cases": []}
    for case in cases():
        case = dict(case, expected=run_case(tf, case))
        ref["cases"].append(case)
    fp = tf.raw_ops.SdcaFprint(input=tf.constant(FPRINT_INPUTS)).numpy()
    ref["fprint"] = {"inputs": FPRINT_INPUTS, "expected": fp.tolist()}
    text = json.dumps(ref, indent=1)
    if "--stdout" in sys.argv:
        print(json.dumps(ref))
    else:
        with open(OUT, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
