"""Training-step throughput of two MLPs written against the TF1 API.

    python benchmarks/mlp_step.py                          # trainflow and TF, alternating
    python benchmarks/mlp_step.py --busy                   # the same beside a CPU burner
    python benchmarks/mlp_step.py --module trainflow.compat.v1       # one module here
    /path/to/tf/python benchmarks/mlp_step.py --module tensorflow.compat.v1
    python benchmarks/mlp_step.py --module trainflow.compat.v1 --jit --optimizer adam \\
        --batch 128                                        # XLA backend

Models: 784-512-512-10 ("big") and 784-64-10 ("small"), ReLU, softmax cross-entropy,
plain gradient descent ("sgd") or `AdamOptimizer(1e-3).minimize`, fed from NumPy
through placeholders each step. A workload is MODEL-OPTIMIZER-bBATCH; the default ones
are big-adam-b128 and small-sgd-b32 (issue 15's targets); --model/--optimizer/--batch
pick others (as before: both models, sgd, batch 64 unless given). Prints steps/s.

Without --module, --rounds rounds alternate a trainflow process and a TensorFlow process
(under --tf-python), keeping each side's best round. --busy runs a process spinning on
one core for the whole measurement. --json prints {side or module: {workload: steps/s}}.
--jit turns on TF's auto-jit switch (trainflow's XLA backend).
"""
import argparse
import contextlib
import json
import sys
import time

import numpy as np

from _harness import (TF1, add_step_options, busy_neighbour, last_cpu, load_average, load_tf1,
                      run_json, session_kwargs, tf_python)

MODELS = {"small": [784, 64, 10], "big": [784, 512, 512, 10]}
DEFAULT_WORKLOADS = ["big-adam-b128", "small-sgd-b32"]


def build(tf, sizes, seed=0, optimizer="sgd"):
    x = tf.placeholder(tf.float32, [None, sizes[0]], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    h = x
    rng = np.random.RandomState(seed)
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        limit = np.sqrt(6.0 / (n_in + n_out))
        w = tf.Variable(rng.uniform(-limit, limit, (n_in, n_out)).astype(np.float32),
                        name=f"w{i}")
        b = tf.Variable(np.zeros(n_out, np.float32), name=f"b{i}")
        h = tf.matmul(h, w) + b
        if i < len(sizes) - 2:
            h = tf.nn.relu(h)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
    opt = tf.train.AdamOptimizer(0.001) if optimizer == "adam" else \
        tf.train.GradientDescentOptimizer(0.01)
    train = opt.minimize(loss)
    return x, y, loss, train


def bench(tf, sizes, batch, seconds, threads, jit=False, optimizer="sgd"):
    graph = tf.Graph()
    with graph.as_default():
        x, y, loss, train = build(tf, sizes, optimizer=optimizer)
        init = tf.global_variables_initializer()
    rng = np.random.RandomState(1)
    xb = rng.rand(batch, sizes[0]).astype(np.float32)
    yb = rng.randint(0, sizes[-1], batch).astype(np.int64)
    with tf.Session(graph=graph, **session_kwargs(tf, threads, jit)) as sess:
        sess.run(init)
        for _ in range(20):
            sess.run(train, {x: xb, y: yb})
        n = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            sess.run(train, {x: xb, y: yb})
            n += 1
        elapsed = time.perf_counter() - start
    return n / elapsed


def parse_workload(name):
    """(sizes, optimizer, batch) of a workload named MODEL-OPTIMIZER-bBATCH."""
    model, optimizer, batch = name.split("-")
    if model not in MODELS or optimizer not in ("sgd", "adam") or batch[:1] != "b":
        raise ValueError(f"not a workload: {name!r} (MODEL-OPTIMIZER-bBATCH, MODEL in "
                         f"{sorted(MODELS)}, OPTIMIZER sgd or adam)")
    return MODELS[model], optimizer, int(batch[1:])


def workloads(args):
    """The workload names the options ask for."""
    if args.workload:
        return args.workload
    if args.model is None and args.optimizer is None and args.batch is None:
        return list(DEFAULT_WORKLOADS)
    models = ["small", "big"] if args.model in (None, "all") else [args.model]
    return [f"{m}-{args.optimizer or 'sgd'}-b{args.batch or 64}" for m in models]


def measure(module, names, args):
    """{workload: steps/s} for the TF1 API in `module`."""
    tf = load_tf1(module)
    rates = {}
    for name in names:
        sizes, optimizer, batch = parse_workload(name)
        rates[name] = bench(tf, sizes, batch, args.seconds, args.threads, args.jit, optimizer)
    return rates


def alternate(args, names):
    """{side: {workload: best steps/s}} over --rounds rounds of trainflow, then TF."""
    sides = {"trainflow": (sys.executable, "trainflow.compat.v1")}
    python = tf_python(args.tf_python)
    if python:
        sides["tensorflow"] = (python, TF1)
    options = ["--seconds", str(args.seconds), "--threads", str(args.threads), "--json"]
    for name in names:
        options += ["--workload", name]
    best = {side: {} for side in sides}
    for _ in range(args.rounds):
        for side, (exe, module) in sides.items():
            for name, rate in run_json(exe, __file__, "--module", module, *options)[module].items():
                best[side][name] = max(best[side].get(name, 0.0), rate)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--module", help="TF1-style module to run here alone (default: "
                                     "trainflow and TensorFlow, alternating)")
    ap.add_argument("--workload", action="append",
                    help="MODEL-OPTIMIZER-bBATCH, e.g. big-adam-b128 (repeatable)")
    ap.add_argument("--model", choices=["small", "big", "all"])
    ap.add_argument("--optimizer", choices=["sgd", "adam"])
    ap.add_argument("--batch", type=int)
    add_step_options(ap)
    args = ap.parse_args(argv)
    names = workloads(args)
    for name in names:
        parse_workload(name)
    with busy_neighbour(last_cpu()) if args.busy else contextlib.nullcontext():
        if args.module:
            results = {args.module: measure(args.module, names, args)}
        else:
            results = alternate(args, names)
        load = load_average()
    if args.json:
        print(json.dumps(results))
        return 0
    if args.module:
        label = args.module + (" +jit" if args.jit else "")
        for name, rate in results[args.module].items():
            print(f"{label:30s} {name:20s} {rate:9.1f} steps/s")
        return 0
    print(f"MLP training steps/s, best of {args.rounds} alternating rounds"
          f"{' beside a CPU burner' if args.busy else ''} (load average {load})")
    header = f"{'workload':<18}{'trainflow':>11}"
    if "tensorflow" in results:
        header += f"{'tensorflow':>12}{'trainflow/tf':>14}"
    print(header)
    for name in names:
        line = f"{name:<18}{results['trainflow'][name]:>11.1f}"
        if "tensorflow" in results:
            tf_rate = results["tensorflow"][name]
            line += f"{tf_rate:>12.1f}{results['trainflow'][name] / tf_rate:>14.2f}"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
