"""Forward + backward time of conv2d + max_pool, written against the TF1 API.

    python benchmarks/conv_step.py                                  # trainflow
    python benchmarks/conv_step.py --module tensorflow.compat.v1    # TensorFlow (if installed)
    python benchmarks/conv_step.py --jit                            # trainflow on XLA
    python benchmarks/conv_step.py --module jax                     # the step hand-written in JAX

Two layers of a CIFAR-style convnet, each timed alone: "conv1" is a 5x5x3x64 SAME
convolution of a [32, 32, 32, 3] batch followed by a 3x3 stride-2 max pool; "conv2"
is a 5x5x64x64 convolution of the pooled [32, 16, 16, 64] activations followed by
the same pool. One step runs the forward pass and the gradients with respect to
the filter and the input (the output gradient is fed, so no other op is involved).
Prints the median ms/step and the median CPU ms/step of the process (the steadier
figure on a shared machine). `--module jax` times the same step written by hand with
`jax.jit` (lax.conv_general_dilated, reduce_window, jax.vjp): XLA's own bound.
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


def _timed(step, steps):
    """(median wall ms, median CPU ms) of `steps` calls of `step` after 3 warm-up calls."""
    for _ in range(3):
        step()
    wall, cpu = [], []
    for _ in range(steps):
        start, start_cpu = time.perf_counter(), time.process_time()
        step()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall) * 1e3, statistics.median(cpu) * 1e3


def bench_jax(layer, steps):
    """The step hand-written in JAX, on the same data."""
    import jax
    from jax import lax
    x_shape, w_shape = LAYERS[layer]
    w = np.random.RandomState(0).normal(0, 0.05, w_shape).astype(np.float32)

    def forward(x, w):
        y = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return lax.reduce_window(y, -np.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")

    def step(x, w, dy):
        pooled, vjp = jax.vjp(forward, x, w)
        dx, dw = vjp(dy)
        return pooled, dw, dx
    step = jax.jit(step)
    rng = np.random.RandomState(1)
    x = rng.rand(*x_shape).astype(np.float32)
    dy = rng.rand(*jax.eval_shape(forward, x, w).shape).astype(np.float32)
    return _timed(lambda: [np.asarray(v) for v in step(x, w, dy)], steps)


def bench(tf, layer, steps, threads, jit=False):
    x_shape, w_shape = LAYERS[layer]
    graph = tf.Graph()
    with graph.as_default():
        x, dy, fetches = build(tf, x_shape, w_shape)
    rng = np.random.RandomState(1)
    feed = {x: rng.rand(*x_shape).astype(np.float32),
            dy: rng.rand(*dy.shape.as_list()).astype(np.float32)}
    with tf.Session(graph=graph, **session_kwargs(tf, threads, jit)) as sess:
        return _timed(lambda: sess.run(fetches, feed), steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", default="trainflow.compat.v1",
                        help="a TF1-style module, or `jax` for the hand-written step")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=0,
                        help="intra/inter-op threads for TensorFlow (0: its default)")
    parser.add_argument("--layer", choices=sorted(LAYERS) + ["all"], default="all")
    parser.add_argument("--jit", action="store_true", help="TF's auto-jit switch (XLA)")
    args = parser.parse_args()
    tf = None if args.module == "jax" else load_tf1(args.module)
    layers = sorted(LAYERS) if args.layer == "all" else [args.layer]
    for layer in layers:
        ms, cpu = bench_jax(layer, args.steps) if tf is None else \
            bench(tf, layer, args.steps, args.threads, args.jit)
        x_shape, w_shape = LAYERS[layer]
        print(f"{args.module + (' +jit' if args.jit else ''):30s} {layer} x{x_shape} "
              f"w{w_shape}: {ms:8.1f} ms/step {cpu:8.1f} CPU ms/step")


if __name__ == "__main__":
    main()
