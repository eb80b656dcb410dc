"""Optimizer update throughput: one dense update of 10M float32 parameters, per optimizer.

  python benchmarks/optimizer_update.py                   # trainflow and TF, alternating
  python benchmarks/optimizer_update.py --module trainflow.compat.v1
  /path/to/tf/python benchmarks/optimizer_update.py --module tensorflow.compat.v1

Each optimizer's `apply_gradients` op runs on a constant gradient; the figure is updates
per second (the best of --repeat loops of --calls updates). Without --module, --rounds
rounds alternate a trainflow process and a TensorFlow process (under --tf-python), and
the table keeps each side's best round. Target: trainflow >= TF for every optimizer.
"""
import json
import sys

import numpy as np

from _harness import TF1, best_seconds, load_tf1, parser, print_table, run_json, tf_python

OPTIMIZERS = [
    ("GradientDescent", "GradientDescentOptimizer", {"learning_rate": 0.01}),
    ("Momentum", "MomentumOptimizer", {"learning_rate": 0.01, "momentum": 0.9}),
    ("Nesterov", "MomentumOptimizer", {"learning_rate": 0.01, "momentum": 0.9,
                                       "use_nesterov": True}),
    ("Adagrad", "AdagradOptimizer", {"learning_rate": 0.01}),
    ("AdagradDA", "AdagradDAOptimizer", {"learning_rate": 0.01, "global_step": None}),
    ("Adadelta", "AdadeltaOptimizer", {"learning_rate": 1.0}),
    ("Ftrl", "FtrlOptimizer", {"learning_rate": 0.01}),
    ("FtrlV2", "FtrlOptimizer", {"learning_rate": 0.01,
                                 "l2_shrinkage_regularization_strength": 0.01}),
    ("ProximalGD", "ProximalGradientDescentOptimizer",
     {"learning_rate": 0.01, "l1_regularization_strength": 0.01}),
    ("ProximalAdagrad", "ProximalAdagradOptimizer",
     {"learning_rate": 0.01, "l1_regularization_strength": 0.01}),
    ("RMSProp", "RMSPropOptimizer", {"learning_rate": 0.01, "momentum": 0.9}),
    ("CenteredRMSProp", "RMSPropOptimizer", {"learning_rate": 0.01, "centered": True}),
    ("Adam", "AdamOptimizer", {"learning_rate": 0.01}),
]


def measure(module, size, calls, repeat):
    """{optimizer label: updates/s} for the TF1 API in `module`."""
    tf = load_tf1(module)
    rates = {}
    grad_value = np.full(size, 0.01, np.float32)
    for label, cls_name, kwargs in OPTIMIZERS:
        g = tf.Graph()
        with g.as_default():
            var = tf.Variable(np.ones(size, np.float32))
            grad = tf.constant(grad_value)
            step = tf.train.get_or_create_global_step()
            args = {k: (step if k == "global_step" else v) for k, v in kwargs.items()}
            update = getattr(tf.train, cls_name)(**args).apply_gradients([(grad, var)])
            init = tf.global_variables_initializer()
        with tf.Session(graph=g) as sess:
            sess.run(init)
            seconds = best_seconds(lambda: sess.run(update),  # noqa: B023 - timed right here
                                   calls, repeat, warmup=2)
        rates[label] = 1.0 / seconds
    return rates


def main(argv=None):
    ap = parser(__doc__, "TF1-style module (default: both, alternating)",
                ("--size", 10_000_000), ("--calls", 5), ("--repeat", 3), ("--rounds", 3))
    args = ap.parse_args(argv)
    if args.module:
        result = {args.module: measure(args.module, args.size, args.calls, args.repeat)}
        print(json.dumps(result) if args.json else result)
        return 0
    sides = {"trainflow": (sys.executable, "trainflow.compat.v1")}
    python = tf_python(args.tf_python)
    if python:
        sides["tensorflow"] = (python, TF1)
    best = {side: {} for side in sides}
    options = ["--size", str(args.size), "--calls", str(args.calls), "--repeat",
               str(args.repeat), "--json"]
    for _ in range(args.rounds):
        for side, (exe, module) in sides.items():
            rates = run_json(exe, __file__, "--module", module, *options)[module]
            for label, rate in rates.items():
                best[side][label] = max(best[side].get(label, 0.0), rate)
    if args.json:
        print(json.dumps(best))
        return 0
    print(f"Dense update of {args.size:,} float32 parameters, updates/s "
          f"(best of {args.rounds} alternating rounds)")
    columns = [("optimizer", "<18"), ("trainflow", ">11.1f")]
    if "tensorflow" in best:
        columns += [("tensorflow", ">12.1f"), ("tf/trainflow", ">14.2f")]
    rows = []
    for label, _, _ in OPTIMIZERS:
        row = [label, best["trainflow"][label]]
        if "tensorflow" in best:
            row += [best["tensorflow"][label], best["tensorflow"][label] / row[1]]
        rows.append(row)
    print_table(columns, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
