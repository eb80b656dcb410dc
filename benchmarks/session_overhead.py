"""Session.run overhead: microseconds per call for a constant fetch, and for one small
fed placeholder through an Identity.

  python benchmarks/session_overhead.py                  # trainflow, then TF if found
  python benchmarks/session_overhead.py --module trainflow.compat.v1
  /path/to/tf/python benchmarks/session_overhead.py --module tensorflow.compat.v1

Each figure is the best of --repeat timed loops of --calls calls. TensorFlow runs in a
subprocess under --tf-python (default: $TRAINFLOW_TF_PYTHON, else /work/tfenv/bin/python
when present). Target: trainflow < 35 us per call.
"""
import argparse
import importlib
import json
import os
import subprocess
import sys
import time

import numpy as np

TARGET_US = 35.0


def _best_us(fn, calls, repeat):
    for _ in range(min(calls, 1000)):
        fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


def measure(module, calls, repeat):
    """{"constant_us", "feed_us", "make_callable_us"} for the TF1 API in `module`."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    tf = importlib.import_module(module)
    if hasattr(tf, "disable_v2_behavior"):
        tf.disable_v2_behavior()
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
        p = tf.placeholder(tf.float32, [4])
        out = tf.identity(p)
    sess = tf.Session(graph=g)
    feed = np.ones(4, np.float32)
    fn = sess.make_callable(out, [p])
    results = {
        "constant_us": _best_us(lambda: sess.run(c), calls, repeat),
        "feed_us": _best_us(lambda: sess.run(out, {p: feed}), calls, repeat),
        "make_callable_us": _best_us(lambda: fn(feed), calls, repeat),
    }
    sess.close()
    return results


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
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tf-python", help="python with TensorFlow installed")
    ap.add_argument("--json", action="store_true", help="print the result as JSON only")
    args = ap.parse_args(argv)
    if args.module:
        results = {args.module: measure(args.module, args.calls, args.repeat)}
    else:
        results = {"trainflow": measure("trainflow.compat.v1", args.calls, args.repeat)}
        tf_python = _tf_python(args.tf_python)
        if tf_python:
            out = subprocess.run(
                [tf_python, os.path.abspath(__file__), "--module", "tensorflow.compat.v1",
                 "--calls", str(max(1000, args.calls // 10)), "--repeat", str(args.repeat),
                 "--json"], capture_output=True, text=True, check=True)
            tf_res = json.loads(out.stdout.strip().splitlines()[-1])
            results["tensorflow"] = tf_res["tensorflow.compat.v1"]
    if args.json:
        print(json.dumps(results))
        return 0
    print("Session.run overhead, microseconds per call (best loop)")
    print(f"{'module':<22}{'constant':>10}{'1 feed':>10}{'callable':>10}")
    for name, r in results.items():
        print(f"{name:<22}{r['constant_us']:>10.1f}{r['feed_us']:>10.1f}"
              f"{r['make_callable_us']:>10.1f}")
    if "trainflow" in results and "tensorflow" in results:
        t, f = results["tensorflow"], results["trainflow"]
        print(f"ratio tensorflow / trainflow: constant {t['constant_us'] / f['constant_us']:.1f}x,"
              f" 1 feed {t['feed_us'] / f['feed_us']:.1f}x")
    if "trainflow" in results:
        worst = max(results["trainflow"]["constant_us"], results["trainflow"]["feed_us"])
        print(f"target trainflow < {TARGET_US:.0f} us: {'met' if worst < TARGET_US else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
