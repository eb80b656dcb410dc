"""Bare-NumPy floors of the workloads where trainflow trails TensorFlow: the same
arithmetic written straight in NumPy, with no graph, no session and no checks, so that a
miss can be put down to the library underneath (OpenBLAS, NumPy's one-pass-per-ufunc
loops) or to trainflow itself.

    python benchmarks/bare_numpy.py            # table; --json for the raw figures

- `mlp_big`: one 784-512-512-10 training step at batch 128 (forward, softmax
  cross-entropy, backward, Adam on every parameter) in NumPy, steps/s; printed beside
  trainflow's step of the same model in this process.
- `adam_10m`: Adam's update of 10M float32 parameters as NumPy `out=` ufunc calls over the
  whole arrays (the fewest passes NumPy can do it in), updates/s; beside trainflow's
  ApplyAdam kernel on the same buffers.
- `conv2_gemms`: the three products of conv2's forward and backward passes (im2col
  matrix 8192x1600 with a 1600x64 filter), ms; the floor under any im2col convolution.
"""
import argparse
import json
import time

import numpy as np

from _harness import load_average

F32 = np.float32


def best_rate(fn, seconds=1.0, rounds=3):
    """Calls per second of `fn`: the best of `rounds` loops of about `seconds` each."""
    fn()
    best = 0.0
    for _ in range(rounds):
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            fn()
            n += 1
        best = max(best, n / (time.perf_counter() - start))
    return best


def _adam(params, grads, state, lr=F32(1e-3), b1=F32(0.9), b2=F32(0.999), eps=F32(1e-8)):
    state["t"] += 1
    t = state["t"]
    alpha = F32(lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t))
    for p, g, m, v in zip(params, grads, state["m"], state["v"]):
        m += (g - m) * (1 - b1)
        v += (g * g - v) * (1 - b2)
        p -= alpha * m / (np.sqrt(v) + eps)


def numpy_mlp_step(batch=128, sizes=(784, 512, 512, 10)):
    """A function running one NumPy training step of the MLP."""
    rng = np.random.default_rng(0)
    ws = [rng.normal(0, 0.05, (a, b)).astype(F32) for a, b in zip(sizes, sizes[1:])]
    bs = [np.zeros(b, F32) for b in sizes[1:]]
    params = ws + bs
    state = {"t": 0, "m": [np.zeros_like(p) for p in params],
             "v": [np.zeros_like(p) for p in params]}
    x = rng.random((batch, sizes[0]), dtype=F32)
    labels = rng.integers(0, sizes[-1], batch)

    def step():
        acts = [x]
        for i, (w, b) in enumerate(zip(ws, bs)):
            z = acts[-1] @ w + b
            acts.append(np.maximum(z, 0) if i < len(ws) - 1 else z)
        logits = acts[-1]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        d = e / e.sum(axis=1, keepdims=True)
        d[np.arange(batch), labels] -= 1
        d /= batch
        gws, gbs = [None] * len(ws), [None] * len(bs)
        for i in reversed(range(len(ws))):
            gws[i] = acts[i].T @ d
            gbs[i] = d.sum(axis=0)
            if i:
                d = (d @ ws[i].T) * (acts[i] > 0)
        _adam(params, gws + gbs, state)
    return step


def trainflow_mlp_step(batch=128, sizes=(784, 512, 512, 10)):
    """A function running one trainflow training step of the same MLP."""
    import trainflow.compat.v1 as tf
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [batch, sizes[0]])
        y = tf.placeholder(tf.int64, [batch])
        h = x
        for i, n in enumerate(sizes[1:]):
            h = tf.layers.dense(h, n, tf.nn.relu if i < len(sizes) - 2 else None)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=h))
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        sess = tf.Session(graph=graph)
        sess.run(tf.global_variables_initializer())
    rng = np.random.default_rng(0)
    feed = {x: rng.random((batch, sizes[0]), dtype=F32), y: rng.integers(0, sizes[-1], batch)}
    return lambda: sess.run(train, feed)


def adam_pair(n=10_000_000):
    """(bare NumPy, trainflow kernel) functions each running one Adam update of n floats."""
    from trainflow.kernels import blocked
    from trainflow.ops.state import optimizer_inplace
    rng = np.random.default_rng(0)
    var, m, v, g = (rng.random(n, dtype=F32) for _ in range(4))
    t, u = np.empty(n, F32), np.empty(n, F32)
    alpha, omb1, omb2, eps = F32(1e-3), F32(0.1), F32(0.001), F32(1e-8)

    def bare():
        np.subtract(g, m, out=t); np.multiply(t, omb1, out=t); np.add(m, t, out=m)
        np.multiply(g, g, out=t); np.subtract(t, v, out=t); np.multiply(t, omb2, out=t)
        np.add(v, t, out=v)
        np.multiply(m, alpha, out=t); np.sqrt(v, out=u); np.add(u, eps, out=u)
        np.divide(t, u, out=t); np.subtract(var, t, out=var)

    def ours():
        blocked.run_blocks(*optimizer_inplace.adam(
            var, m, v, F32(0.9), F32(0.999), F32(1e-3), F32(0.9), F32(0.999), F32(1e-8), g))
    return bare, ours


def conv2_gemms():
    """A function running conv2's three im2col products through NumPy's matmul."""
    rng = np.random.default_rng(0)
    cols = rng.random((8192, 1600), dtype=F32)
    w = rng.random((1600, 64), dtype=F32)
    dy = rng.random((8192, 64), dtype=F32)

    def gemms():
        cols @ w          # forward
        dy @ w.T          # input gradient (before col2im)
        cols.T @ dy       # filter gradient
    return gemms


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    bare_adam, our_adam = adam_pair()
    rows = {
        "mlp_big steps/s": (best_rate(numpy_mlp_step()), best_rate(trainflow_mlp_step())),
        "adam_10m updates/s": (best_rate(bare_adam), best_rate(our_adam)),
        "conv2_gemms ms": (1e3 / best_rate(conv2_gemms()), None),
    }
    if args.json:
        print(json.dumps(rows))
        return
    print(f"bare NumPy floors (load average {load_average()})")
    print(f"{'workload':22} {'bare NumPy':>12} {'trainflow':>12}")
    for name, (bare, ours) in rows.items():
        print(f"{name:22} {bare:12.1f} {'-' if ours is None else f'{ours:.1f}':>12}")


if __name__ == "__main__":
    main()
