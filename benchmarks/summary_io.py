"""Event file throughput: 100k scalar summaries through FileWriter, trainflow vs TensorFlow.

Each event is `FileWriter.add_summary(Summary(value=[simple_value]), step)`;
the time includes the final close() (everything on disk). TensorFlow runs in
its own interpreter, named by --tf-python, else $TRAINFLOW_TF_PYTHON, else the TF
venv the benchmarks README names.

    python benchmarks/summary_io.py [--n 100000] [--tf-python /path/to/python]
"""
import os
import sys
import tempfile
import time

from _harness import backend_main, print_table


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


def report(n, rows):
    print(f"{n} scalar events, events/s (best of three)")
    print_table([("backend", "<12"), ("write (FileWriter)", ">20,.0f"),
                 ("read (summary_iterator)", ">26,.0f")],
                [(backend, r["write_eps"], r["read_eps"]) for backend, r in rows.items()])


def main():
    return backend_main(__file__, __doc__, run_backend, report)


if __name__ == "__main__":
    sys.exit(main())
