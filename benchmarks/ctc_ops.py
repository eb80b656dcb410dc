"""CTC ops: tf.nn.ctc_loss with its gradient, ctc_greedy_decoder and
ctc_beam_search_decoder on a speech-sized batch, trainflow and TensorFlow side by side.

  python benchmarks/ctc_ops.py                       # both, if TF found
  python benchmarks/ctc_ops.py --module trainflow.compat.v1
  /path/to/tf/python benchmarks/ctc_ops.py --module tensorflow.compat.v1

Loss: 200 frames x 32 utterances x 30 classes, 50 labels each (ms per run of the loss
and its gradient). Greedy: the same logits. Beam: 100 frames x 8 utterances, beam 100
(random logits: a flat, worst-case beam). Figures are the best of --repeat loops of
--calls runs. Target: the loss at least as fast as TF's.
"""
import json
import sys

import numpy as np

from _harness import best_seconds, load_tf1, measure_modules, parser, print_table

FRAMES, BATCH, CLASSES, LABELS = 200, 32, 30, 50


def measure(module, calls=5, repeat=3):
    """{figure: ms} for the TF1 API in `module`."""
    tf = load_tf1(module)
    rng = np.random.RandomState(0)
    logits = rng.randn(FRAMES, BATCH, CLASSES).astype(np.float32)
    indices = np.array([[b, i] for b in range(BATCH) for i in range(LABELS)], np.int64)
    values = rng.randint(0, CLASSES - 1, size=BATCH * LABELS).astype(np.int32)
    seq = np.full(BATCH, FRAMES, np.int32)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [FRAMES, BATCH, CLASSES])
        loss = tf.nn.ctc_loss(tf.SparseTensor(indices, values, [BATCH, LABELS]), x, seq)
        fetches = {"loss_grad_ms": [loss, tf.gradients(loss, x)[0]],
                   "greedy_ms": tf.nn.ctc_greedy_decoder(x, seq),
                   "beam100_ms": tf.nn.ctc_beam_search_decoder(x[:100, :8], seq[:8] // 2,
                                                               beam_width=100)}
    out = {}
    with tf.Session(graph=g) as sess:
        for name, fetch in fetches.items():
            n = 1 if name == "beam100_ms" else calls
            out[name] = 1e3 * best_seconds(
                lambda f=fetch: sess.run(f, {x: logits}), n, repeat, warmup=1)
    return out


def main(argv=None):
    ap = parser(__doc__, "TF1-style module (default: both)", ("--calls", 5), ("--repeat", 3))
    args = ap.parse_args(argv)
    results = measure_modules(args, __file__,
                              lambda m: measure(m, args.calls, args.repeat),
                              "--calls", str(args.calls), "--repeat", str(args.repeat))
    if args.json or args.module:
        print(json.dumps(results))
        return 0
    columns = [("workload", "<34"), ("trainflow ms", ">14.1f")]
    tf_side = results.get("tensorflow")
    if tf_side:
        columns += [("tensorflow ms", ">15.1f"), ("tf/trainflow", ">14.2f")]
    labels = {"loss_grad_ms": f"ctc_loss+grad {FRAMES}x{BATCH}x{CLASSES}, L{LABELS}",
              "greedy_ms": "ctc_greedy_decoder", "beam100_ms": "ctc_beam_search beam 100"}
    rows = []
    for key, label in labels.items():
        row = [label, results["trainflow"][key]]
        if tf_side:
            row += [tf_side[key], tf_side[key] / row[1]]
        rows.append(row)
    print_table(columns, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
