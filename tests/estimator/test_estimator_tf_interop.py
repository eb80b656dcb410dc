"""A model_dir moves both ways between TensorFlow 2.15's Estimator (tensorflow-estimator
2.15) and trainflow's: each continues training from the other's checkpoints, evaluates them
to the same loss, and reads its graph.pbtxt and events. Needs
$TRAINFLOW_TF_ESTIMATOR_PYTHON (a python with tensorflow 2.15 and tensorflow-estimator)."""
import json
import os

import pytest

from tf_interop import TF_ESTIMATOR_PYTHON, needs_tf_estimator, run_python

# One Estimator program, run under TensorFlow and under trainflow: it trains model_dir to
# max_steps and prints the evaluation, the weights and the files it found.
PROGRAM = r'''
import json, os, sys
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.get_logger().setLevel("ERROR")
else:
    import trainflow.compat.v1 as tf
model_dir, max_steps = sys.argv[2], int(sys.argv[3])
x = np.random.RandomState(0).randn(64, 3).astype(np.float32)
y = (x @ np.array([[1.0], [2.0], [-1.0]], np.float32) + 0.5).astype(np.float32)

def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(16)

def model_fn(features, labels, mode, params):
    with tf.variable_scope("linear"):
        w = tf.get_variable("kernel", [3, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("bias", [1], initializer=tf.zeros_initializer())
    pred = tf.matmul(features["x"], w) + b
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": pred})
    loss = tf.losses.mean_squared_error(labels, pred)
    opt = tf.train.AdamOptimizer(params["lr"])
    train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
    metrics = {"mae": tf.metrics.mean_absolute_error(labels, pred)}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops=metrics)

config = tf.estimator.RunConfig(save_checkpoints_steps=5, tf_random_seed=1)
est = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config,
                             params={"lr": 0.05})
before = est.evaluate(input_fn, steps=2) if est.latest_checkpoint() else None
est.train(input_fn, max_steps=max_steps)
after = est.evaluate(input_fn, steps=2)
print(json.dumps({
    "before": None if before is None else {k: float(v) for k, v in before.items()},
    "after": {k: float(v) for k, v in after.items()},
    "kernel": est.get_variable_value("linear/kernel").ravel().tolist(),
    "names": sorted(est.get_variable_names()),
    "files": sorted(os.listdir(model_dir))}))
'''


def _run(side, model_dir, max_steps, tmp_path):
    script = tmp_path / "program.py"
    script.write_text(PROGRAM)
    if side == "tf":
        out = run_python(PROGRAM, "tf", model_dir, str(max_steps), python=TF_ESTIMATOR_PYTHON)
    else:
        import subprocess  # noqa: PLC0415 - trainflow's side runs in a fresh python too
        import sys  # noqa: PLC0415
        src = os.path.join(os.path.dirname(__file__), "..", "..", "src")
        proc = subprocess.run([sys.executable, str(script), "trainflow", model_dir,
                               str(max_steps)], capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, PYTHONPATH=os.path.abspath(src)))
        assert proc.returncode == 0, proc.stderr[-3000:]
        out = proc.stdout
    return json.loads(out.strip().splitlines()[-1])


@needs_tf_estimator
@pytest.mark.parametrize("first, second", [("tf", "trainflow"), ("trainflow", "tf")])
def test_model_dir_moves_between_tensorflow_and_trainflow(tmp_path, first, second):
    model_dir = str(tmp_path / "model")
    a = _run(first, model_dir, 10, tmp_path)
    b = _run(second, model_dir, 20, tmp_path)
    assert a["after"]["global_step"] == 10
    # The second evaluates the first's checkpoint to the same numbers ...
    assert b["before"]["global_step"] == 10
    assert b["before"]["loss"] == pytest.approx(a["after"]["loss"], rel=1e-4)
    assert b["before"]["mae"] == pytest.approx(a["after"]["mae"], rel=1e-4)
    # ... and continues training from it (Adam's slots and beta powers restored).
    assert b["after"]["global_step"] == 20
    assert b["after"]["loss"] < a["after"]["loss"]
    assert a["names"] == b["names"]
    assert "linear/kernel/Adam" in b["names"] and "beta1_power" in b["names"]
    assert {"checkpoint", "graph.pbtxt", "eval", "model.ckpt-20.index"} <= set(b["files"])
