"""Training-step throughput on an accelerator: trainflow with XLA on (TF's auto-jit switch)
against the same models hand-written in JAX (`jax.jit`, Adam), in the same process.

    python benchmarks/gpu_step.py                 # needs the repository and a CUDA jax
    python benchmarks/gpu_step.py --seconds 2     # shorter
    JAX_PLATFORMS=cpu python benchmarks/gpu_step.py --seconds 1   # proves it runs on CPU
    JAX_PLATFORMS=cpu python benchmarks/gpu_step.py --case mlp128  # one model, on CPU

Models: the MLP 784-512-512-10 (ReLU, softmax cross-entropy, Adam) at batch 128 and 4096,
and a CIFAR-10-sized convnet (two 5x5 conv + ReLU + 3x3/2 max-pool layers of 64 channels,
dense 384-192-10, Adam) at batch 128 on 32x32x3 images. Both sides take the same NumPy
batch each step. Prints steps/s for each side and the ratio; the whole run is a few
minutes at most.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "src"))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import trainflow.compat.v1 as tf  # noqa: E402

LR, B1, B2, EPS = 1e-3, 0.9, 0.999, 1e-8


# -- the models on trainflow ---------------------------------------------------------------
def _tf_mlp(x):
    h = x
    for i, n in enumerate([512, 512, 10]):
        h = tf.layers.dense(h, n, activation=tf.nn.relu if i < 2 else None, name=f"d{i}")
    return h


def _tf_convnet(x):
    h = x
    for i in range(2):
        h = tf.layers.conv2d(h, 64, 5, padding="same", activation=tf.nn.relu, name=f"c{i}")
        h = tf.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    h = tf.reshape(h, [-1, 8 * 8 * 64])
    for i, n in enumerate([384, 192, 10]):
        h = tf.layers.dense(h, n, activation=tf.nn.relu if i < 2 else None, name=f"f{i}")
    return h


def trainflow_rate(model, x_shape, data, labels, seconds):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(0)
        x = tf.placeholder(tf.float32, [None] + list(x_shape[1:]))
        y = tf.placeholder(tf.int64, [None])
        logits = model(x)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                            logits=logits))
        train = tf.train.AdamOptimizer(LR, B1, B2, EPS).minimize(loss)
        init = tf.global_variables_initializer()
    config = tf.ConfigProto()
    config.graph_options.optimizer_options.global_jit_level = tf.OptimizerOptions.ON_1
    with tf.Session(graph=g, config=config) as sess:
        sess.run(init)
        feed = {x: data, y: labels}
        return _rate(lambda: sess.run(train, feed), lambda: None, seconds)


# -- the same models hand-written in JAX ------------------------------------------------------
def _dense_init(key, n_in, n_out):
    limit = np.sqrt(6.0 / (n_in + n_out))
    return {"w": jax.random.uniform(key, (n_in, n_out), jnp.float32, -limit, limit),
            "b": jnp.zeros((n_out,), jnp.float32)}


def _jax_mlp_init(key):
    keys = jax.random.split(key, 3)
    return [_dense_init(k, a, b) for k, (a, b) in zip(keys, [(784, 512), (512, 512),
                                                             (512, 10)])]


def _jax_mlp(params, x):
    h = x
    for i, p in enumerate(params):
        h = h @ p["w"] + p["b"]
        if i < len(params) - 1:
            h = jax.nn.relu(h)
    return h


def _jax_convnet_init(key):
    keys = jax.random.split(key, 5)
    convs = []
    for k, (cin, cout) in zip(keys[:2], [(3, 64), (64, 64)]):
        limit = np.sqrt(6.0 / (25 * cin + 25 * cout))
        convs.append({"w": jax.random.uniform(k, (5, 5, cin, cout), jnp.float32, -limit,
                                              limit), "b": jnp.zeros((cout,), jnp.float32)})
    dense = [_dense_init(k, a, b) for k, (a, b) in zip(keys[2:], [(4096, 384), (384, 192),
                                                                  (192, 10)])]
    return {"conv": convs, "dense": dense}


def _jax_convnet(params, x):
    h = x
    for p in params["conv"]:
        h = jax.lax.conv_general_dilated(h, p["w"], (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
        h = jax.nn.relu(h + p["b"])
        h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 3, 3, 1), (1, 2, 2, 1),
                                  "SAME")
    h = h.reshape(h.shape[0], -1)
    return _jax_mlp(params["dense"], h)


def jax_rate(init, apply, data, labels, seconds):
    params = init(jax.random.PRNGKey(0))
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    state = (params, zeros, jax.tree_util.tree_map(jnp.zeros_like, params), jnp.float32(1.0))

    def loss_fn(p, x, y):
        logp = jax.nn.log_softmax(apply(p, x))
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    def step(state, x, y):
        p, m, v, t = state
        g = jax.grad(loss_fn)(p, x, y)
        alpha = LR * jnp.sqrt(1 - B2 ** t) / (1 - B1 ** t)
        m = jax.tree_util.tree_map(lambda m, g: m + (g - m) * (1 - B1), m, g)
        v = jax.tree_util.tree_map(lambda v, g: v + (g * g - v) * (1 - B2), v, g)
        p = jax.tree_util.tree_map(lambda p, m, v: p - m * alpha / (jnp.sqrt(v) + EPS), p, m, v)
        return p, m, v, t + 1

    step = jax.jit(step, donate_argnums=(0,))
    box = [state]

    def run():
        box[0] = step(box[0], data, labels)

    return _rate(run, lambda: jax.block_until_ready(box[0]), seconds)


def _rate(step, sync, seconds):
    for _ in range(5):
        step()
    sync()
    n, start = 0, time.perf_counter()
    while True:
        step()
        n += 1
        if n % 5 == 0:
            sync()
            if time.perf_counter() - start >= seconds:
                break
    return n / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="timed seconds per figure")
    ap.add_argument("--case", action="append", choices=["mlp128", "mlp4096", "convnet"],
                    help="run only these models (repeatable; default: all)")
    args = ap.parse_args()
    dev = jax.devices()[0]
    print(f"jax {jax.__version__} on {dev.platform}: {getattr(dev, 'device_kind', dev)}")
    rng = np.random.RandomState(0)
    cases = [("MLP 784-512-512-10 b128", _tf_mlp, (_jax_mlp_init, _jax_mlp), (128, 784)),
             ("MLP 784-512-512-10 b4096", _tf_mlp, (_jax_mlp_init, _jax_mlp), (4096, 784)),
             ("convnet CIFAR-10 b128", _tf_convnet, (_jax_convnet_init, _jax_convnet),
              (128, 32, 32, 3))]
    if args.case:
        keys = ["mlp128", "mlp4096", "convnet"]
        cases = [c for key, c in zip(keys, cases) if key in args.case]
    print(f"{'model':28s}{'trainflow-XLA':>15s}{'hand JAX':>12s}{'JAX/trainflow':>15s}")
    for name, tf_model, (init, apply), shape in cases:
        data = rng.rand(*shape).astype(np.float32)
        labels = rng.randint(0, 10, shape[0]).astype(np.int64)
        ours = trainflow_rate(tf_model, shape, data, labels, args.seconds)
        theirs = jax_rate(init, apply, data, labels.astype(np.int32), args.seconds)
        print(f"{name:28s}{ours:13.1f}/s{theirs:10.1f}/s{theirs / ours:14.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
