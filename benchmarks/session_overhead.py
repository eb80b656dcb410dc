"""Session.run overhead: microseconds per call for a constant fetch, and for one small
fed placeholder through an Identity.

  python benchmarks/session_overhead.py                  # trainflow, then TF if found
  python benchmarks/session_overhead.py --module trainflow.compat.v1
  /path/to/tf/python benchmarks/session_overhead.py --module tensorflow.compat.v1

Each figure is the best of --repeat timed loops of --calls calls. TensorFlow runs in a
subprocess under --tf-python (default: $TRAINFLOW_TF_PYTHON, else a TF environment found
beside the repository). Target: trainflow < 35 us per call.
"""
import json
import sys

import numpy as np

from _harness import (best_seconds, load_tf1, measure_modules, parser, print_table,
                      print_target)

TARGET_US = 35.0


def measure(module, calls, repeat):
    """{"constant_us", "feed_us", "make_callable_us"} for the TF1 API in `module`."""
    tf = load_tf1(module)
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1.0)
        p = tf.placeholder(tf.float32, [4])
        out = tf.identity(p)
    sess = tf.Session(graph=g)
    feed = np.ones(4, np.float32)
    fn = sess.make_callable(out, [p])

    def best_us(f):
        return best_seconds(f, calls, repeat, warmup=min(calls, 1000)) * 1e6

    results = {
        "constant_us": best_us(lambda: sess.run(c)),
        "feed_us": best_us(lambda: sess.run(out, {p: feed})),
        "make_callable_us": best_us(lambda: fn(feed)),
    }
    sess.close()
    return results


def main(argv=None):
    ap = parser(__doc__, "TF1-style module (default: trainflow.compat.v1, then "
                         "tensorflow.compat.v1 under --tf-python)",
                ("--calls", 20000), ("--repeat", 5))
    args = ap.parse_args(argv)
    results = measure_modules(
        args, __file__, lambda module: measure(module, args.calls, args.repeat),
        "--calls", str(max(1000, args.calls // 10)), "--repeat", str(args.repeat))
    if args.json:
        print(json.dumps(results))
        return 0
    print("Session.run overhead, microseconds per call (best loop)")
    print_table([("module", "<22"), ("constant", ">10.1f"), ("1 feed", ">10.1f"),
                 ("callable", ">10.1f")],
                [(name, r["constant_us"], r["feed_us"], r["make_callable_us"])
                 for name, r in results.items()])
    if "trainflow" in results and "tensorflow" in results:
        t, f = results["tensorflow"], results["trainflow"]
        print(f"ratio tensorflow / trainflow: constant {t['constant_us'] / f['constant_us']:.1f}x,"
              f" 1 feed {t['feed_us'] / f['feed_us']:.1f}x")
    if "trainflow" in results:
        worst = max(results["trainflow"]["constant_us"], results["trainflow"]["feed_us"])
        print_target(worst, TARGET_US, f"{TARGET_US:.0f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
