"""Per-op cost of the executor: one Session.run of 1000 chained elementwise ops on a
4-element float32 tensor (alternating tf.multiply and tf.add; a chain of tf.identity
where the math ops are missing), reported in microseconds per op.

  python benchmarks/many_small_ops.py                    # trainflow, then TF if found
  python benchmarks/many_small_ops.py --module trainflow.compat.v1
  /path/to/tf/python benchmarks/many_small_ops.py --module tensorflow.compat.v1
  python benchmarks/many_small_ops.py --module jax       # the chain as one bare jax.jit call

Each figure is the best of --repeat timed loops of --runs runs. TensorFlow runs in a
subprocess under --tf-python (default: $TRAINFLOW_TF_PYTHON, else a TF environment found
beside the repository). Target: trainflow < 2 us per op.
"""
import json
import sys

import numpy as np

from _harness import (best_seconds, load_tf1, measure_modules, parser, print_ratio,
                      print_table, print_target, session_kwargs)

TARGET_US = 2.0


def _chain(tf, x, n_ops):
    if hasattr(tf, "add") and hasattr(tf, "multiply"):
        for i in range(n_ops):
            x = tf.multiply(x, 1.0001) if i % 2 == 0 else tf.add(x, 0.5)
        return x, "multiply/add"
    for _ in range(n_ops):
        x = tf.identity(x)
    return x, "identity"


def measure_jax(n_ops, runs, repeat):
    """The same chain written as one function under `jax.jit`, called with the NumPy
    input and its result read back as NumPy: the floor of trainflow's XLA step (jax's
    dispatch and the transfer, no Session.run)."""
    import jax
    jax.config.update("jax_cpu_enable_async_dispatch", False)  # as trainflow runs jax

    def chain(x):
        for i in range(n_ops):
            x = x * np.float32(1.0001) if i % 2 == 0 else x + np.float32(0.5)
        return x
    fn = jax.jit(chain)
    x = np.ones(4, np.float32)
    result = np.asarray(fn(x))
    best = best_seconds(lambda: np.asarray(fn(x)), runs, repeat, warmup=4)
    return {"us_per_op": best * 1e6 / n_ops, "ops": n_ops, "kind": "multiply/add",
            "result": float(result[0])}


def measure(module, n_ops, runs, repeat, jit=False):
    """{"us_per_op", "ops", "kind", "result"} for the TF1 API in `module` (or the
    hand-written jax function for `jax`)."""
    if module == "jax":
        return measure_jax(n_ops, runs, repeat)
    tf = load_tf1(module)
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.float32, [4])
        out, kind = _chain(tf, p, n_ops)
    sess = tf.Session(graph=g, **session_kwargs(tf, 0, jit))
    feed = {p: np.ones(4, np.float32)}
    result = sess.run(out, feed)
    best = best_seconds(lambda: sess.run(out, feed), runs, repeat, warmup=4)
    sess.close()
    return {"us_per_op": best * 1e6 / n_ops, "ops": n_ops, "kind": kind,
            "result": float(result[0])}


def main(argv=None):
    ap = parser(__doc__, "TF1-style module (default: trainflow.compat.v1, then "
                         "tensorflow.compat.v1 under --tf-python)",
                ("--ops", 1000), ("--runs", 50), ("--repeat", 5))
    ap.add_argument("--jit", action="store_true",
                    help="TF's auto-jit switch for trainflow (XLA); TensorFlow runs without")
    args = ap.parse_args(argv)
    results = measure_modules(
        args, __file__, lambda module: measure(module, args.ops, args.runs, args.repeat,
                                               args.jit and module.startswith("trainflow")),
        "--ops", str(args.ops), "--runs", str(args.runs), "--repeat", str(args.repeat))
    if args.json:
        print(json.dumps(results))
        return 0
    print(f"{args.ops} chained small elementwise ops per Session.run, microseconds per op")
    print_table([("module", "<22"), ("us/op", ">8.2f"), ("  ops", "")],
                [(name, r["us_per_op"], "  " + r["kind"]) for name, r in results.items()])
    if "trainflow" in results and "tensorflow" in results:
        print_ratio(results["tensorflow"]["us_per_op"], results["trainflow"]["us_per_op"])
        if results["trainflow"]["kind"] == results["tensorflow"]["kind"]:
            np.testing.assert_allclose(results["trainflow"]["result"],
                                       results["tensorflow"]["result"], rtol=1e-4)
    if "trainflow" in results:
        print_target(results["trainflow"]["us_per_op"], TARGET_US, f"{TARGET_US} us/op")
    return 0


if __name__ == "__main__":
    sys.exit(main())
