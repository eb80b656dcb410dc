"""Import time of trainflow (or TensorFlow) over NumPy's, in fresh processes.

Each sample is a new interpreter that imports numpy, then the module; the figure is the
time of the second import alone (the median over --repeat processes, after one warm-up
process that fills the bytecode caches, as an installed package has them).

  python benchmarks/import_time.py                       # trainflow, then TF if found
  python benchmarks/import_time.py --module trainflow
  /path/to/tf/python benchmarks/import_time.py --module tensorflow.compat.v1

TensorFlow runs under --tf-python (default: $TRAINFLOW_TF_PYTHON, else
a TF environment found beside the repository). Target: trainflow < 0.25 s over numpy.
"""
import json
import os
import statistics
import subprocess
import sys

from _harness import TF1, parser, print_ratio, print_table, print_target, tf_python

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


def main(argv=None):
    ap = parser(__doc__, "module to import (default: trainflow, then "
                         "tensorflow.compat.v1 under --tf-python)", ("--repeat", 7))
    args = ap.parse_args(argv)
    if args.module:
        results = {args.module: measure(args.module, args.repeat)}
    else:
        results = {"trainflow": measure("trainflow", args.repeat)}
        python = tf_python(args.tf_python)
        if python:
            results[TF1] = measure(TF1, max(3, args.repeat // 2), python)
    if args.json:
        print(json.dumps(results))
        return 0
    print(f"import time over numpy (median of fresh processes; numpy itself ~"
          f"{next(iter(results.values()))['numpy_s']:.3f} s)")
    print_table([("module", "<24"), ("seconds", ">10.3f")],
                [(name, r["module_s"]) for name, r in results.items()])
    if "trainflow" in results and TF1 in results:
        print_ratio(results[TF1]["module_s"], results["trainflow"]["module_s"])
    if "trainflow" in results:
        print_target(results["trainflow"]["module_s"], TARGET_S, f"{TARGET_S} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
