"""Per-op times of the convolution and max-pool lowerings on XLA (jax's default backend).

    python benchmarks/xla_conv_ops.py                 # every case
    python benchmarks/xla_conv_ops.py --case conv2    # one case

For each case (conv_step's two layers and a few common 3x3 and 1x1 shapes, NHWC and
NCHW) it times, each op alone under `jax.jit`, trainflow's lowering of Conv2D,
Conv2DBackpropInput, Conv2DBackpropFilter, MaxPool and MaxPoolGrad beside XLA's own
formulation (lax.conv_general_dilated's vjp for the filter gradient, the NaN-aware
reduce_window of `xla_window` for MaxPool, reduce_window's vjp for MaxPoolGrad), in
turns, and prints the best wall and CPU ms of each. The figures show which
formulation the lowerings (ops/nn/xla_conv_cpu.py) pick on the CPU, and what bounds
the XLA conv step.
"""
import argparse
import functools
import time

import numpy as np

CASES = {  # name: input shape, filter shape, conv stride, data format
    "conv1": ((32, 32, 32, 3), (5, 5, 3, 64), 1, "NHWC"),
    "conv2": ((32, 16, 16, 64), (5, 5, 64, 64), 1, "NHWC"),
    "3x3s1": ((32, 32, 32, 64), (3, 3, 64, 64), 1, "NHWC"),
    "3x3s1-nchw": ((32, 64, 32, 32), (3, 3, 64, 64), 1, "NCHW"),
    "3x3s2": ((32, 32, 32, 64), (3, 3, 64, 128), 2, "NHWC"),
    "1x1": ((32, 16, 16, 64), (1, 1, 64, 128), 1, "NHWC"),
}


def _time(fn, args):
    """(wall ms, CPU ms) of one call."""
    import jax
    start, start_cpu = time.perf_counter(), time.process_time()
    jax.block_until_ready(fn(*args))
    return (time.perf_counter() - start) * 1e3, (time.process_time() - start_cpu) * 1e3


def _variants(case):
    """{op: {formulation: (function, args)}} for one case."""
    import jax
    from jax import lax
    from trainflow._src.ops.nn import xla_conv_cpu, xla_window
    x_shape, w_shape, stride, fmt = CASES[case]
    nchw = fmt == "NCHW"
    strides = [1, 1, stride, stride] if nchw else [1, stride, stride, 1]
    conv_attrs = dict(strides=strides, padding="SAME", data_format=fmt)
    pool_attrs = dict(ksize=[1, 1, 3, 3] if nchw else [1, 3, 3, 1],
                      strides=[1, 1, 2, 2] if nchw else [1, 2, 2, 1], padding="SAME",
                      data_format=fmt)
    rng = np.random.RandomState(0)
    x = rng.rand(*x_shape).astype(np.float32)
    w = rng.normal(0, 0.05, w_shape).astype(np.float32)
    y = jax.jit(lambda x, w: xla_window.conv(x, w, **conv_attrs))(x, w)
    dy = rng.rand(*y.shape).astype(np.float32)
    pooled = jax.jit(lambda y: xla_window.max_pool(y, **pool_attrs))(y)
    dp = rng.rand(*pooled.shape).astype(np.float32)
    sizes = np.array(x_shape)
    window = (1, 1, 3, 3) if nchw else (1, 3, 3, 1)
    step = (1, 1, 2, 2) if nchw else (1, 2, 2, 1)

    def reduce_window_grad(y, dp):
        pool = functools.partial(lax.reduce_window, init_value=-np.inf,
                                 computation=lax.max, window_dimensions=window,
                                 window_strides=step, padding="SAME")
        return jax.vjp(pool, y)[1](dp)[0]
    return {
        "Conv2D": {"lowering": (lambda x, w: xla_window.conv(x, w, **conv_attrs), (x, w))},
        "Conv2DBackpropInput": {"lowering": (
            lambda w, dy: xla_window.conv_backprop_input(sizes, w, dy, **conv_attrs),
            (w, dy))},
        "Conv2DBackpropFilter": {
            "lowering": (lambda x, dy: xla_conv_cpu.conv_backprop_filter(
                x, np.array(w_shape), dy, **conv_attrs), (x, dy)),
            "lax vjp": (lambda x, dy: xla_window.conv_backprop_filter(
                x, np.array(w_shape), dy, **conv_attrs), (x, dy))},
        "MaxPool 3x3/2": {
            "lowering": (lambda y: xla_conv_cpu.max_pool(y, **pool_attrs), (y,)),
            "reduce_window": (lambda y: xla_window.max_pool(y, **pool_attrs), (y,))},
        "MaxPoolGrad 3x3/2": {
            "lowering": (lambda y, p, dp: xla_window.max_pool_grad(y, p, dp, **pool_attrs),
                         (y, pooled, dp)),
            "reduce_window vjp": (reduce_window_grad, (y, dp))},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=sorted(CASES) + ["all"], default="all")
    parser.add_argument("--rounds", type=int, default=8,
                        help="timed calls of each formulation, taken in turns")
    args = parser.parse_args()
    import jax
    from trainflow._src.runtime.backends import xla_backend
    xla_backend.load_lowerings()  # jax configured as trainflow runs it
    print(f"jax {jax.__version__} on {jax.default_backend()}")
    for case in sorted(CASES) if args.case == "all" else [args.case]:
        for op, forms in _variants(case).items():
            jitted = {name: (jax.jit(fn), fn_args) for name, (fn, fn_args) in forms.items()}
            best = {name: (float("inf"), float("inf")) for name in jitted}
            for fn, fn_args in jitted.values():
                jax.block_until_ready(fn(*fn_args))  # compiles
            for _ in range(args.rounds):  # formulations in turns: drift hits them alike
                for name, (fn, fn_args) in jitted.items():
                    wall, cpu = _time(fn, fn_args)
                    best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
            for name, (wall, cpu) in best.items():
                print(f"{case:11s} {op:22s} {name:18s} {wall:8.2f} ms {cpu:8.2f} CPU ms",
                      flush=True)


if __name__ == "__main__":
    main()
