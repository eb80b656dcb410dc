"""tf.data input throughput: trainflow vs TensorFlow (issue 30's tf.data rows).

Examples (id, label, x[4] float, name) in 4 TFRecord files, read two ways:
  (a) per record: TFRecordDataset -> map(parse_single_example, num_parallel_calls=2) ->
      shuffle(1024) -> batch(64) -> prefetch(1); examples/s;
  (b) in batches: TFRecordDataset -> batch(1000) -> map(parse_example); records/s.
Best of --repeat runs each; a run reads every record once. Without --module both
trainflow and (where its python is found, see _harness.tf_python) TensorFlow run.
Where this trainflow lacks a piece of (a) (parallel map, shuffle) the run says so and
uses what it has: sequential map, no shuffle.

    python benchmarks/data_input.py [--n 50000] [--repeat 3] [--module tensorflow.compat.v1]
"""
import sys
import tempfile
import time

from _records import FILES, example_features, write_example_files
from _harness import load_average, load_tf1, measure_modules, parser, print_table


def _drain(tf, batch, count_key):
    """Seconds to read `batch` (a dict of tensors) to its end, and the records read."""
    step = tf.reduce_sum(batch["x"])
    seen = 0
    with tf.Session() as sess:
        start = time.perf_counter()
        try:
            while True:
                seen += len(sess.run([batch[count_key], step])[0])
        except tf.errors.OutOfRangeError:
            pass
        return time.perf_counter() - start, seen


def _parallel_map(tf, dataset, fn, notes):
    """`dataset.map(fn, num_parallel_calls=2)`, or the sequential map where the parallel
    one is not built yet (noted)."""
    try:
        with tf.Graph().as_default():  # probe: can a parallel map run here?
            probe = tf.data.Dataset.range(2).map(lambda v: v + 1, num_parallel_calls=2)
            with tf.Session() as sess:
                sess.run(tf.data.make_one_shot_iterator(probe).get_next())
    except Exception:  # noqa: BLE001 - any failure: not available in this build
        notes.add("map without num_parallel_calls")
        return dataset.map(fn)
    return dataset.map(fn, num_parallel_calls=2)


def run_per_record(tf, paths, total, notes):
    with tf.Graph().as_default():
        features = example_features(tf)
        dataset = tf.data.TFRecordDataset(paths)
        dataset = _parallel_map(tf, dataset, lambda s: tf.parse_single_example(s, features),
                                notes)
        if hasattr(dataset, "shuffle"):
            dataset = dataset.shuffle(1024, seed=1)
        else:
            notes.add("no shuffle")
        dataset = dataset.batch(64).prefetch(1)
        batch = tf.data.make_one_shot_iterator(dataset).get_next()
        elapsed, seen = _drain(tf, batch, "id")
    assert seen == total, (seen, total)
    return total / elapsed


def run_batched(tf, paths, total):
    with tf.Graph().as_default():
        features = example_features(tf)
        dataset = tf.data.TFRecordDataset(paths).batch(1000).map(
            lambda s: tf.parse_example(s, features))
        batch = tf.data.make_one_shot_iterator(dataset).get_next()
        elapsed, seen = _drain(tf, batch, "id")
    assert seen == total, (seen, total)
    return total / elapsed


def measure(module, n=50_000, repeat=3):
    tf = load_tf1(module)
    notes = set()
    with tempfile.TemporaryDirectory() as directory:
        paths, total = write_example_files(tf, directory, n)
        per_record = batched = 0.0
        for _ in range(repeat):  # alternate the two pipelines, keep each one's best
            per_record = max(per_record, run_per_record(tf, paths, total, notes))
            batched = max(batched, run_batched(tf, paths, total))
    return {"per_record_examples_per_s": per_record, "batched_records_per_s": batched,
            "records": total, "notes": sorted(notes), "load": load_average()}


def main():
    ap = parser(__doc__, "measure only this TF1-style module", ("--n", 50_000),
                ("--repeat", 3))
    args = ap.parse_args()
    results = measure_modules(args, __file__, lambda m: measure(m, args.n, args.repeat),
                              "--n", str(args.n), "--repeat", str(args.repeat))
    if args.json:
        import json  # lazy: only the --json output needs it
        print(json.dumps(results))
        return 0
    print(f"{args.n} Examples in {FILES} files; (a) map(parse_single_example, 2 calls) -> "
          "shuffle -> batch(64) -> prefetch; (b) batch(1000) -> map(parse_example)")
    print_table([("backend", "<26"), ("(a) examples/s", ">16,.0f"),
                 ("(b) records/s", ">16,.0f"), ("load", ">7"), ("  notes", "<0")],
                [(name, r["per_record_examples_per_s"], r["batched_records_per_s"],
                  r["load"], "  " + ", ".join(r["notes"])) for name, r in results.items()])
    if "tensorflow" in results:
        tf_r, ours = results["tensorflow"], results["trainflow"]
        print(f"ratio trainflow / tensorflow: (a) "
              f"{ours['per_record_examples_per_s'] / tf_r['per_record_examples_per_s']:.2f}x"
              f", (b) {ours['batched_records_per_s'] / tf_r['batched_records_per_s']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
