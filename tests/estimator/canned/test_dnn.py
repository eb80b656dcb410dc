"""DNNClassifier / DNNRegressor: train, evaluate, predict, TF's variable names and signatures."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

_X = np.random.RandomState(0).rand(32, 2).astype(np.float32)
_FC = [tf.feature_column.numeric_column("x", shape=(2,))]
_BIN = (_X[:, 0] > 0.5).astype(np.int64)
_MULTI = (_X[:, 0] * 3).astype(np.int64)
_REG = _X.sum(axis=1, keepdims=True)


def _inputs(labels, epochs):
    return tf.estimator.inputs.numpy_input_fn({"x": _X}, labels, batch_size=8,
                                              num_epochs=epochs, shuffle=epochs is None)


# TF 2.15 estimator's DNNClassifier([4, 3]) checkpoint names (its variables are built under a
# one-part partitioner, hence the slots' `t_0`).
_DNN_VARS = sorted([v + s for v in ("dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/kernel",
                                    "dnn/hiddenlayer_1/bias", "dnn/hiddenlayer_1/kernel",
                                    "dnn/logits/bias", "dnn/logits/kernel")
                    for s in ("", "/t_0/Adagrad")] + ["global_step"])

_BIN_METRICS = {"accuracy", "accuracy_baseline", "auc", "auc_precision_recall",
                "average_loss", "label/mean", "loss", "precision", "recall",
                "prediction/mean", "global_step"}
_BIN_PREDS = {"logits", "logistic", "probabilities", "class_ids", "classes", "all_class_ids",
              "all_classes"}

CASES = [
    ("binary", lambda d: tf.estimator.DNNClassifier([4, 3], _FC, model_dir=d), _BIN,
     _BIN_METRICS, _BIN_PREDS, {"serving_default", "classification", "regression", "predict"}),
    ("multi", lambda d: tf.estimator.DNNClassifier([4, 3], _FC, model_dir=d, n_classes=3),
     _MULTI, {"accuracy", "average_loss", "loss", "global_step"}, _BIN_PREDS - {"logistic"},
     {"serving_default", "classification", "predict"}),
    ("regression", lambda d: tf.estimator.DNNRegressor([4, 3], _FC, model_dir=d), _REG,
     {"average_loss", "label/mean", "prediction/mean", "loss", "global_step"},
     {"predictions"}, {"serving_default", "regression", "predict"}),
]


@pytest.mark.parametrize("name,make,labels,metrics,preds,signatures", CASES,
                         ids=[c[0] for c in CASES])
def test_train_evaluate_predict_export(tmp_path, name, make, labels, metrics, preds,
                                       signatures):
    est = make(str(tmp_path / "model"))
    est.train(_inputs(labels, None), steps=5)
    assert est.get_variable_names() == _DNN_VARS
    result = est.evaluate(_inputs(labels, 1))
    assert set(result) == metrics and result["global_step"] == 5
    assert np.isfinite(result["loss"])
    first = next(est.predict(_inputs(labels, 1)))
    assert set(first) == preds
    if "probabilities" in first:
        assert first["probabilities"].shape == ((2,) if name == "binary" else (3,))
        np.testing.assert_allclose(first["probabilities"].sum(), 1.0, rtol=1e-5)
    spec = tf.feature_column.make_parse_example_spec(_FC)
    serving = tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)
    path = est.export_saved_model(str(tmp_path / "export"), serving)
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], path)
        assert set(meta.signature_def) == signatures


def test_label_vocabulary_and_weights(tmp_path):
    est = tf.estimator.DNNClassifier([3], _FC, model_dir=str(tmp_path), n_classes=3,
                                     label_vocabulary=["a", "b", "c"], weight_column="w")
    labels = np.array(["abc"[i] for i in _MULTI])
    fn = tf.estimator.inputs.numpy_input_fn({"x": _X, "w": np.ones(32, np.float32)}, labels,
                                            batch_size=8, num_epochs=1, shuffle=False)
    est.train(fn, steps=4)
    first = next(est.predict(fn))
    assert first["classes"].item().decode() in "abc"
    assert [c.decode() for c in first["all_classes"]] == ["a", "b", "c"]
    assert est.evaluate(fn)["global_step"] == 4


@pytest.mark.parametrize("bad", [
    dict(hidden_units=[2], feature_columns=[]),
    dict(hidden_units=[2], feature_columns=_FC, optimizer="NoSuchOptimizer"),
])
def test_errors(bad):
    with pytest.raises(ValueError):
        est = tf.estimator.DNNClassifier(**bad)
        est.train(_inputs(_BIN, None), steps=1)


_CAT = tf.feature_column.categorical_column_with_vocabulary_list("c", ["a", "b"])
_NAME_CASES = [
    # (estimator, TF 2.15 estimator's checkpoint names for it, read from its model_dir)
    ("dnn_embedding", lambda d: tf.estimator.DNNClassifier(
        [3], [tf.feature_column.embedding_column(_CAT, 2)], model_dir=d),
     [v + s for v in ("dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/kernel",
                      "dnn/input_from_feature_columns/input_layer/c_embedding/"
                      "embedding_weights", "dnn/logits/bias", "dnn/logits/kernel")
      for s in ("", "/t_0/Adagrad")]),
    ("dnn_adam", lambda d: tf.estimator.DNNClassifier([3], _FC, model_dir=d, optimizer="Adam"),
     ["dnn/head/beta1_power", "dnn/head/beta2_power"]
     + [v + s for v in ("dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/kernel",
                        "dnn/logits/bias", "dnn/logits/kernel")
        for s in ("", "/t_0/Adam", "/t_0/Adam_1")]),
    ("linear_adam", lambda d: tf.estimator.LinearClassifier([_CAT] + _FC, model_dir=d,
                                                            optimizer="Adam"),
     ["linear/head/beta1_power", "linear/head/beta2_power"]
     + [v + s for v in ("linear/linear_model/bias_weights", "linear/linear_model/c/weights",
                        "linear/linear_model/x/weights")
        for s in ("", "/part_0/Adam", "/part_0/Adam_1")]),
]


@pytest.mark.parametrize("name,make,expected", _NAME_CASES, ids=[c[0] for c in _NAME_CASES])
def test_checkpoint_names_are_tensorflows(tmp_path, name, make, expected):
    est = make(str(tmp_path))
    c = np.array(["a", "b"] * 16)
    est.train(tf.estimator.inputs.numpy_input_fn({"x": _X, "c": c}, _BIN, batch_size=8,
                                                 num_epochs=None, shuffle=True), steps=2)
    assert est.get_variable_names() == sorted(expected + ["global_step"])


@pytest.mark.parametrize("kwargs", [dict(dropout=0.5), dict(activation_fn=tf.nn.tanh),
                                    dict(optimizer=lambda: tf.train.AdamOptimizer(0.01))])
def test_dnn_options_train_and_evaluate(tmp_path, kwargs):
    est = tf.estimator.DNNRegressor([4], _FC, model_dir=str(tmp_path), **kwargs)
    est.train(_inputs(_REG, None), steps=3)
    result = est.evaluate(_inputs(_REG, 1))
    assert result["global_step"] == 3 and np.isfinite(result["average_loss"])
