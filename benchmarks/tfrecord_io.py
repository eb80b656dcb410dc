"""TFRecord write/read throughput: trainflow vs TensorFlow.

Writes and reads 100k serialized tf.train.Example records (uncompressed and
GZIP) and prints records/s (best of three runs). TensorFlow runs in its own
interpreter, named by --tf-python, else $TRAINFLOW_TF_PYTHON, else the TF venv the
benchmarks README names; without one only trainflow is measured.

    python benchmarks/tfrecord_io.py [--n 100000] [--tf-python /path/to/python]
"""
import os
import sys
import tempfile
import time

from _harness import backend_main, print_table


def _examples(n, example_cls, feature_cls):
    """n serialized Examples of ~100 bytes, the same bytes for every backend."""
    out = []
    for i in range(n):
        ex = example_cls()
        f = ex.features.feature
        f["id"].CopyFrom(feature_cls(int64_list={"value": [i]}))
        f["label"].CopyFrom(feature_cls(int64_list={"value": [i % 10]}))
        f["x"].CopyFrom(feature_cls(float_list={"value": [i * 0.5, -1.0, 2.5, 0.25]}))
        f["name"].CopyFrom(feature_cls(bytes_list={"value": [b"record-%06d" % i]}))
        out.append(ex.SerializeToString(deterministic=True))
    return out


def _measure(writer_cls, iterator_fn, records, compression, directory):
    path = os.path.join(directory, f"bench{compression}.tfrecord")
    start = time.perf_counter()
    writer = writer_cls(path, compression)
    for record in records:
        writer.write(record)
    writer.close()
    write_s = time.perf_counter() - start
    start = time.perf_counter()
    count = sum(1 for _ in iterator_fn(path, compression))
    read_s = time.perf_counter() - start
    assert count == len(records)
    return {"write_rps": len(records) / write_s, "read_rps": len(records) / read_s,
            "bytes": os.path.getsize(path)}


def run_backend(backend, n):
    """Measures one backend in this process; returns {compression: figures}."""
    if backend == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
        writer_cls, iterator_fn = tf.io.TFRecordWriter, tf.compat.v1.io.tf_record_iterator
        records = _examples(n, tf.train.Example, tf.train.Feature)
    else:
        from trainflow._src.formats.tfrecord import TFRecordWriter, tf_record_iterator
        from trainflow._src.protos import example_pb2, feature_pb2
        writer_cls, iterator_fn = TFRecordWriter, tf_record_iterator
        records = _examples(n, example_pb2.Example, feature_pb2.Feature)
    results = {}
    with tempfile.TemporaryDirectory() as directory:
        for compression in ("", "GZIP"):
            _measure(writer_cls, iterator_fn, records[:1000], compression, directory)  # warm-up
            runs = [_measure(writer_cls, iterator_fn, records, compression, directory)
                    for _ in range(3)]
            # best of three: the machine may be shared
            results[compression or "NONE"] = {
                key: max(r[key] for r in runs) for key in runs[0]}
    return results


def report(n, rows):
    print(f"{n} Examples, records/s")
    print_table([("backend", "<12"), ("compression", "<13"), ("write", ">12,.0f"),
                 ("read", ">12,.0f"), ("file bytes", ">12,")],
                [(backend, compression, r["write_rps"], r["read_rps"], r["bytes"])
                 for backend, results in rows.items() for compression, r in results.items()])


def main():
    return backend_main(__file__, __doc__, run_backend, report)


if __name__ == "__main__":
    sys.exit(main())
