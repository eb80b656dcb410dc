"""What the benchmark scripts share: finding TensorFlow's python and running a script
under it, loading a TF1-style module, timing loops, the usual options and tables.

Standard library only: TensorFlow's python imports it too. A script run as
`python benchmarks/X.py` finds it, as its folder is first on sys.path.
"""
import argparse
import importlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from contextlib import contextmanager

TF1 = "tensorflow.compat.v1"
_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Where a TensorFlow virtual environment is looked for, relative to the repository: its
# own `.ci-tfenv` (what CI builds) and a `tfenv` beside the checkout.
_TFENV_CANDIDATES = (os.path.join(_REPO, ".ci-tfenv", "bin", "python"),
                     os.path.join(os.path.dirname(_REPO), "tfenv", "bin", "python"))


def tf_python(arg=None):
    """`arg` (--tf-python), else $TRAINFLOW_TF_PYTHON, else the python of a TensorFlow
    environment found relative to the repository (`.ci-tfenv/` in it, `../tfenv/` beside
    it), else None."""
    if arg:
        return arg
    env = os.environ.get("TRAINFLOW_TF_PYTHON")
    if env:
        return env
    return next((p for p in _TFENV_CANDIDATES if os.path.exists(p)), None)


def run_json(python, script, *args):
    """Runs `python script args...`; the JSON on the last line of what it prints."""
    return json.loads(run_capture(python, script, *args).strip().splitlines()[-1])


def run_capture(python, script, *args, timeout=None):
    """Runs `python script args...` and returns what it printed; raises
    subprocess.CalledProcessError (its stderr attached) when it fails."""
    out = subprocess.run([python, os.path.abspath(script), *args], capture_output=True,
                         text=True, check=True, timeout=timeout)
    return out.stdout


_BURN = ("import os, sys\ncpu = int(sys.argv[1])\n"
         "if cpu >= 0 and hasattr(os, 'sched_setaffinity'):\n    os.sched_setaffinity(0, {cpu})\n"
         "while True:\n    pass\n")


def last_cpu():
    """The highest processor this process may run on (-1 where that is not known)."""
    return max(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else -1


def load_average():
    """The 1-minute load average as text ('?' where the system does not report it)."""
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):
        return "?"


@contextmanager
def busy_neighbour(cpu=0):
    """A process burning CPU `cpu` (unpinned for -1) for as long as the block runs (a
    neighbour of the kind a shared machine has), ended when the block ends, also on Ctrl-C
    or SIGTERM."""
    proc = subprocess.Popen([sys.executable, "-c", _BURN, str(cpu)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    previous = signal.getsignal(signal.SIGTERM)

    def stop(signum, frame):
        raise SystemExit(128 + signum)
    if previous in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, stop)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()
        if previous in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, previous)


def load_tf1(module):
    """Imports a TF1-style module (TensorFlow's C++ logging quiet) in graph mode."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    tf = importlib.import_module(module)
    if hasattr(tf, "disable_v2_behavior"):
        tf.disable_v2_behavior()
    return tf


def session_kwargs(tf, threads, jit=False):
    """Session keywords giving TensorFlow `threads` intra/inter-op threads (none for 0), and
    with `jit` TF's auto-jit switch (`global_jit_level=ON_1`), which turns on trainflow's
    XLA backend."""
    if not (threads or jit) or not hasattr(tf, "ConfigProto"):
        return {}
    config = tf.ConfigProto()
    if threads:
        config.intra_op_parallelism_threads = threads
        config.inter_op_parallelism_threads = threads
    if jit:
        config.graph_options.optimizer_options.global_jit_level = tf.OptimizerOptions.ON_1
    return {"config": config}


def best_seconds(fn, calls, repeat, warmup):
    """Seconds per call of `fn`: the best of `repeat` loops of `calls` calls, after
    `warmup` calls."""
    for _ in range(warmup):
        fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best


def parser(doc, module_help, *int_options):
    """Options --module, then `int_options` ((flag, default) pairs), --tf-python, --json."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--module", help=module_help)
    for flag, default in int_options:
        ap.add_argument(flag, type=int, default=default)
    ap.add_argument("--tf-python", help="python with TensorFlow installed")
    ap.add_argument("--json", action="store_true", help="print the result as JSON only")
    return ap


def add_step_options(ap):
    """The options of a training-step script (mlp_step, rnn_step): --seconds, --threads,
    --jit, --rounds, --busy, --tf-python, --json."""
    ap.add_argument("--seconds", type=float, default=3.0, help="timed seconds a run")
    ap.add_argument("--threads", type=int, default=0,
                    help="intra/inter-op threads (0: each library's default)")
    ap.add_argument("--jit", action="store_true", help="TF's auto-jit switch (XLA)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--busy", action="store_true",
                    help="run beside a process spinning on one core")
    ap.add_argument("--tf-python", help="python with TensorFlow installed")
    ap.add_argument("--json", action="store_true", help="print the result as JSON only")


def measure_modules(args, script, measure, *tf_args):
    """{name: figures}: `args.module` alone; else trainflow.compat.v1 here ("trainflow") and,
    where TensorFlow's python is found, tensorflow.compat.v1 in it ("tensorflow"), run as
    `script --module tensorflow.compat.v1 tf_args... --json`."""
    if args.module:
        return {args.module: measure(args.module)}
    results = {"trainflow": measure("trainflow.compat.v1")}
    python = tf_python(args.tf_python)
    if python:
        results["tensorflow"] = run_json(python, script, "--module", TF1, *tf_args,
                                         "--json")[TF1]
    return results


def backend_main(script, doc, run_backend, report):
    """main() of a script that measures one backend a process: --n, --tf-python (default
    as `tf_python()` finds it) and the hidden --backend, which the TensorFlow run gets."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--tf-python", default=tf_python())
    ap.add_argument("--backend", choices=["trainflow", "tf"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.backend:
        print(json.dumps(run_backend(args.backend, args.n)))
        return 0
    rows = {"trainflow": run_backend("trainflow", args.n)}
    if args.tf_python:
        rows["tensorflow"] = run_json(args.tf_python, script, "--backend", "tf",
                                      "--n", str(args.n))
    report(args.n, rows)
    return 0


def print_table(columns, rows):
    """A header line and one line a row; `columns` are (title, format spec) pairs, and a
    title takes its spec's alignment and width."""
    print("".join(format(title, re.match(r"[<>^]?\d*", spec).group())
                  for title, spec in columns))
    for row in rows:
        print("".join(format(value, spec) for value, (_, spec) in zip(row, columns)))


def print_ratio(tensorflow, trainflow):
    """The line `ratio tensorflow / trainflow: N.Nx`."""
    print(f"ratio tensorflow / trainflow: {tensorflow / trainflow:.1f}x")


def print_target(value, limit, label):
    """The line saying whether trainflow's `value` is under the target `limit`."""
    print(f"target trainflow < {label}: {'met' if value < limit else 'MISSED'}")
