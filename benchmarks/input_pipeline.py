"""Queue-based input pipeline throughput: trainflow vs TensorFlow.

100k tf.train.Example records in 4 TFRecord files -> string_input_producer, then
--mode batched (default): TFRecordReader.read_up_to(--read-batch) -> parse_example ->
shuffle_batch (batch 128, 4 threads, enqueue_many); --mode per_record: TFRecordReader.read
-> parse_single_example -> shuffle_batch (batch 64, 2 threads), one record per enqueue.
A trivial step consumes the batches; prints records/s (best of --repeat runs). Without
--module both trainflow and (where its python is found, see _harness.tf_python) TensorFlow
run.

    python benchmarks/input_pipeline.py [--n 100000] [--mode per_record] [--module ...]
"""
import os
import sys
import tempfile
import time

from _harness import load_tf1, measure_modules, parser, print_table

FILES = 4


def _write(tf, directory, n):
    paths = []
    per_file = n // FILES
    for f in range(FILES):
        path = os.path.join(directory, f"data-{f}.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            for i in range(f * per_file, (f + 1) * per_file):
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10])),
                    "x": tf.train.Feature(float_list=tf.train.FloatList(
                        value=[i * 0.5, -1.0, 2.5, 0.25])),
                    "name": tf.train.Feature(bytes_list=tf.train.BytesList(
                        value=[b"record-%06d" % i]))}))
                w.write(ex.SerializeToString())
        paths.append(path)
    return paths, per_file * FILES


def _features(tf):
    return {"id": tf.FixedLenFeature([], tf.int64), "label": tf.FixedLenFeature([], tf.int64),
            "x": tf.FixedLenFeature([4], tf.float32), "name": tf.FixedLenFeature([], tf.string)}


def _batched(tf, fq, read_batch):
    _, values = tf.TFRecordReader().read_up_to(fq, read_batch)
    feats = tf.parse_example(values, _features(tf))
    return tf.train.shuffle_batch(
        [feats["id"], feats["label"], feats["x"]], 128, capacity=4096,
        min_after_dequeue=1024, num_threads=4, enqueue_many=True,
        allow_smaller_final_batch=True)


def _per_record(tf, fq, _read_batch):
    _, value = tf.TFRecordReader().read(fq)
    feats = tf.parse_single_example(value, _features(tf))
    return tf.train.shuffle_batch(
        [feats["id"], feats["label"], feats["x"]], 64, capacity=2048,
        min_after_dequeue=512, num_threads=2, allow_smaller_final_batch=True)


MODES = {"batched": _batched, "per_record": _per_record}


def _run_once(tf, paths, total, read_batch, mode="batched"):
    with tf.Graph().as_default():
        fq = tf.train.string_input_producer(paths, num_epochs=1, shuffle=False)
        ids, labels, xs = MODES[mode](tf, fq, read_batch)
        step = tf.reduce_sum(xs)
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            start = time.perf_counter()
            threads = tf.train.start_queue_runners(sess, coord)
            seen = 0
            try:
                while True:
                    seen += len(sess.run([ids, step])[0])
            except tf.errors.OutOfRangeError:
                pass
            elapsed = time.perf_counter() - start
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=30)
    assert seen == total, (seen, total)
    return total / elapsed


def measure(module, n=100_000, repeat=2, read_batch=256, mode="batched"):
    tf = load_tf1(module)
    with tempfile.TemporaryDirectory() as directory:
        paths, total = _write(tf, directory, n)
        best = max(_run_once(tf, paths, total, read_batch, mode) for _ in range(repeat))
    return {"records_per_s": best, "records": total}


def main():
    ap = parser(__doc__, "measure only this TF1-style module", ("--n", 100_000),
                ("--repeat", 2), ("--read-batch", 256))
    ap.add_argument("--mode", choices=sorted(MODES), default="batched")
    args = ap.parse_args()
    results = measure_modules(
        args, __file__, lambda m: measure(m, args.n, args.repeat, args.read_batch, args.mode),
        "--n", str(args.n), "--repeat", str(args.repeat), "--read-batch", str(args.read_batch),
        "--mode", args.mode)
    if args.json:
        import json
        print(json.dumps(results))
        return 0
    if args.mode == "per_record":
        print(f"{args.n} Examples, 4 files, read -> parse_single_example -> "
              "shuffle_batch(64, 2 threads)")
    else:
        print(f"{args.n} Examples, 4 files, read_up_to({args.read_batch}) -> parse_example "
              "-> shuffle_batch(128, 4 threads)")
    print_table([("backend", "<26"), ("records/s", ">12,.0f")],
                [(name, r["records_per_s"]) for name, r in results.items()])
    return 0


if __name__ == "__main__":
    sys.exit(main())
