"""Per-op cost of the executor: one Session.run of 1000 chained elementwise ops on a
4-element float32 tensor (alternating tf.multiply and tf.add; a chain of tf.identity
where the math ops are missing), reported in microseconds per op.

  python benchmarks/many_small_ops.py                    # trainflow, then TF if found
  python benchmarks/many_small_ops.py --module trainflow.compat.v1
  /path/to/tf/python benchmarks/many_small_ops.py --module tensorflow.compat.v1

Each figure is the best of --repeat timed loops of --runs runs. TensorFlow runs in a
subprocess under --tf-python (default: $TRAINFLOW_TF_PYTHON, else /work/tfenv/bin/python
when present). Target: trainflow < 2 us per op.
"""
import argparse
import importlib
import json
import os
import subprocess
import sys
import time

import numpy as np

TARGET_US = 2.0


def _chain(tf, x, n_ops):
    if hasattr(tf, "add") and hasattr(tf, "multiply"):
        for i in range(n_ops):
            x = tf.multiply(x, 1.0001) if i % 2 == 0 else tf.add(x, 0.5)
        return x, "multiply/add"
    for _ in range(n_ops):
        x = tf.identity(x)
    return x, "identity"


def measure(module, n_ops, runs, repeat):
    """{"us_per_op", "ops", "kind", "result"} for the TF1 API in `module`."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    tf = importlib.import_module(module)
    if hasattr(tf, "disable_v2_behavior"):
        tf.disable_v2_behavior()
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.float32, [4])
        out, kind = _chain(tf, p, n_ops)
    sess = tf.Session(graph=g)
    feed = {p: np.ones(4, np.float32)}
    for _ in range(5):
        result = sess.run(out, feed)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(runs):
            sess.run(out, feed)
        best = min(best, (time.perf_counter() - t0) / runs)
    sess.close()
    return {"us_per_op": best * 1e6 / n_ops, "ops": n_ops, "kind": kind,
            "result": float(result[0])}


def _tf_python(arg):
    if arg:
        return arg
    env = os.environ.get("TRAINFLOW_TF_PYTHON")
    if env:
        return env
    return "/work/tfenv/bin/python" if os.path.exists("/work/tfenv/bin/python") else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--module", help="TF1-style module (default: trainflow.compat.v1, then "
                                     "tensorflow.compat.v1 under --tf-python)")
    ap.add_argument("--ops", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tf-python", help="python with TensorFlow installed")
    ap.add_argument("--json", action="store_true", help="print the result as JSON only")
    args = ap.parse_args(argv)
    if args.module:
        results = {args.module: measure(args.module, args.ops, args.runs, args.repeat)}
    else:
        results = {"trainflow": measure("trainflow.compat.v1", args.ops, args.runs,
                                        args.repeat)}
        tf_python = _tf_python(args.tf_python)
        if tf_python:
            out = subprocess.run(
                [tf_python, os.path.abspath(__file__), "--module", "tensorflow.compat.v1",
                 "--ops", str(args.ops), "--runs", str(args.runs), "--repeat",
                 str(args.repeat), "--json"], capture_output=True, text=True, check=True)
            results["tensorflow"] = json.loads(
                out.stdout.strip().splitlines()[-1])["tensorflow.compat.v1"]
    if args.json:
        print(json.dumps(results))
        return 0
    print(f"{args.ops} chained small elementwise ops per Session.run, microseconds per op")
    print(f"{'module':<22}{'us/op':>8}  ops")
    for name, r in results.items():
        print(f"{name:<22}{r['us_per_op']:>8.2f}  {r['kind']}")
    if "trainflow" in results and "tensorflow" in results:
        ratio = results["tensorflow"]["us_per_op"] / results["trainflow"]["us_per_op"]
        print(f"ratio tensorflow / trainflow: {ratio:.1f}x")
        if results["trainflow"]["kind"] == results["tensorflow"]["kind"]:
            np.testing.assert_allclose(results["trainflow"]["result"],
                                       results["tensorflow"]["result"], rtol=1e-4)
    if "trainflow" in results:
        ok = results["trainflow"]["us_per_op"] < TARGET_US
        print(f"target trainflow < {TARGET_US} us/op: {'met' if ok else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
