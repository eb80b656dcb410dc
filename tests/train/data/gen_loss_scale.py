"""Records TF 2.21 trajectories of loss-scaled training for test_loss_scale.py.

Run with a Python that has TensorFlow (tensorflow.compat.v1, graph mode):
    python tests/train/data/gen_loss_scale.py > tests/train/data/loss_scale.json
"""
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()

# Per step the gradient of var; step 2 holds an Inf, step 4 a NaN (both skipped by the
# dynamic scale).
GRADS = [[0.5, -1.0], [0.25, 0.125], [np.inf, 1.0], [1.0, 1.0], [np.nan, 0.0],
         [-0.5, 2.0], [0.1, 0.1]]
CASES = {
    "dynamic_gd": ("GradientDescentOptimizer", {"learning_rate": 0.1},
                   ("dynamic", {"initial_loss_scale": 8.0, "increment_period": 2,
                                "multiplier": 2.0})),
    "dynamic_momentum": ("MomentumOptimizer", {"learning_rate": 0.1, "momentum": 0.9},
                         ("dynamic", {"initial_loss_scale": 4.0, "increment_period": 3,
                                      "multiplier": 4.0})),
    "fixed_adam": ("AdamOptimizer", {"learning_rate": 0.1}, ("fixed", {"loss_scale_value": 128})),
}


def _finite(x):
    return [None if not np.isfinite(v) else float(v) for v in np.ravel(x)]


def run(opt_name, opt_kwargs, scale):
    kind, scale_kwargs = scale
    g = tf.Graph()
    with g.as_default():
        var = tf.Variable([1.0, 2.0], name="var")
        step = tf.train.get_or_create_global_step()
        grad = tf.placeholder(tf.float32, [2])
        loss_scale = (tf.train.experimental.DynamicLossScale(**scale_kwargs) if kind == "dynamic"
                      else tf.train.experimental.FixedLossScale(**scale_kwargs))
        opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(
            getattr(tf.train, opt_name)(**opt_kwargs), loss_scale)
        train = opt.minimize(tf.reduce_sum(var * grad), global_step=step)
        current = loss_scale()
        names = sorted(v.op.name for v in tf.global_variables())
        init = tf.global_variables_initializer()
    traj = []
    with tf.Session(graph=g) as sess:
        sess.run(init)
        for k in range(len(GRADS) + 1):
            traj.append({"var": _finite(sess.run(var)), "global_step": int(sess.run(step)),
                         "loss_scale": float(sess.run(current))})
            if k < len(GRADS):
                sess.run(train, {grad: np.asarray(GRADS[k], np.float32)})
    return {"optimizer": opt_name, "optimizer_kwargs": opt_kwargs, "loss_scale": kind,
            "loss_scale_kwargs": scale_kwargs, "global_variables": names, "trajectory": traj}


def main():
    out = {"generator": "tests/train/data/gen_loss_scale.py", "tensorflow": tf.__version__,
           "grads_per_step": [_finite(g) for g in GRADS], "note": "null marks Inf/NaN",
           "cases": {name: run(*spec) for name, spec in CASES.items()}}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
