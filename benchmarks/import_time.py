"""Import time of trainflow (or TensorFlow) over NumPy's, in fresh processes.

Each sample is a new interpreter that imports numpy, then the module; the figure is the
time of the second import alone (the median over --repeat processes, after one warm-up
process that fills the bytecode caches, as an installed package has them).

  python benchmarks/import_time.py                       # trainflow, then TF if found
  python benchmarks/import_time.py --module trainflow
  /path/to/tf/python benchmarks/import_time.py --module tensorflow.compat.v1

TensorFlow runs under --tf-python (default: $TRAINFLOW_TF_PYTHON, else
/work/tfenv/bin/python when present). Target: trainflow < 0.25 s over numpy.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

TARGET_S = 0.25
_CHILD = """
import importlib, json, time
t0 = time.perf_counter()
import numpy
t1 = time.perf_counter()
importlib.import_module({module!r})
t2 = time.perf_counter()
print(json.dumps({{"numpy": t1 - t0, "module": t2 - t1}}))
"""


def measure(module, repeat, python=sys.executable):
    """Median seconds of `import module` after `import numpy`, in fresh processes."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # installed packages have .pyc caches
    samples = []
    for i in range(repeat + 1):
        out = subprocess.run([python, "-c", _CHILD.format(module=module)], env=env,
                             capture_output=True, text=True, check=True)
        if i:  # the first process only warms the caches
            samples.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {"module_s": statistics.median(s["module"] for s in samples),
            "numpy_s": statistics.median(s["numpy"] for s in samples), "repeat": repeat}


def _tf_python(arg):
    if arg:
        return arg
    env = os.environ.get("TRAINFLOW_TF_PYTHON")
    if env:
        return env
    return "/work/tfenv/bin/python" if os.path.exists("/work/tfenv/bin/python") else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--module", help="module to import (default: trainflow, then "
                                     "tensorflow.compat.v1 under --tf-python)")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--tf-python", help="python with TensorFlow installed")
    ap.add_argument("--json", action="store_true", help="print the result as JSON only")
    args = ap.parse_args(argv)
    if args.module:
        results = {args.module: measure(args.module, args.repeat)}
    else:
        results = {"trainflow": measure("trainflow", args.repeat)}
        tf_python = _tf_python(args.tf_python)
        if tf_python:
            results["tensorflow.compat.v1"] = measure("tensorflow.compat.v1",
                                                      max(3, args.repeat // 2), tf_python)
    if args.json:
        print(json.dumps(results))
        return 0
    print(f"import time over numpy (median of fresh processes; numpy itself ~"
          f"{next(iter(results.values()))['numpy_s']:.3f} s)")
    print(f"{'module':<24}{'seconds':>10}")
    for name, r in results.items():
        print(f"{name:<24}{r['module_s']:>10.3f}")
    if "trainflow" in results and "tensorflow.compat.v1" in results:
        ratio = results["tensorflow.compat.v1"]["module_s"] / results["trainflow"]["module_s"]
        print(f"ratio tensorflow / trainflow: {ratio:.1f}x")
    if "trainflow" in results:
        ok = results["trainflow"]["module_s"] < TARGET_S
        print(f"target trainflow < {TARGET_S} s: {'met' if ok else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
