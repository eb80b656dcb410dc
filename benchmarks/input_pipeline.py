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
import sys
import tempfile
import time

from _records import example_features, write_example_files
from _harness import load_tf1, measure_modules, parser, print_table


def _batched(tf, fq, read_batch):
    _, values = tf.TFRecordReader().read_up_to(fq, read_batch)
    feats = tf.parse_example(values, example_features(tf))
    return tf.train.shuffle_batch(
        [feats["id"], feats["label"], feats["x"]], 128, capacity=4096,
        min_after_dequeue=1024, num_threads=4, enqueue_many=True,
        allow_smaller_final_batch=True)


def _per_record(tf, fq, _read_batch):
    _, value = tf.TFRecordReader().read(fq)
    feats = tf.parse_single_example(value, example_features(tf))
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
        paths, total = write_example_files(tf, directory, n)
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
