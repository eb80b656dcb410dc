"""Forward + backward time of conv2d + max_pool, written against the TF1 API.

    python benchmarks/conv_step.py                                  # trainflow
    python benchmarks/conv_step.py --module tensorflow.compat.v1    # TensorFlow (if installed)

Two layers of a CIFAR-style convnet, each timed alone: "conv1" is a 5x5x3x64 SAME
convolution of a [32, 32, 32, 3] batch followed by a 3x3 stride-2 max pool; "conv2"
is a 5x5x64x64 convolution of the pooled [32, 16, 16, 64] activations followed by
the same pool. One step runs the forward pass and the gradients with respect to
the filter and the input (the output gradient is fed, so no other op is involved).
Prints the median ms/step and the process's CPU time per step (all its threads), which
a busy machine inflates less than the wall time.
"""
import argparse
import statistics
import time

import numpy as np

from _harness import load_tf1, session_kwargs

LAYERS = {"conv1": ([32, 32, 32, 3], [5, 5, 3, 64]),
          "conv2": ([32, 16, 16, 64], [5, 5, 64, 64])}


def build(tf, x_shape, w_shape):
    rng = np.random.RandomState(0)
    x = tf.placeholder(tf.float32, x_shape, name="x")
    w = tf.constant(rng.normal(0, 0.05, w_shape).astype(np.float32), name="w")
    y = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
    pooled = tf.nn.max_pool(y, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    dy = tf.placeholder(tf.float32, pooled.shape, name="dy")
    grads = tf.gradients(pooled, [w, x], grad_ys=dy)
    return x, dy, [pooled] + grads


def bench(tf, layer, steps, threads, jit=False):
    x_shape, w_shape = LAYERS[layer]
    graph = tf.Graph()
    with graph.as_default():
        x, dy, fetches = build(tf, x_shape, w_shape)
    rng = np.random.RandomState(1)
    feed = {x: rng.rand(*x_shape).astype(np.float32),
            dy: rng.rand(*dy.shape.as_list()).astype(np.float32)}
    times = []
    with tf.Session(graph=graph, **session_kwargs(tf, threads, jit)) as sess:
        for _ in range(3):
            sess.run(fetches, feed)
        cpu = time.process_time()
        for _ in range(steps):
            start = time.perf_counter()
            sess.run(fetches, feed)
            times.append(time.perf_counter() - start)
        cpu = time.process_time() - cpu
    return statistics.median(times) * 1e3, cpu / steps * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", default="trainflow.compat.v1")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=0,
                        help="intra/inter-op threads for TensorFlow (0: its default)")
    parser.add_argument("--layer", choices=sorted(LAYERS) + ["all"], default="all")
    parser.add_argument("--jit", action="store_true", help="TF's auto-jit switch (XLA)")
    args = parser.parse_args()
    tf = load_tf1(args.module)
    layers = sorted(LAYERS) if args.layer == "all" else [args.layer]
    for layer in layers:
        ms, cpu_ms = bench(tf, layer, args.steps, args.threads, args.jit)
        x_shape, w_shape = LAYERS[layer]
        print(f"{args.module + (' +jit' if args.jit else ''):30s} {layer} x{x_shape} w{w_shape}: "
              f"{ms:8.1f} ms/step (cpu {cpu_ms:.1f} ms/step)")


if __name__ == "__main__":
    main()
