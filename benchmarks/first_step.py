"""A training run as a user has it, from a cold process: import, first step, steps/s.

    python benchmarks/first_step.py                 # trainflow (NumPy, auto XLA) and TF
    python benchmarks/first_step.py --steps 600 --rounds 5
    python benchmarks/first_step.py --side numpy    # one side here, printed as JSON

Each sample is a fresh interpreter (bytecode caches on, as an installed package has them)
that imports numpy, then the TF1 module, builds the big MLP (784-512-512-10, Adam,
batch 128, fed from NumPy), initializes it and runs --steps training steps. Figures:
the import (over numpy's), the first step, the whole run (build to last step) and the
steps/s of the run's last third, and how many programs the run compiled (new entries in
trainflow's XLA cache folder: after the warm-up run, 0). Sides: trainflow with XLA off
(`numpy`), trainflow with TRAINFLOW_XLA_AUTO=1 (`auto`: background compile, per-segment
choice) and TensorFlow 2.21 graph mode (`tensorflow`, under --tf-python), alternating,
--rounds rounds, best of each.

Targets (issue 31), ratios against TensorFlow in the same rounds: auto's steps/s >= 1.3x
TF's, its first step >= 2x faster than TF's; trainflow's import <= 0.25 s over numpy's.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from _harness import TF1, load_average, tf_python

FIRST_STEP_RATIO = 2.0
STEPS_RATIO = 1.3
IMPORT_OVER_NUMPY_S = 0.25


def run(module, steps):
    """The figures of one cold run of `module` (in this process, just started)."""
    t0 = time.perf_counter()
    import numpy as np
    t1 = time.perf_counter()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    tf = __import__(module, fromlist=["_"])
    t2 = time.perf_counter()
    if hasattr(tf, "disable_v2_behavior"):
        tf.disable_v2_behavior()
    cache = _cache_entries()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from mlp_step import MODELS, build
    x, y, loss, train = build(tf, MODELS["big"], optimizer="adam")
    rng = np.random.RandomState(1)
    feed = {x: rng.rand(128, 784).astype(np.float32), y: rng.randint(0, 10, 128)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        t3 = time.perf_counter()
        sess.run(train, feed)
        t4 = time.perf_counter()
        ends = []
        for _ in range(steps - 1):
            sess.run(train, feed)
            ends.append(time.perf_counter())
    tail = ends[-max(2, len(ends) // 3):]
    return {"numpy_s": t1 - t0, "import_s": t2 - t1, "first_step_s": t4 - t3,
            "run_s": ends[-1] - t2, "steps_per_s": (len(tail) - 1) / (tail[-1] - tail[0]),
            "compiled": len(_cache_entries() - cache)}


def _cache_entries():
    """The programs in trainflow's XLA cache folder (each compile writes one)."""
    if "trainflow" not in sys.modules:
        return set()
    from trainflow._src.runtime import process_settings
    folder = process_settings.xla_cache_dir()
    return set(os.listdir(folder)) if folder and os.path.isdir(folder) else set()


def sample(side, steps, python):
    env = dict(os.environ, TRAINFLOW_XLA_AUTO="1" if side == "auto" else "0")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # installed packages have .pyc caches
    env.pop("TF_XLA_FLAGS", None)
    out = subprocess.run([python, os.path.abspath(__file__), "--side", side,
                          "--steps", str(steps)], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def best(a, b):
    if a is None:
        return b
    out = {k: max(a[k], b[k]) if k == "steps_per_s" else min(a[k], b[k]) for k in a}
    out["compiled"] = max(a["compiled"], b["compiled"])  # any compile is one too many
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--side", choices=["numpy", "auto", "tensorflow"],
                    help="run one side in this process and print its figures as JSON")
    ap.add_argument("--tf-python", help="python with TensorFlow installed")
    args = ap.parse_args(argv)
    if args.side:
        print(json.dumps(run(TF1 if args.side == "tensorflow" else "trainflow.compat.v1",
                             args.steps)))
        return 0
    sides = {"numpy": sys.executable, "auto": sys.executable}
    python = tf_python(args.tf_python)
    if python:
        sides["tensorflow"] = python
    for side, exe in sides.items():  # one warm-up run each: bytecode and XLA caches
        sample(side, args.steps, exe)
    results = dict.fromkeys(sides)
    before = load_average()
    for _ in range(args.rounds):
        for side, exe in sides.items():
            results[side] = best(results[side], sample(side, args.steps, exe))
    print(f"big MLP, Adam, b128, {args.steps} steps from a cold process; best of "
          f"{args.rounds} alternating rounds (load average {before} before, "
          f"{load_average()} after)")
    print(f"{'side':<12}{'import s':>10}{'first step s':>14}{'run s':>9}{'steps/s':>10}"
          f"{'compiled':>10}")
    for side, r in results.items():
        print(f"{side:<12}{r['import_s']:>10.3f}{r['first_step_s']:>14.3f}{r['run_s']:>9.2f}"
              f"{r['steps_per_s']:>10.1f}{r['compiled']:>10}")
    auto, tf = results["auto"], results.get("tensorflow")
    print(f"target import <= {IMPORT_OVER_NUMPY_S} s over numpy: "
          f"{'met' if auto['import_s'] <= IMPORT_OVER_NUMPY_S else 'MISSED'}")
    if tf:
        first = tf["first_step_s"] / auto["first_step_s"]
        rate = auto["steps_per_s"] / tf["steps_per_s"]
        print(f"target first step >= {FIRST_STEP_RATIO}x faster than TF's: {first:.1f}x "
              f"{'met' if first >= FIRST_STEP_RATIO else 'MISSED'}")
        print(f"target steps/s >= {STEPS_RATIO}x TF's: {rate:.2f}x "
              f"{'met' if rate >= STEPS_RATIO else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
