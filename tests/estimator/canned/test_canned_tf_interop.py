"""Canned estimators' model_dirs move both ways between TensorFlow 2.15's Estimator
(tensorflow-estimator 2.15) and trainflow's: same checkpoint variable names, each evaluates the
other's checkpoint to the same loss and continues training it. Needs
$TRAINFLOW_TF_ESTIMATOR_PYTHON (a python with tensorflow 2.15 and tensorflow-estimator)."""
import json
import os
import subprocess
import sys

import pytest

from tf_interop import TF_ESTIMATOR_PYTHON, needs_tf_estimator, run_python

# One program, run under TensorFlow and under trainflow: it trains a canned estimator's
# model_dir to max_steps and prints the evaluations and the checkpoint's variable names.
PROGRAM = r'''
import json, sys
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.get_logger().setLevel("ERROR")
else:
    import trainflow.compat.v1 as tf
kind, model_dir, max_steps = sys.argv[2], sys.argv[3], int(sys.argv[4])
rng = np.random.RandomState(0)
x = rng.rand(64, 2).astype(np.float32)
c = np.array(["ab"[i % 3 % 2] for i in range(64)])
y = ((x[:, 0] + (c == "a")) > 1.0).astype(np.int64).reshape(-1, 1)
num = tf.feature_column.numeric_column("x", shape=(2,))
cat = tf.feature_column.categorical_column_with_vocabulary_list("c", ["a", "b"])
config = tf.estimator.RunConfig(tf_random_seed=1)
if kind == "dnn":
    est = tf.estimator.DNNClassifier([4, 3], [num, tf.feature_column.indicator_column(cat)],
                                     model_dir=model_dir, config=config)
elif kind == "linear":
    est = tf.estimator.LinearClassifier([num, cat], model_dir=model_dir, config=config)
else:
    est = tf.estimator.DNNLinearCombinedClassifier(
        model_dir=model_dir, linear_feature_columns=[cat], dnn_feature_columns=[num],
        dnn_hidden_units=[3], config=config)

def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": x, "c": c}, y)).repeat().batch(16)

before = est.evaluate(input_fn, steps=4) if est.latest_checkpoint() else None
est.train(input_fn, max_steps=max_steps)
after = est.evaluate(input_fn, steps=4)
keep = ("loss", "average_loss", "accuracy", "auc", "global_step")
print(json.dumps({
    "before": None if before is None else {k: float(before[k]) for k in keep},
    "after": {k: float(after[k]) for k in keep},
    "names": sorted(est.get_variable_names())}))
'''


def _run(side, kind, model_dir, max_steps, tmp_path):
    if side == "tf":
        out = run_python(PROGRAM, "tf", kind, model_dir, str(max_steps),
                         python=TF_ESTIMATOR_PYTHON)
    else:
        script = tmp_path / "program.py"
        script.write_text(PROGRAM)
        src = os.path.join(os.path.dirname(__file__), "..", "..", "..", "src")
        proc = subprocess.run([sys.executable, str(script), "trainflow", kind, model_dir,
                               str(max_steps)], capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, PYTHONPATH=os.path.abspath(src)))
        assert proc.returncode == 0, proc.stderr[-3000:]
        out = proc.stdout
    return json.loads(out.strip().splitlines()[-1])


@needs_tf_estimator
@pytest.mark.parametrize("kind", ["dnn", "linear", "combined"])
@pytest.mark.parametrize("first, second", [("tf", "trainflow"), ("trainflow", "tf")])
def test_canned_model_dir_moves_between_tensorflow_and_trainflow(tmp_path, kind, first,
                                                                 second):
    model_dir = str(tmp_path / "model")
    a = _run(first, kind, model_dir, 10, tmp_path)
    b = _run(second, kind, model_dir, 30, tmp_path)
    assert a["names"] == b["names"]
    assert a["after"]["global_step"] == 10 and b["before"]["global_step"] == 10
    for key in ("loss", "average_loss", "accuracy", "auc"):
        assert b["before"][key] == pytest.approx(a["after"][key], rel=1e-4, abs=1e-5), key
    assert b["after"]["global_step"] == 30
    assert b["after"]["average_loss"] < a["after"]["average_loss"]


# Evaluation keys, prediction keys (dtype, shape) and the SavedModel's signatures of five canned
# estimators, printed as JSON.
KEYS_PROGRAM = r'''
import sys, json, tempfile
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
else:
    import trainflow.compat.v1 as tf
x = np.random.RandomState(0).rand(16, 2).astype(np.float32); y = np.arange(16) % 3
num = tf.feature_column.numeric_column("x", shape=(2,))
out = {}
for name, est, lab in [
    ("bin", tf.estimator.DNNClassifier([3], [num]), y % 2),
    ("multi", tf.estimator.LinearClassifier([num], n_classes=3), y),
    ("vocab", tf.estimator.LinearClassifier([num], label_vocabulary=["p", "q"]),
     np.array(["pq"[i % 2] for i in y])),
    ("reg", tf.estimator.DNNRegressor([3], [num], label_dimension=2),
     np.stack([x[:, 0], x[:, 1]], 1)),
    ("base", tf.estimator.BaselineRegressor(), x[:, :1])]:
    fn = lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, lab)).batch(8)
    est.train(fn, steps=2)
    ev = est.evaluate(fn)
    p = next(est.predict(fn))
    spec = tf.feature_column.make_parse_example_spec([num])
    d = est.export_saved_model(
        tempfile.mkdtemp(), tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
    with tf.Graph().as_default(), tf.Session() as s:
        meta = tf.saved_model.loader.load(s, ["serve"], d)
        sigs = {k: (sorted(v.inputs), sorted(v.outputs), v.method_name)
                for k, v in meta.signature_def.items()}
    preds = {k: [str(np.asarray(v).dtype), list(np.shape(v))] for k, v in sorted(p.items())}
    out[name] = [sorted(ev), preds, sigs]
print(json.dumps(out, sort_keys=True, indent=0))
'''


@needs_tf_estimator
def test_metrics_predictions_and_signatures_equal_tensorflows(tmp_path):
    expected = json.loads(run_python(KEYS_PROGRAM, "tf", python=TF_ESTIMATOR_PYTHON))
    script = tmp_path / "keys.py"
    script.write_text(KEYS_PROGRAM)
    src = os.path.join(os.path.dirname(__file__), "..", "..", "..", "src")
    proc = subprocess.run([sys.executable, str(script), "trainflow"], capture_output=True,
                          text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=os.path.abspath(src)))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout) == expected
