"""tf.estimator.MultiLabelHead and MultiHead: loss, metrics, predictions, export outputs, errors
(cases after tensorflow_estimator 2.15's multi_label_head_test / multi_head_test; values by
hand)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

_MK = tf.estimator.ModeKeys
_LOGITS = np.array([[-1.0, 1.0, 0.5], [1.0, -2.0, 3.0]], np.float32)
_LABELS = np.array([[1, 0, 1], [0, 0, 1]], np.int64)


def _xent(labels, logits):
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


_PER_EXAMPLE = _xent(_LABELS, _LOGITS).mean(axis=1, keepdims=True)
_W = np.array([[2.0], [1.0]], np.float32)


def _sparse():
    return tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([0, 2, 2], np.int64), [2, 2])


def _sparse_str():
    return tf.SparseTensor([[0, 0], [0, 1], [1, 0]], np.array([b"x", b"z", b"z"]), [2, 2])



LOSS_CASES = [
    ("dense", lambda: tf.estimator.MultiLabelHead(3), _LABELS, {}, _PER_EXAMPLE.mean()),
    ("sparse_ids", lambda: tf.estimator.MultiLabelHead(3), _sparse, {}, _PER_EXAMPLE.mean()),
    ("sparse_vocab", lambda: tf.estimator.MultiLabelHead(3, label_vocabulary=["x", "y", "z"]),
     _sparse_str, {}, _PER_EXAMPLE.mean()),
    ("sum", lambda: tf.estimator.MultiLabelHead(3, loss_reduction="sum"), _LABELS, {},
     _PER_EXAMPLE.sum()),
    ("weighted", lambda: tf.estimator.MultiLabelHead(3, weight_column="w"), _LABELS,
     {"w": _W}, (_PER_EXAMPLE * _W).sum() / 2),
    ("loss_fn", lambda: tf.estimator.MultiLabelHead(
        3, loss_fn=lambda labels, logits: tf.reduce_sum(
            tf.cast(labels, tf.float32) * logits, axis=-1, keepdims=True)),
     _LABELS, {}, ((-1.0 + 0.5) + 3.0) / 2),
]


@pytest.mark.parametrize("name,make,labels,features,expected", LOSS_CASES,
                         ids=[c[0] for c in LOSS_CASES])
def test_multi_label_loss(name, make, labels, features, expected):
    with tf.Graph().as_default():
        labels = labels() if callable(labels) else labels
        loss = make().loss(labels, _LOGITS, features=features)
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            assert sess.run(loss) == pytest.approx(expected, rel=1e-5)


def _eval(head, logits, labels, features=None):
    with tf.Graph().as_default():
        spec = head.create_estimator_spec(features or {}, _MK.EVAL, logits, labels=labels)
        with tf.Session() as sess:
            sess.run([tf.local_variables_initializer(), tf.tables_initializer()])
            sess.run({k: v[1] for k, v in spec.eval_metric_ops.items()})
            return sess.run({k: v[0] for k, v in spec.eval_metric_ops.items()})


def test_multi_label_metrics():
    head = tf.estimator.MultiLabelHead(3, thresholds=[0.5], classes_for_class_based_metrics=[2],
                                       name="ml")
    got = _eval(head, _LOGITS, _LABELS)
    probs = 1 / (1 + np.exp(-_LOGITS))
    want = {"average_loss/ml": _PER_EXAMPLE.mean(), "accuracy/positive_threshold_0.5/ml": 0.5,
            "precision/positive_threshold_0.5/ml": 0.5,
            "recall/positive_threshold_0.5/ml": 2 / 3,
            "probability_mean/class2/ml": probs[:, 2].mean()}
    assert set(got) == set(want) | {"auc/ml", "auc_precision_recall/ml", "auc/class2/ml",
                                    "auc_precision_recall/class2/ml"}
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-5), key


def test_multi_label_predict_spec():
    head = tf.estimator.MultiLabelHead(3, label_vocabulary=["x", "y", "z"])
    with tf.Graph().as_default():
        spec = head.create_estimator_spec({}, _MK.PREDICT, _LOGITS)
        assert set(spec.export_outputs) == {"serving_default", "classification", "predict"}
        with tf.Session() as sess:
            out = sess.run(spec.predictions)
    np.testing.assert_allclose(out["probabilities"], 1 / (1 + np.exp(-_LOGITS)), rtol=1e-6)
    assert out["classes"].tolist() == [[b"x", b"y", b"z"]] * 2


MULTI_LABEL_ERRORS = [
    (lambda: tf.estimator.MultiLabelHead(1), "n_classes must be > 1"),
    (lambda: tf.estimator.MultiLabelHead(3, thresholds=[0.0]), "thresholds must be in"),
    (lambda: tf.estimator.MultiLabelHead(3, label_vocabulary=["a"]),
     r"Length of label_vocabulary must be n_classes \(3\)"),
    (lambda: tf.estimator.MultiLabelHead(3, classes_for_class_based_metrics=["a"]),
     "label_vocabulary must be provided"),
    (lambda: tf.estimator.MultiLabelHead(3, classes_for_class_based_metrics=[3]),
     r"must be in range \[0, 2\]"),
]


@pytest.mark.parametrize("make,message", MULTI_LABEL_ERRORS)
def test_multi_label_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_multi_label_dense_label_range():
    with tf.Graph().as_default():
        labels = tf.placeholder(tf.int64, [None, 3])
        loss = tf.estimator.MultiLabelHead(3).loss(labels, _LOGITS)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="integer indicator Tensor"):
            sess.run(loss, {labels: [[2, 0, 0], [0, 0, 0]]})


def _multi_head(**kw):
    return tf.estimator.MultiHead([tf.estimator.MultiLabelHead(2, name="a"),
                                   tf.estimator.RegressionHead(name="b")], **kw)


_MH_LABELS = {"a": np.array([[1, 0], [0, 0]], np.int64),
              "b": np.array([[1.0], [2.0]], np.float32)}
_LOSS_A = _xent(_MH_LABELS["a"], _LOGITS[:, :2]).mean()
_LOSS_B = ((0.5 - 1.0) ** 2 + (3.0 - 2.0) ** 2) / 2


@pytest.mark.parametrize("kw,logits,expected", [
    ({}, _LOGITS, _LOSS_A + _LOSS_B),
    ({"head_weights": [1.0, 2.0]}, _LOGITS, _LOSS_A + 2 * _LOSS_B),
    ({}, {"a": _LOGITS[:, :2], "b": _LOGITS[:, 2:]}, _LOSS_A + _LOSS_B),
])
def test_multi_head_loss(kw, logits, expected):
    with tf.Graph().as_default():
        loss = _multi_head(**kw).loss(_MH_LABELS, logits)
        with tf.Session() as sess:
            assert sess.run(loss) == pytest.approx(expected, rel=1e-5)


def test_multi_head_eval_metrics():
    got = _eval(_multi_head(), _LOGITS, _MH_LABELS)
    for key, value in {"loss/a": _LOSS_A, "average_loss/a": _LOSS_A, "loss/b": _LOSS_B,
                       "average_loss/b": _LOSS_B, "label/mean/b": 1.5,
                       "prediction/mean/b": 1.75}.items():
        assert got[key] == pytest.approx(value, rel=1e-5), key
    assert {"auc/a", "auc_precision_recall/a"} <= set(got)


def test_multi_head_predict_and_train():
    head = _multi_head()
    assert (head.name, head.logits_dimension, head.loss_reduction) == (
        "a_b", 3, "sum_over_batch_size")
    with tf.Graph().as_default():
        spec = head.create_estimator_spec({}, _MK.PREDICT, _LOGITS)
        assert set(spec.predictions) == {("a", "logits"), ("a", "probabilities"),
                                         ("a", "classes"), ("b", "predictions")}
        assert set(spec.export_outputs) == {"serving_default", "a", "a/classification",
                                            "a/predict", "b", "b/regression", "b/predict",
                                            "predict"}
        assert set(spec.export_outputs["predict"].outputs) == {
            "a/logits", "a/probabilities", "a/classes", "b/predictions"}
        tf.train.create_global_step()
        train = head.create_estimator_spec({}, _MK.TRAIN, _LOGITS, labels=_MH_LABELS,
                                           train_op_fn=lambda loss: tf.no_op())
        with tf.Session() as sess:
            assert sess.run(train.loss) == pytest.approx(_LOSS_A + _LOSS_B, rel=1e-5)


MULTI_HEAD_ERRORS = [
    (lambda: tf.estimator.MultiHead([]), "Must specify heads"),
    (lambda: tf.estimator.MultiHead([tf.estimator.RegressionHead()]),
     "must have name specified"),
    (lambda: _multi_head(head_weights=[1.0]), "must have the same size"),
]


@pytest.mark.parametrize("make,message", MULTI_HEAD_ERRORS)
def test_multi_head_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("logits,labels,message", [
    (np.zeros((2, 4), np.float32), _MH_LABELS, "Could not split logits"),
    ({"a": _LOGITS[:, :2]}, _MH_LABELS, "logits has missing values"),
    (_LOGITS, {"a": _MH_LABELS["a"]}, "labels has missing values"),
    (_LOGITS, _MH_LABELS["b"], "labels must be a dict"),
])
def test_multi_head_logits_label_errors(logits, labels, message):
    with tf.Graph().as_default(), pytest.raises(ValueError, match=message):
        _multi_head().loss(labels, logits)
