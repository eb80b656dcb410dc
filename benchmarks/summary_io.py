"""Event file throughput: 100k scalar summaries through FileWriter, trainflow vs TensorFlow.

Each event is `FileWriter.add_summary(Summary(value=[simple_value]), step)`;
the time includes the final close() (everything on disk). TensorFlow runs in
its own interpreter, named by --tf-python or $TRAINFLOW_TF_PYTHON.

    python benchmarks/summary_io.py [--n 100000] [--tf-python /path/to/python]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def run_backend(backend, n):
    """Writes n scalar events with one backend; returns events/s (best of three)."""
    if backend == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf
        tf.disable_eager_execution()
        FileWriter, Summary = tf.summary.FileWriter, tf.Summary
        iterator = tf.train.summary_iterator
    else:
        from trainflow.protos.summary_pb2 import Summary
        from trainflow.summary.summary_iterator import summary_iterator as iterator
        from trainflow.summary.writer import FileWriter
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--tf-python", default=os.environ.get("TRAINFLOW_TF_PYTHON"))
    parser.add_argument("--backend", choices=["trainflow", "tf"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.backend:
        print(json.dumps(run_backend(args.backend, args.n)))
        return 0
    rows = {"trainflow": run_backend("trainflow", args.n)}
    if args.tf_python:
        out = subprocess.run([args.tf_python, __file__, "--backend", "tf", "--n", str(args.n)],
                             capture_output=True, text=True, check=True)
        rows["tensorflow"] = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"{args.n} scalar events, events/s (best of three)")
    print(f"{'backend':<12}{'write (FileWriter)':>20}{'read (summary_iterator)':>26}")
    for backend, r in rows.items():
        print(f"{backend:<12}{r['write_eps']:>20,.0f}{r['read_eps']:>26,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
