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
- `conv1`/`conv2` (benchmarks/conv_step.py's layers): the three im2col products of the
  forward and backward passes at the shapes trainflow's kernels use (ms with NumPy's
  BLAS threads and on one thread, and GFLOP/s), the floor under any im2col convolution
  on this BLAS; and the whole layer step (conv, max pool, their gradients) written
  straight in NumPy, ms, beside trainflow's step.
"""
import argparse
import json
import time

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

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


def best_cpu_ms(fn, calls=5, rounds=3):
    """CPU milliseconds per call of `fn` (all the process's threads), the best of `rounds`
    rounds of `calls` calls: on a shared machine this varies less than the wall time."""
    fn()
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - start) / calls * 1e3)
    return best


_LR, _B1, _B2, _EPS = F32(1e-3), F32(0.9), F32(0.999), F32(1e-8)


def _adam(params, grads, state, lr=_LR, b1=_B1, b2=_B2, eps=_EPS):
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
    from trainflow._src.kernels import blocked
    from trainflow._src.ops.state import optimizer_inplace
    rng = np.random.default_rng(0)
    var, m, v, g = (rng.random(n, dtype=F32) for _ in range(4))
    t, u = np.empty(n, F32), np.empty(n, F32)
    alpha, omb1, omb2, eps = F32(1e-3), F32(0.1), F32(0.001), F32(1e-8)

    def bare():
        np.subtract(g, m, out=t)
        np.multiply(t, omb1, out=t)
        np.add(m, t, out=m)
        np.multiply(g, g, out=t)
        np.subtract(t, v, out=t)
        np.multiply(t, omb2, out=t)
        np.add(v, t, out=v)
        np.multiply(m, alpha, out=t)
        np.sqrt(v, out=u)
        np.add(u, eps, out=u)
        np.divide(t, u, out=t)
        np.subtract(var, t, out=var)

    def ours():
        blocked.run_blocks(*optimizer_inplace.adam(
            var, m, v, F32(0.9), F32(0.999), F32(1e-3), F32(0.9), F32(0.999), F32(1e-8), g))
    return bare, ours


CONV_LAYERS = {"conv1": ((32, 32, 32, 3), (5, 5, 3, 64)),
               "conv2": ((32, 16, 16, 64), (5, 5, 64, 64))}


def _im2col(x, k):
    """The [N*H*W, k*k*C] windows of NHWC `x` for a k x k stride-1 SAME convolution."""
    n, h, w, c = x.shape
    p = k // 2
    xp = np.pad(x, ((0, 0), (p, p), (p, p), (0, 0)))
    win = sliding_window_view(xp, (k, k), axis=(1, 2))  # [N, H, W, C, k, k]
    return win.transpose(0, 1, 2, 4, 5, 3).reshape(n * h * w, k * k * c)


def conv_gemms(layer):
    """A function running the three products of one conv_step layer at the shapes
    trainflow's kernels use: forward cols @ w, the filter gradient dy^T @ cols, and the
    input gradient (few channels: w @ dy^T before col2im; else the forward shape, as
    the turned-filter convolution of dy)."""
    (n, h, w_, c), (k, _, _, o) = CONV_LAYERS[layer]
    rng = np.random.default_rng(0)
    m, taps = n * h * w_, k * k * c
    cols = rng.random((m, taps), dtype=F32)
    wf = rng.random((taps, o), dtype=F32)
    dy = rng.random((m, o), dtype=F32)
    if c < 16:
        def gemms():
            cols @ wf
            dy.T @ cols
            wf @ dy.T
    else:
        dcols = rng.random((m, k * k * o), dtype=F32)
        wt = rng.random((k * k * o, c), dtype=F32)

        def gemms():
            cols @ wf
            np.ascontiguousarray(dy.T) @ cols
            dcols @ wt
    return gemms, 3 * 2 * m * taps * o


def conv_step(layer):
    """A function running one conv_step layer's forward and backward pass written
    straight in NumPy (im2col products, a 3x3 stride-2 max pool over strided views, its
    gradient routed to every cell equal to the window's maximum, col2im by taps): the
    arithmetic and the memory passes, with no tie rules, graph or checks."""
    (n, h, w_, c), (k, _, _, o) = CONV_LAYERS[layer]
    rng = np.random.default_rng(0)
    x = rng.random((n, h, w_, c), dtype=F32)
    w = rng.normal(0, 0.05, (k, k, c, o)).astype(F32)
    oh, ow = h // 2, w_ // 2
    g = rng.random((n, oh, ow, o), dtype=F32)
    wf = w.reshape(-1, o)
    wt = np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2)).reshape(-1, c)
    taps = [(i, j) for i in range(3) for j in range(3)]

    def tap(a, i, j):
        return a[:, i:i + 2 * oh - 1:2, j:j + 2 * ow - 1:2]

    def step():
        cols = _im2col(x, k)
        y = (cols @ wf).reshape(n, h, w_, o)
        yp = np.pad(y, ((0, 0), (0, 1), (0, 1), (0, 0)), constant_values=-np.inf)
        m = tap(yp, 0, 0).copy()
        for i, j in taps[1:]:
            np.maximum(m, tap(yp, i, j), out=m)
        dyp = np.zeros_like(yp)
        for i, j in taps:
            tap(dyp, i, j)[...] += g * (tap(yp, i, j) == m)
        d2 = np.ascontiguousarray(dyp[:, :h, :w_]).reshape(-1, o)
        d2.T @ cols  # the filter gradient
        if c >= 16:  # the input gradient as a convolution of dy with the turned filter
            _im2col(d2.reshape(n, h, w_, o), k) @ wt
            return
        dcols = (wf @ d2.T).reshape(k, k, c, n, h, w_)
        p = k // 2
        dx = np.zeros((c, n, h + 2 * p, w_ + 2 * p), F32)
        for i in range(k):
            for j in range(k):
                dx[:, :, i:i + h, j:j + w_] += dcols[i, j]
        dx[:, :, p:p + h, p:p + w_].transpose(1, 2, 3, 0).copy()
    return step


def trainflow_conv_step(layer):
    """A function running one trainflow conv_step layer (benchmarks/conv_step.py)."""
    import trainflow.compat.v1 as tf
    from conv_step import build
    x_shape, w_shape = CONV_LAYERS[layer]
    graph = tf.Graph()
    with graph.as_default():
        x, dy, fetches = build(tf, list(x_shape), list(w_shape))
        sess = tf.Session(graph=graph)
    rng = np.random.RandomState(1)
    feed = {x: rng.rand(*x_shape).astype(F32),
            dy: rng.rand(*dy.shape.as_list()).astype(F32)}
    return lambda: sess.run(fetches, feed)


def one_thread_blas():
    """A context in which NumPy's BLAS runs on one thread."""
    from threadpoolctl import threadpool_limits
    return threadpool_limits(1, user_api="blas")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--conv-only", action="store_true", help="only the conv_step rows")
    args = parser.parse_args()
    rows = {}
    # The bare rows first: trainflow sets NumPy's BLAS to one thread for the process.
    bare_steps = {}
    for layer in CONV_LAYERS:
        gemms, flops = conv_gemms(layer)
        ms = 1e3 / best_rate(gemms)
        with one_thread_blas():
            ms1 = 1e3 / best_rate(gemms)
            cpu1 = best_cpu_ms(gemms)
            step1 = best_cpu_ms(conv_step(layer))
        rows[f"{layer} gemms ms"] = (ms, None)
        rows[f"{layer} gemms 1-thread ms"] = (ms1, None)
        rows[f"{layer} gemms 1-thread cpu ms"] = (cpu1, None)
        rows[f"{layer} gemm GFLOP/s"] = (flops / ms / 1e6, None)
        bare_steps[layer] = (1e3 / best_rate(conv_step(layer)), step1)
    for layer in CONV_LAYERS:
        ours = trainflow_conv_step(layer)
        rows[f"{layer} step ms"] = (bare_steps[layer][0], 1e3 / best_rate(ours))
        rows[f"{layer} step cpu ms (1 thread)"] = (bare_steps[layer][1], None)
    if not args.conv_only:
        bare_adam, our_adam = adam_pair()
        rows["mlp_big steps/s"] = (best_rate(numpy_mlp_step()), best_rate(trainflow_mlp_step()))
        rows["adam_10m updates/s"] = (best_rate(bare_adam), best_rate(our_adam))
    if args.json:
        print(json.dumps(rows))
        return
    print(f"bare NumPy floors (load average {load_average()})")
    print(f"{'workload':34} {'bare NumPy':>12} {'trainflow':>12}")
    for name, (bare, ours) in rows.items():
        print(f"{name:34} {bare:12.1f} {'-' if ours is None else f'{ours:.1f}':>12}")


if __name__ == "__main__":
    main()
