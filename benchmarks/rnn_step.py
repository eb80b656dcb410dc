"""Training-step throughput of the PTB "small" LSTM language model, written against the
TF1 API.

    python benchmarks/rnn_step.py                                   # trainflow and TF, alternating
    python benchmarks/rnn_step.py --jit                             # both with the auto-jit switch
    python benchmarks/rnn_step.py --module trainflow.compat.v1      # one module here
    /path/to/tf/python benchmarks/rnn_step.py --module tensorflow.compat.v1

The model is the "small" configuration of TF's PTB tutorial (ptb_word_lm.py): a
vocabulary of 10,000 words, an embedding lookup into 200 units, two
`BasicLSTMCell(200, forget_bias=0.0)` layers in a `MultiRNNCell` run by
`tf.nn.dynamic_rnn` over 35 unrolled steps with batch 20, a softmax over the vocabulary
(`sparse_softmax_cross_entropy_with_logits`, summed over time, averaged over the batch),
`clip_by_global_norm(grads, 5.0)` and `GradientDescentOptimizer(1.0).apply_gradients`.
Weights start uniform in [-0.1, 0.1]. As in the tutorial, each step feeds the previous
step's final LSTM state back in as the initial state and fetches the cost and the new
state with the update. Word ids are random from a fixed seed (a few batches, cycled),
fed through placeholders. Prints steps/s (words/s = steps/s x 700) and the process's CPU
ms a step (all threads; the steadier figure on a shared machine).

Without --module, --rounds rounds alternate a trainflow process and a TensorFlow process
(under --tf-python), keeping each side's best round, and print the ratio. --jit turns on
TF's auto-jit switch (`global_jit_level=ON_1`: trainflow's XLA backend; TensorFlow's
auto-clustering, which on CPU also needs TF_XLA_FLAGS=--tf_xla_cpu_global_jit, set here
for the TensorFlow run unless TF_XLA_FLAGS is already set). --json prints
{side or module: {"steps_per_s": N, "cpu_ms_per_step": M}}.
"""
import argparse
import contextlib
import json
import os
import sys
import time

import numpy as np

from _harness import (TF1, add_step_options, busy_neighbour, last_cpu, load_average, load_tf1,
                      run_json, session_kwargs, tf_python)

VOCAB, HIDDEN, LAYERS, STEPS, BATCH = 10_000, 200, 2, 35, 20
INIT_SCALE, MAX_GRAD_NORM, LEARNING_RATE = 0.1, 5.0, 1.0
N_BATCHES = 4


def rnn_cell(tf):
    """`tf.nn.rnn_cell`; under TensorFlow 2.16 and later with Keras 3 (where that name needs
    the tf_keras package) the module it stood for, `tensorflow.python.ops.rnn_cell_impl`
    (TF 1.15's cells, still shipped)."""
    cells = getattr(tf.nn, "rnn_cell", None)
    if cells is not None and hasattr(cells, "MultiRNNCell"):  # Keras 3 raises in hasattr
        return cells
    from tensorflow.python.ops import rnn_cell_impl
    return rnn_cell_impl


def build(tf, seed=0):
    """The PTB small model's graph: (input ids, targets, initial state, cost, final state,
    train op)."""
    tf.set_random_seed(seed)
    x = tf.placeholder(tf.int32, [BATCH, STEPS], name="x")
    y = tf.placeholder(tf.int32, [BATCH, STEPS], name="y")
    initializer = tf.random_uniform_initializer(-INIT_SCALE, INIT_SCALE, seed=seed)
    with tf.variable_scope("Model", initializer=initializer):
        embedding = tf.get_variable("embedding", [VOCAB, HIDDEN], dtype=tf.float32)
        inputs = tf.nn.embedding_lookup(embedding, x)
        cells = rnn_cell(tf)
        cell = cells.MultiRNNCell(
            [cells.BasicLSTMCell(HIDDEN, forget_bias=0.0, state_is_tuple=True)
             for _ in range(LAYERS)], state_is_tuple=True)
        initial_state = cell.zero_state(BATCH, tf.float32)
        outputs, final_state = tf.nn.dynamic_rnn(cell, inputs, initial_state=initial_state)
        output = tf.reshape(outputs, [-1, HIDDEN])
        softmax_w = tf.get_variable("softmax_w", [HIDDEN, VOCAB], dtype=tf.float32)
        softmax_b = tf.get_variable("softmax_b", [VOCAB], dtype=tf.float32)
        logits = tf.nn.xw_plus_b(output, softmax_w, softmax_b)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.reshape(y, [-1]), logits=logits)
        cost = tf.reduce_sum(loss) / BATCH
    tvars = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(cost, tvars), MAX_GRAD_NORM)
    train = tf.train.GradientDescentOptimizer(LEARNING_RATE).apply_gradients(
        zip(grads, tvars), global_step=tf.train.get_or_create_global_step())
    return x, y, initial_state, cost, final_state, train


def bench(tf, seconds, threads, jit=False):
    """(steps/s, CPU ms a step) of the PTB small training step, timed for `seconds` after
    3 warm-up steps; the CPU time is the process's, all threads."""
    graph = tf.Graph()
    with graph.as_default():
        x, y, initial_state, cost, final_state, train = build(tf)
        init = tf.global_variables_initializer()
    rng = np.random.RandomState(1)
    data = rng.randint(0, VOCAB, (N_BATCHES, BATCH, STEPS + 1)).astype(np.int32)
    batches = [(d[:, :-1], d[:, 1:]) for d in data]
    with tf.Session(graph=graph, **session_kwargs(tf, threads, jit)) as sess:
        sess.run(init)
        state = sess.run(initial_state)

        def step(i):
            nonlocal state
            xb, yb = batches[i % N_BATCHES]
            feed = {x: xb, y: yb}
            for layer, (c, h) in enumerate(initial_state):
                feed[c], feed[h] = state[layer].c, state[layer].h
            _, state, _ = sess.run([cost, final_state, train], feed)
        for i in range(3):
            step(i)
        n = 0
        start, start_cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - start < seconds:
            step(n)
            n += 1
        elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return n / elapsed, cpu / n * 1e3


def measure(module, args):
    """{"steps_per_s": N, "cpu_ms_per_step": M} for the TF1 API in `module`."""
    if args.jit and module == TF1:
        os.environ.setdefault("TF_XLA_FLAGS", "--tf_xla_cpu_global_jit")
    tf = load_tf1(module)
    rate, cpu_ms = bench(tf, args.seconds, args.threads, args.jit)
    return {"steps_per_s": rate, "cpu_ms_per_step": cpu_ms}


def alternate(args):
    """{side: {"steps_per_s": best, "cpu_ms_per_step": least}} over --rounds rounds of
    trainflow, then TF."""
    sides = {"trainflow": (sys.executable, "trainflow.compat.v1")}
    python = tf_python(args.tf_python)
    if python:
        sides["tensorflow"] = (python, TF1)
    options = ["--seconds", str(args.seconds), "--threads", str(args.threads), "--json"]
    if args.jit:
        options.append("--jit")
    best = {side: {"steps_per_s": 0.0, "cpu_ms_per_step": float("inf")} for side in sides}
    for _ in range(args.rounds):
        for side, (exe, module) in sides.items():
            got = run_json(exe, __file__, "--module", module, *options)[module]
            best[side]["steps_per_s"] = max(best[side]["steps_per_s"], got["steps_per_s"])
            best[side]["cpu_ms_per_step"] = min(best[side]["cpu_ms_per_step"],
                                                got["cpu_ms_per_step"])
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--module", help="TF1-style module to run here alone (default: "
                                     "trainflow and TensorFlow, alternating)")
    add_step_options(ap)
    args = ap.parse_args(argv)
    with busy_neighbour(last_cpu()) if args.busy else contextlib.nullcontext():
        if args.module:
            results = {args.module: measure(args.module, args)}
        else:
            results = alternate(args)
        load = load_average()
    if args.json:
        print(json.dumps(results))
        return 0
    jit = " +jit" if args.jit else ""
    if args.module:
        got = results[args.module]
        rate = got["steps_per_s"]
        print(f"{args.module + jit:30s} ptb-small {rate:9.2f} steps/s "
              f"({rate * BATCH * STEPS:,.0f} words/s, {got['cpu_ms_per_step']:.0f} CPU ms a step)")
        return 0
    print(f"PTB small LSTM training steps/s{jit}, best of {args.rounds} alternating rounds"
          f"{' beside a CPU burner' if args.busy else ''} (load average {load})")
    header = f"{'ptb-small':<18}{'trainflow':>11}"
    if "tensorflow" in results:
        header += f"{'tensorflow':>12}{'trainflow/tf':>14}"
    print(header)
    for key, label, better in (("steps_per_s", "steps/s", max),
                               ("cpu_ms_per_step", "CPU ms a step", min)):
        ours = results["trainflow"][key]
        line = f"{label:<18}{ours:>11.2f}"
        if "tensorflow" in results:
            theirs = results["tensorflow"][key]
            ratio = ours / theirs if better is max else theirs / ours
            line += f"{theirs:>12.2f}{ratio:>14.2f}"
        print(line)
    print("trainflow/tf: higher = trainflow better (rate over TF's; TF's CPU ms over "
          "trainflow's)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
