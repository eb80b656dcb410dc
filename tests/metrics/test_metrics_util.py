"""Metric building blocks (trainflow._src.metrics.metrics_util) and metric behaviours the
TensorFlow reference run does not cover: resets, dynamic ranks, bad arguments."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.metrics import metrics_util


def test_confusion_matrix_counts_and_weights():
    with tf.Graph().as_default():
        labels = tf.constant([0, 1, 2, 2, 1])
        preds = tf.constant([0, 2, 2, 2, 1])
        cm = metrics_util.confusion_matrix(labels, preds, 3)
        weighted = metrics_util.confusion_matrix(labels, preds, 3,
                                                 weights=[1.0, 2.0, 0.5, 0.5, 3.0],
                                                 dtype=tf.float32)
        fed = tf.placeholder(tf.int32, [None])
        bad = metrics_util.confusion_matrix(fed, fed, 2)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(cm), [[1, 0, 0], [0, 1, 1], [0, 0, 2]])
            np.testing.assert_allclose(sess.run(weighted), [[1, 0, 0], [0, 3, 2], [0, 0, 1]])
            with pytest.raises(tf.errors.InvalidArgumentError, match="out of bound"):
                sess.run(bad, {fed: [0, 2]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of bound"):
            metrics_util.confusion_matrix(labels, preds, 2)  # known statically


def test_thresholds_counts_with_includes_subset():
    with tf.Graph().as_default():
        values, updates = metrics_util.confusion_matrix_at_thresholds(
            tf.constant([1, 0, 1]), tf.constant([0.9, 0.6, 0.2]), [0.5, 0.1], includes=("tp",))
        assert list(values) == ["tp"] and values["tp"].op.name == "true_positives"
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            np.testing.assert_array_equal(sess.run(updates["tp"]), [1.0, 2.0])
        with pytest.raises(ValueError, match="Invalid key: xx"):
            metrics_util.confusion_matrix_at_thresholds([1], [0.5], [0.5], includes=("xx",))


def test_predictions_outside_unit_interval_fail():
    with tf.Graph().as_default():
        scores = tf.placeholder(tf.float32, [2])
        _, update = tf.metrics.auc([1, 0], scores)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"predictions must be in \[0, 1\]"):
                sess.run(update, {scores: [0.5, 1.5]})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"predictions must be in \[0, 1\]"):
            tf.metrics.auc([1, 0], [0.5, 1.5])  # known statically: fails while building


def test_squeeze_inputs_with_unknown_ranks():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, None)
        w = tf.placeholder(tf.float32, None)
        preds, _, weights = metrics_util.squeeze_inputs(p, None, w)
        mean, update = tf.metrics.mean(p, weights=w)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            out = sess.run(weights, {p: np.zeros([3]), w: np.ones([3, 1])})
            assert out.shape == (3,)
            out = sess.run(weights, {p: np.zeros([3, 2]), w: np.ones([3])})
            assert out.shape == (3, 1)
            assert sess.run(update, {p: [1.0, 2.0, 6.0], w: [[1.0], [1.0], [0.0]]}) == 1.5


def test_reset_by_local_initializer_and_uninitialized_error():
    with tf.Graph().as_default():
        values = tf.placeholder(tf.float32, [None])
        mean, update = tf.metrics.mean(values)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError):
                sess.run(mean)
            sess.run(tf.local_variables_initializer())
            sess.run(update, {values: [1.0, 3.0]})
            assert sess.run(update, {values: [5.0]}) == 3.0
            sess.run(tf.local_variables_initializer())
            assert sess.run(mean) == 0.0
            assert sess.run(update, {values: [7.0]}) == 7.0


def test_mean_with_batch_weights_and_names_in_scopes():
    with tf.Graph().as_default():
        with tf.variable_scope("eval"):
            acc, update = tf.metrics.accuracy([[1], [2], [3]], [[1], [0], [3]],
                                              weights=[[2.0], [1.0], [1.0]])
        assert acc.name == "eval/accuracy/value:0"
        assert [v.op.name for v in tf.local_variables()] == ["eval/accuracy/total",
                                                             "eval/accuracy/count"]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            assert sess.run(update) == pytest.approx(0.75)


@pytest.mark.parametrize("build, message", [
    (lambda: tf.metrics.auc([1], [0.5], summation_method="simpson"),
     "Invalid summation_method: simpson"),
    (lambda: tf.metrics.sensitivity_at_specificity([1], [0.5], 1.5),
     r"`specificity` must be in the range \[0, 1\]"),
    (lambda: tf.metrics.specificity_at_sensitivity([1], [0.5], -0.1),
     r"`sensitivity` must be in the range \[0, 1\]"),
    (lambda: tf.metrics.mean([1.0, 2.0], weights=[1.0, 2.0, 3.0]),
     "weights can not be broadcast to values"),
])
def test_argument_errors(build, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            build()


def test_auc_of_a_perfect_classifier_is_one():
    with tf.Graph().as_default():
        labels = np.array([0, 0, 1, 1, 0, 1])
        scores = np.array([0.1, 0.3, 0.8, 0.9, 0.2, 0.7], np.float32)
        roc, roc_up = tf.metrics.auc(labels, scores, num_thresholds=50)
        pr, pr_up = tf.metrics.auc(labels, scores, curve="PR",
                                   summation_method="careful_interpolation", name="pr")
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            got = sess.run([roc_up, pr_up])
    np.testing.assert_allclose(got, [1.0, 1.0], atol=1e-3)
