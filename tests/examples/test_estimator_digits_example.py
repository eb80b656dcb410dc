"""examples/estimator_digits.py: a TF1 Estimator program (custom model_fn, tf.data input,
train_and_evaluate with an exporter, predict) runs unchanged, learns, and its export
serves."""
import importlib.util
import os

import numpy as np

import trainflow.compat.v1 as tf

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                    "estimator_digits.py")


def test_estimator_program(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("estimator_digits", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model_dir = str(tmp_path / "model")
    metrics, export_dir = module.main(model_dir, steps=200)
    assert metrics["global_step"] == 200
    assert metrics["accuracy"] > 0.85  # ten classes: chance is 0.1
    out = capsys.readouterr().out
    assert "accuracy " in out and "first test digit: predicted" in out
    assert {"checkpoint", "graph.pbtxt", "eval", "export"} <= set(os.listdir(model_dir))
    assert tf.train.latest_checkpoint(model_dir).endswith("model.ckpt-200")
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], export_dir)
        sig = meta.signature_def["serving_default"]
        probs = sess.run(sig.outputs["probabilities"].name,
                         {sig.inputs["image"].name: np.zeros([2, 64], np.float32)})
    np.testing.assert_allclose(probs.sum(axis=1), [1.0, 1.0], rtol=1e-5)
