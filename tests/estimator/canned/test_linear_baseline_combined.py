"""Linear*, Baseline* and DNNLinearCombined*: train, evaluate, predict, TF's variable names."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

_X = np.random.RandomState(1).rand(32, 2).astype(np.float32)
_C = np.array(["ab"[i % 2] for i in range(32)])
_BIN = (_X[:, 0] > 0.5).astype(np.int64)
_MULTI = (_X[:, 0] * 3).astype(np.int64)
_REG = _X.sum(axis=1, keepdims=True)
_NUM = tf.feature_column.numeric_column("x", shape=(2,))
_CAT = tf.feature_column.categorical_column_with_vocabulary_list("c", ["a", "b"])


def _inputs(labels, epochs):
    return tf.estimator.inputs.numpy_input_fn({"x": _X, "c": _C}, labels, batch_size=8,
                                              num_epochs=epochs, shuffle=epochs is None)


def _slots(names, *slots):
    return [n + s for n in names for s in ("",) + slots]


# TF 2.15 estimator's checkpoint names (read from its model_dirs): the Linear* slots carry
# the one-part partitioner's `part_0`; the combined and baseline estimators' do not.
_LINEAR_VARS = ["linear/linear_model/bias_weights", "linear/linear_model/c/weights",
                "linear/linear_model/x/weights"]
_LINEAR = _slots(_LINEAR_VARS, "/part_0/Ftrl", "/part_0/Ftrl_1")
_COMBINED_LINEAR = _slots(_LINEAR_VARS, "/Ftrl", "/Ftrl_1")
_DNN = _slots(["dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/kernel", "dnn/logits/bias",
               "dnn/logits/kernel"], "/Adagrad")
_BASELINE = _slots(["baseline/bias"], "/Ftrl", "/Ftrl_1")


def _combined(cls, **kw):
    return lambda d: cls(model_dir=d, linear_feature_columns=[_NUM, _CAT],
                         dnn_feature_columns=[_NUM], dnn_hidden_units=[3], **kw)


CASES = [
    ("linear_binary", lambda d: tf.estimator.LinearClassifier([_NUM, _CAT], model_dir=d),
     _BIN, _LINEAR, "accuracy"),
    ("linear_multi", lambda d: tf.estimator.LinearClassifier([_NUM, _CAT], model_dir=d,
                                                            n_classes=3),
     _MULTI, _LINEAR, "accuracy"),
    ("linear_regressor", lambda d: tf.estimator.LinearRegressor([_NUM, _CAT], model_dir=d),
     _REG, _LINEAR, "label/mean"),
    ("baseline_binary", lambda d: tf.estimator.BaselineClassifier(model_dir=d), _BIN,
     _BASELINE, "auc"),
    ("baseline_regressor", lambda d: tf.estimator.BaselineRegressor(model_dir=d), _REG,
     _BASELINE, "prediction/mean"),
    ("combined_binary", _combined(tf.estimator.DNNLinearCombinedClassifier), _BIN,
     _DNN + _COMBINED_LINEAR, "auc"),
    ("combined_regressor", _combined(tf.estimator.DNNLinearCombinedRegressor), _REG,
     _DNN + _COMBINED_LINEAR, "average_loss"),
]


@pytest.mark.parametrize("name,make,labels,variables,metric", CASES,
                         ids=[c[0] for c in CASES])
def test_train_evaluate_predict(tmp_path, name, make, labels, variables, metric):
    est = make(str(tmp_path))
    est.train(_inputs(labels, None), steps=4)
    assert est.get_variable_names() == sorted(variables + ["global_step"])
    result = est.evaluate(_inputs(labels, 1))
    assert result["global_step"] == 4 and metric in result and np.isfinite(result["loss"])
    first = next(est.predict(_inputs(labels, 1)))
    assert ("predictions" in first) == ("regressor" in name)


def test_baseline_learns_label_mean(tmp_path):
    est = tf.estimator.BaselineRegressor(model_dir=str(tmp_path),
                                         optimizer=tf.train.GradientDescentOptimizer(0.01))
    full_batch = tf.estimator.inputs.numpy_input_fn({"x": _X}, _REG, batch_size=32,
                                                    num_epochs=None, shuffle=False)
    est.train(full_batch, steps=100)
    first = next(est.predict(_inputs(_REG, 1)))
    np.testing.assert_allclose(first["predictions"], _REG.mean(), atol=0.05)


def test_default_linear_learning_rate_min():
    from trainflow._src.estimator.canned import linear
    assert linear.default_optimizer([_NUM] * 100)._learning_rate == pytest.approx(0.1)
    assert linear.default_optimizer([_NUM])._learning_rate == pytest.approx(0.2)


@pytest.mark.parametrize("kwargs,message", [
    ({}, "Either linear_feature_columns or dnn_feature_columns"),
    ({"dnn_feature_columns": [_NUM]}, "dnn_hidden_units must be defined"),
])
def test_combined_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tf.estimator.DNNLinearCombinedClassifier(**kwargs)


_SUMMARY_CASES = [
    # (estimator, the summary tags TF 2.15's estimator writes for it while training)
    ("linear", lambda d: tf.estimator.LinearClassifier([_NUM, _CAT], model_dir=d),
     {"average_loss", "loss", "linear/bias", "linear/fraction_of_zero_weights"}),
    ("baseline", lambda d: tf.estimator.BaselineClassifier(model_dir=d),
     {"average_loss", "loss"}),
    ("dnn", lambda d: tf.estimator.DNNClassifier([3], [_NUM], model_dir=d),
     {"average_loss", "loss", "dnn/dnn/hiddenlayer_0/activation",
      "dnn/dnn/hiddenlayer_0/fraction_of_zero_values", "dnn/dnn/logits/activation",
      "dnn/dnn/logits/fraction_of_zero_values"}),
]


@pytest.mark.parametrize("name,make,tags", _SUMMARY_CASES, ids=[c[0] for c in _SUMMARY_CASES])
def test_training_summaries_are_tensorflows(tmp_path, name, make, tags):
    est = make(str(tmp_path))
    est.train(_inputs(_BIN, None), steps=2)
    written = set()
    for path in tf.gfile.Glob(str(tmp_path / "events.out.tfevents.*")):
        for event in tf.train.summary_iterator(path):
            written.update(v.tag for v in event.summary.value
                           if not v.tag.startswith("enqueue_input/"))  # numpy_input_fn's
    assert written - {"global_step/sec"} == tags
