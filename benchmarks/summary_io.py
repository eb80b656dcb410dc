"""Summary throughput, trainflow vs TensorFlow: event files and the graph path.

1. Event files: 100k scalar summaries through `FileWriter.add_summary` (the time
   includes the final close(), so everything is on disk), then read back with
   `summary_iterator`; events/s.
2. The graph path: a merged summary of 10 scalars and 2 histograms of 100k values
   each, fetched with `Session.run` and written with `FileWriter.add_summary` every
   step; steps/s (the time includes close()).

    python benchmarks/summary_io.py                   # trainflow, and TF if found
    python benchmarks/summary_io.py --module tensorflow.compat.v1   # the graph path
                                                      # only, run with TF's python

TensorFlow runs in its own interpreter, named by --tf-python, else
$TRAINFLOW_TF_PYTHON, else the TF venv the benchmarks README names.
"""
import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

from _harness import TF1, load_tf1, print_table, run_json, tf_python


def event_rates(backend, n):
    """Writes n scalar events with one backend; returns events/s (best of three)."""
    if backend == "tf":
        tf = load_tf1(TF1)
        FileWriter, Summary = tf.summary.FileWriter, tf.Summary
        iterator = tf.train.summary_iterator
    else:
        from trainflow._src.protos.summary_pb2 import Summary
        from trainflow._src.summary.summary_iterator import summary_iterator as iterator
        from trainflow._src.summary.writer import FileWriter
    best_write = best_read = 0.0
    for _ in range(3):
        with tempfile.TemporaryDirectory() as logdir:
            start = time.perf_counter()
            writer = FileWriter(logdir)
            for step in range(n):
                writer.add_summary(Summary(value=[Summary.Value(tag="loss",
                                                                simple_value=step * 0.5)]),
                                   step)
            writer.close()
            best_write = max(best_write, n / (time.perf_counter() - start))
            (name,) = os.listdir(logdir)
            start = time.perf_counter()
            count = sum(1 for e in iterator(os.path.join(logdir, name)) if e.HasField("summary"))
            best_read = max(best_read, n / (time.perf_counter() - start))
            assert count == n, count
    return {"write_eps": best_write, "read_eps": best_read}


def graph_rate(module, steps, size=100_000):
    """Steps/s of fetching and writing the merged summary, and the CPU time a step
    takes over all threads (ms; robust on a busy machine): best of three runs."""
    tf = load_tf1(module)
    graph = tf.Graph()
    rs = np.random.RandomState(0)
    with graph.as_default():
        step = tf.Variable(0.0, name="step")
        tick = tf.assign_add(step, 1.0)
        for i in range(10):
            tf.summary.scalar(f"scalar_{i}", step * float(i + 1))
        for i in range(2):
            weights = tf.Variable(rs.randn(size).astype(np.float32), name=f"w{i}")
            tf.summary.histogram(f"histogram_{i}", weights + step)
        merged = tf.summary.merge_all()
        init = tf.global_variables_initializer()
    best, best_cpu = 0.0, float("inf")
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        for _ in range(3):
            with tempfile.TemporaryDirectory() as logdir:
                writer = tf.summary.FileWriter(logdir)
                writer.add_summary(sess.run([merged, tick])[0], 0)  # warm up the plan
                start, cpu = time.perf_counter(), time.process_time()
                for n in range(1, steps + 1):
                    summary, _ = sess.run([merged, tick])
                    writer.add_summary(summary, n)
                writer.close()
                best = max(best, steps / (time.perf_counter() - start))
                best_cpu = min(best_cpu, (time.process_time() - cpu) / steps * 1e3)
    return {"steps_per_s": best, "cpu_ms_per_step": best_cpu}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--module", help="measure only the graph path with this TF1-style "
                                     "module (e.g. tensorflow.compat.v1)")
    ap.add_argument("--n", type=int, default=100_000, help="events of part 1")
    ap.add_argument("--steps", type=int, default=100, help="steps of part 2")
    ap.add_argument("--tf-python", default=tf_python())
    ap.add_argument("--json", action="store_true", help="print the result as JSON only")
    ap.add_argument("--backend", choices=["trainflow", "tf"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.backend:
        print(json.dumps(event_rates(args.backend, args.n)))
        return 0
    if args.module:
        rate = graph_rate(args.module, args.steps)
        print(json.dumps({args.module: rate}) if args.json else
              f"{args.module:24s} merged summary (10 scalars, 2 x 100k histograms) "
              f"{rate['steps_per_s']:8.1f} steps/s, {rate['cpu_ms_per_step']:6.2f} ms CPU "
              f"a step")
        return 0
    events = {"trainflow": event_rates("trainflow", args.n)}
    graph = {"trainflow": graph_rate("trainflow.compat.v1", args.steps)}
    if args.tf_python:
        script = os.path.abspath(__file__)
        events["tensorflow"] = run_json(args.tf_python, script, "--backend", "tf",
                                        "--n", str(args.n))
        graph["tensorflow"] = run_json(args.tf_python, script, "--module", TF1,
                                       "--steps", str(args.steps), "--json")[TF1]
    print(f"{args.n} scalar events, events/s (best of three)")
    print_table([("backend", "<12"), ("write (FileWriter)", ">20,.0f"),
                 ("read (summary_iterator)", ">26,.0f")],
                [(backend, r["write_eps"], r["read_eps"]) for backend, r in events.items()])
    print(f"\nmerged summary of 10 scalars and 2 histograms of 100k values, fetched and "
          f"written every step; steps/s (best of three x {args.steps} steps)")
    print_table([("backend", "<12"), ("steps/s", ">10,.1f"), ("CPU ms/step", ">14,.2f")],
                [(b, r["steps_per_s"], r["cpu_ms_per_step"]) for b, r in graph.items()])
    if "tensorflow" in graph:
        ours, theirs = graph["trainflow"]["steps_per_s"], graph["tensorflow"]["steps_per_s"]
        verdict = "met" if ours >= theirs else "MISSED"
        print(f"target trainflow >= tensorflow: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
