"""DNNEstimator, LinearEstimator, DNNLinearCombinedEstimator, BaselineEstimator under the v2
heads (the classifiers' variable names), and the experimental logit_fn builders."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

_X = np.random.RandomState(2).rand(32, 2).astype(np.float32)
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


_LINEAR_VARS = ["linear/linear_model/bias_weights", "linear/linear_model/c/weights",
                "linear/linear_model/x/weights"]
_DNN_VARS = ["dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/kernel", "dnn/logits/bias",
             "dnn/logits/kernel"]

CASES = [
    ("dnn_binary", lambda d: tf.estimator.DNNEstimator(
        tf.estimator.BinaryClassHead(), [3], [_NUM], model_dir=d), _BIN,
     _slots(_DNN_VARS, "/t_0/Adagrad"), {"auc", "accuracy", "average_loss"},
     {"logistic", "class_ids"}),
    ("dnn_multi", lambda d: tf.estimator.DNNEstimator(
        tf.estimator.MultiClassHead(3), [3], [_NUM], model_dir=d), _MULTI,
     _slots(_DNN_VARS, "/t_0/Adagrad"), {"accuracy", "average_loss"}, {"probabilities"}),
    ("linear_regression", lambda d: tf.estimator.LinearEstimator(
        tf.estimator.RegressionHead(), [_NUM, _CAT], model_dir=d), _REG,
     _slots(_LINEAR_VARS, "/part_0/Ftrl", "/part_0/Ftrl_1"),
     {"label/mean", "prediction/mean", "average_loss"}, {"predictions"}),
    ("linear_poisson", lambda d: tf.estimator.LinearEstimator(
        tf.estimator.PoissonRegressionHead(), [_NUM, _CAT], model_dir=d), _REG,
     _slots(_LINEAR_VARS, "/part_0/Ftrl", "/part_0/Ftrl_1"),
     {"label/mean", "prediction/mean"}, {"predictions", "logits"}),
    ("combined_binary", lambda d: tf.estimator.DNNLinearCombinedEstimator(
        tf.estimator.BinaryClassHead(), model_dir=d, linear_feature_columns=[_NUM, _CAT],
        dnn_feature_columns=[_NUM], dnn_hidden_units=[3]), _BIN,
     _slots(_DNN_VARS, "/Adagrad") + _slots(_LINEAR_VARS, "/Ftrl", "/Ftrl_1"),
     {"auc", "precision"}, {"logistic"}),
    ("baseline_logistic", lambda d: tf.estimator.BaselineEstimator(
        tf.estimator.LogisticRegressionHead(), model_dir=d), (_REG / 2).astype(np.float32),
     _slots(["baseline/bias"], "/Ftrl", "/Ftrl_1"), {"label/mean", "average_loss"},
     {"predictions", "logits"}),
]


@pytest.mark.parametrize("name,make,labels,variables,metrics,predictions", CASES,
                         ids=[c[0] for c in CASES])
def test_train_evaluate_predict(tmp_path, name, make, labels, variables, metrics, predictions):
    est = make(str(tmp_path))
    est.train(_inputs(labels, None), steps=3)
    assert est.get_variable_names() == sorted(variables + ["global_step"])
    result = est.evaluate(_inputs(labels, 1))
    assert result["global_step"] == 3 and np.isfinite(result["loss"])
    assert metrics <= set(result)
    first = next(est.predict(_inputs(labels, 1)))
    assert predictions <= set(first)


def test_baseline_estimator_learns_label_mean(tmp_path):
    est = tf.estimator.BaselineEstimator(tf.estimator.RegressionHead(), model_dir=str(tmp_path),
                                         optimizer=tf.train.GradientDescentOptimizer(0.3))
    full_batch = tf.estimator.inputs.numpy_input_fn({"x": _X}, _REG, batch_size=32,
                                                    num_epochs=None, shuffle=False)
    est.train(full_batch, steps=60)
    first = next(est.predict(_inputs(_REG, 1)))
    np.testing.assert_allclose(first["predictions"], _REG.mean(), atol=0.02)


def test_dnn_logit_fn_builder():
    fn = tf.estimator.experimental.dnn_logit_fn_builder(
        units=2, hidden_units=[3], feature_columns=[_NUM], activation_fn=tf.nn.relu,
        dropout=None, input_layer_partitioner=None, batch_norm=False)
    with tf.Graph().as_default():
        with tf.variable_scope("dnn"):
            logits = fn(features={"x": tf.constant(_X[:4])}, mode=tf.estimator.ModeKeys.TRAIN)
        names = sorted(v.op.name for v in tf.global_variables())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, (k0, b0, k1, b1) = sess.run([logits, [
                tf.get_default_graph().get_tensor_by_name(f"dnn/{n}:0")
                for n in ("hiddenlayer_0/kernel", "hiddenlayer_0/bias", "logits/kernel",
                          "logits/bias")]])
    assert names == sorted(_DNN_VARS)
    np.testing.assert_allclose(got, np.maximum(_X[:4] @ k0 + b0, 0) @ k1 + b1, rtol=1e-5)


def test_dnn_logit_fn_builder_units_must_be_int():
    with pytest.raises(ValueError, match="units must be an int"):
        tf.estimator.experimental.dnn_logit_fn_builder(2.0, [3], [_NUM], tf.nn.relu, None,
                                                       None, False)


def test_linear_logit_fn_builder():
    fn = tf.estimator.experimental.linear_logit_fn_builder(units=1, feature_columns=[_NUM])
    with tf.Graph().as_default():
        with tf.variable_scope("linear"):
            logits = fn(features={"x": tf.constant(_X[:4])})
        names = sorted(v.op.name for v in tf.global_variables())
        weights = [v for v in tf.global_variables() if v.op.name.endswith("x/weights")][0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(weights.assign([[2.0], [-1.0]]))
            got = sess.run(logits)
    assert names == ["linear/linear_model/bias_weights", "linear/linear_model/x/weights"]
    np.testing.assert_allclose(got, _X[:4] @ np.array([[2.0], [-1.0]]), rtol=1e-6)


@pytest.mark.parametrize("labels,make_estimator,make_classifier", [
    (_BIN, lambda d, c: tf.estimator.DNNEstimator(
        tf.estimator.BinaryClassHead(loss_reduction="sum"), [3], [_NUM], model_dir=d,
        config=c),
     lambda d, c: tf.estimator.DNNClassifier([3], [_NUM], model_dir=d, config=c)),
    (_MULTI, lambda d, c: tf.estimator.LinearEstimator(
        tf.estimator.MultiClassHead(3, loss_reduction="sum"), [_NUM, _CAT], model_dir=d,
        config=c),
     lambda d, c: tf.estimator.LinearClassifier([_NUM, _CAT], n_classes=3, model_dir=d,
                                                config=c)),
], ids=["dnn", "linear"])
def test_sum_reduction_head_trains_like_the_classifier(tmp_path, labels, make_estimator,
                                                       make_classifier):
    """Under the v1 default reduction (sum) a v2 head gives the classifier's training."""
    config = tf.estimator.RunConfig(tf_random_seed=7)
    outputs = []
    for i, make in enumerate((make_estimator, make_classifier)):
        est = make(str(tmp_path / str(i)), config)
        est.train(tf.estimator.inputs.numpy_input_fn(
            {"x": _X, "c": _C}, labels, batch_size=8, num_epochs=None, shuffle=False), steps=4)
        outputs.append([p["logits"] for p in est.predict(_inputs(labels, 1))])
    np.testing.assert_allclose(outputs[0], outputs[1], rtol=1e-6)
