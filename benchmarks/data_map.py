"""tf.data parallel map throughput: trainflow vs TensorFlow.

Dataset.range(n) -> map(f, num_parallel_calls=2) -> batch(64) -> prefetch(1), read to
its end through a one-shot iterator; f builds a [64, 64] matrix from the element and
multiplies it by a constant one (NumPy work that releases the GIL). Prints elements/s
consumed (best of --repeat runs). Without --module both trainflow and (where its python is
found, see _harness.tf_python) TensorFlow run.

    python benchmarks/data_map.py [--n 20000] [--calls 2] [--module tensorflow.compat.v1]
"""
import sys
import time

import numpy as np
from _harness import load_tf1, measure_modules, parser, print_ratio, print_table

BATCH = 64
SIZE = 64


def _run_once(tf, n, calls):
    with tf.Graph().as_default():
        weights = tf.constant(np.random.RandomState(0).rand(SIZE, SIZE).astype(np.float32))

        def f(i):
            m = tf.fill([SIZE, SIZE], tf.cast(i, tf.float32) * 1e-3)
            return tf.reduce_sum(tf.matmul(tf.matmul(m, weights), weights))

        dataset = tf.data.Dataset.range(n).map(f, num_parallel_calls=calls)
        dataset = dataset.batch(BATCH).prefetch(1)
        get_next = tf.data.make_one_shot_iterator(dataset).get_next()
        seen = 0
        with tf.Session() as sess:
            sess.run(get_next)  # the pipeline started
            seen = BATCH
            start = time.perf_counter()
            try:
                while True:
                    seen += len(sess.run(get_next))
            except tf.errors.OutOfRangeError:
                pass
            elapsed = time.perf_counter() - start
    assert seen == n, (seen, n)
    return (n - BATCH) / elapsed


def measure(module, n=20_000, repeat=2, calls=2):
    tf = load_tf1(module)
    best = max(_run_once(tf, n, calls) for _ in range(repeat))
    return {"elements_per_s": best, "elements": n}


def main():
    ap = parser(__doc__, "measure only this TF1-style module", ("--n", 20_000),
                ("--repeat", 2), ("--calls", 2))
    args = ap.parse_args()
    results = measure_modules(
        args, __file__, lambda m: measure(m, args.n, args.repeat, args.calls),
        "--n", str(args.n), "--repeat", str(args.repeat), "--calls", str(args.calls))
    if args.json:
        import json
        print(json.dumps(results))
        return 0
    print(f"range({args.n}).map(matmul [{SIZE}, {SIZE}] x2, num_parallel_calls={args.calls})"
          f".batch({BATCH}).prefetch(1)")
    print_table([("backend", "<26"), ("elements/s", ">12,.0f")],
                [(name, r["elements_per_s"]) for name, r in results.items()])
    if "tensorflow" in results:
        print_ratio(results["tensorflow"]["elements_per_s"],
                    results["trainflow"]["elements_per_s"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
