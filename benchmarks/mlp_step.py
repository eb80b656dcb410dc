"""Training-step throughput of two MLPs written against the TF1 API.

    python benchmarks/mlp_step.py                                  # trainflow
    python benchmarks/mlp_step.py --module tensorflow.compat.v1    # TensorFlow (if installed)

    python benchmarks/mlp_step.py --jit --optimizer adam --batch 128   # XLA backend

Models: 784-512-512-10 ("big") and 784-64-10 ("small"), ReLU, softmax cross-entropy,
plain gradient descent (or Adam), batch 64, fed from NumPy each step. Prints steps/s.
--jit turns on TF's auto-jit switch (trainflow's XLA backend).
"""
import argparse
import time

import numpy as np

from _harness import load_tf1, session_kwargs


def build(tf, sizes, seed=0, optimizer="sgd"):
    x = tf.placeholder(tf.float32, [None, sizes[0]], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    h = x
    rng = np.random.RandomState(seed)
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        limit = np.sqrt(6.0 / (n_in + n_out))
        w = tf.Variable(rng.uniform(-limit, limit, (n_in, n_out)).astype(np.float32),
                        name=f"w{i}")
        b = tf.Variable(np.zeros(n_out, np.float32), name=f"b{i}")
        h = tf.matmul(h, w) + b
        if i < len(sizes) - 2:
            h = tf.nn.relu(h)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
    opt = tf.train.AdamOptimizer(0.001) if optimizer == "adam" else \
        tf.train.GradientDescentOptimizer(0.01)
    train = opt.minimize(loss)
    return x, y, loss, train


def bench(tf, sizes, batch, seconds, threads, jit=False, optimizer="sgd"):
    graph = tf.Graph()
    with graph.as_default():
        x, y, loss, train = build(tf, sizes, optimizer=optimizer)
        init = tf.global_variables_initializer()
    rng = np.random.RandomState(1)
    xb = rng.rand(batch, sizes[0]).astype(np.float32)
    yb = rng.randint(0, sizes[-1], batch).astype(np.int64)
    with tf.Session(graph=graph, **session_kwargs(tf, threads, jit)) as sess:
        sess.run(init)
        for _ in range(20):
            sess.run(train, {x: xb, y: yb})
        n = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            sess.run(train, {x: xb, y: yb})
            n += 1
        elapsed = time.perf_counter() - start
    return n / elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", default="trainflow.compat.v1")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--threads", type=int, default=0,
                        help="intra/inter-op threads for TensorFlow (0: its default)")
    parser.add_argument("--jit", action="store_true", help="TF's auto-jit switch (XLA)")
    parser.add_argument("--optimizer", choices=["sgd", "adam"], default="sgd")
    parser.add_argument("--model", choices=["small", "big", "all"], default="all")
    args = parser.parse_args()
    tf = load_tf1(args.module)
    label = args.module + (" +jit" if args.jit else "")
    for name, sizes in (("small 784-64-10", [784, 64, 10]), ("big 784-512-512-10",
                                                            [784, 512, 512, 10])):
        if args.model not in ("all", name.split()[0]):
            continue
        rate = bench(tf, sizes, args.batch, args.seconds, args.threads, args.jit,
                     args.optimizer)
        print(f"{label:30s} {name:20s} {args.optimizer:4s} b{args.batch:<5d} "
              f"{rate:9.1f} steps/s")


if __name__ == "__main__":
    main()
