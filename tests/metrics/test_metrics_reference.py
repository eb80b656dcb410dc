"""Every tf.metrics function against TensorFlow 2.21 over three streaming batches:
value and update results, variable names and shapes, collections and op names."""
import re

import numpy as np
import pytest

import trainflow.compat.v1 as tf

M = tf.metrics
N = 6
# Op-name differences that come from ops outside tf.metrics (tf.nn.l2_normalize names its
# epsilon differently) or from TF computing the same abs() twice.
_KNOWN_DIFFERENCES = re.compile(r"l2_normalize(_1)?/(Maximum/y|Const)|"
                                r"specificity_at_sensitivity/(Abs_[23]|sub_[23](/y)?)$|"
                                r"mean_iou/(Cast/x|Cast_4|confusion_matrix/.*)$")

_CASES = {
    "accuracy": lambda p: M.accuracy(p["classes"], p["pred_classes"]),
    "accuracy_w": lambda p: M.accuracy(p["classes"], p["pred_classes"], weights=p["weights"],
                                       metrics_collections=["mc"], updates_collections=["uc"],
                                       name="acc"),
    "mean": lambda p: M.mean(p["values"]),
    "mean_w": lambda p: M.mean(p["values"], weights=p["weights"]),
    "mean_tensor": lambda p: M.mean_tensor(p["tvalues"]),
    "mean_tensor_w": lambda p: M.mean_tensor(p["tvalues"], weights=tf.constant([[1.0], [0.5]])),
    "precision": lambda p: M.precision(p["labels"], p["probs"] > 0.5),
    "precision_w": lambda p: M.precision(p["labels"], p["probs"] > 0.5, weights=p["weights"]),
    "recall": lambda p: M.recall(p["labels"], p["probs"] > 0.5),
    "recall_w": lambda p: M.recall(p["labels"], p["probs"] > 0.5, weights=p["weights"]),
    "true_positives": lambda p: M.true_positives(p["labels"], p["probs"] > 0.5),
    "false_positives": lambda p: M.false_positives(p["labels"], p["probs"] > 0.5,
                                                   weights=p["weights"]),
    "true_negatives": lambda p: M.true_negatives(p["labels"], p["probs"] > 0.5),
    "false_negatives": lambda p: M.false_negatives(p["labels"], p["probs"] > 0.5),
    "auc": lambda p: M.auc(p["labels"], p["probs"]),
    "auc_w": lambda p: M.auc(p["labels"], p["probs"], weights=p["weights"], num_thresholds=50),
    "auc_pr": lambda p: M.auc(p["labels"], p["probs"], curve="PR"),
    "auc_pr_trap": lambda p: M.auc(p["labels"], p["probs"], curve="PR",
                                   summation_method="trapezoidal"),
    "auc_minoring": lambda p: M.auc(p["labels"], p["probs"], summation_method="minoring",
                                    num_thresholds=20),
    "auc_majoring": lambda p: M.auc(p["labels"], p["probs"], summation_method="majoring",
                                    num_thresholds=20),
    "auc_thresholds": lambda p: M.auc(p["labels"], p["probs"], thresholds=[0.25, 0.5, 0.75]),
    "mse": lambda p: M.mean_squared_error(p["targets"], p["values"]),
    "mse_w": lambda p: M.mean_squared_error(p["targets"], p["values"], weights=p["weights"]),
    "mae": lambda p: M.mean_absolute_error(p["targets"], p["values"]),
    "rmse": lambda p: M.root_mean_squared_error(p["targets"], p["values"]),
    "mre": lambda p: M.mean_relative_error(p["targets"], p["values"],
                                           normalizer=tf.abs(p["targets"]) + 1.0),
    "percentage_below": lambda p: M.percentage_below(p["values"], 0.3),
    "tp_at_thresholds": lambda p: M.true_positives_at_thresholds(p["labels"], p["probs"],
                                                                 [0.2, 0.5, 0.8]),
    "fp_at_thresholds": lambda p: M.false_positives_at_thresholds(p["labels"], p["probs"],
                                                                  [0.2, 0.5, 0.8]),
    "tn_at_thresholds": lambda p: M.true_negatives_at_thresholds(p["labels"], p["probs"],
                                                                 [0.2, 0.5, 0.8]),
    "fn_at_thresholds": lambda p: M.false_negatives_at_thresholds(
        p["labels"], p["probs"], [0.2, 0.5, 0.8], weights=p["weights"]),
    "precision_at_thresholds": lambda p: M.precision_at_thresholds(p["labels"], p["probs"],
                                                                   [0.2, 0.5, 0.8]),
    "recall_at_thresholds": lambda p: M.recall_at_thresholds(p["labels"], p["probs"],
                                                             [0.2, 0.5, 0.8]),
    "mean_iou": lambda p: M.mean_iou(p["classes"], p["pred_classes"], 3),
    "mean_per_class_accuracy": lambda p: M.mean_per_class_accuracy(p["classes"],
                                                                   p["pred_classes"], 3),
    "mean_cosine_distance": lambda p: M.mean_cosine_distance(
        tf.nn.l2_normalize(p["tvalues"], 1), tf.nn.l2_normalize(p["tvalues"][::-1], 1), dim=1),
    "sensitivity_at_specificity": lambda p: M.sensitivity_at_specificity(
        p["labels"], p["probs"], 0.5, num_thresholds=20),
    "specificity_at_sensitivity": lambda p: M.specificity_at_sensitivity(
        p["labels"], p["probs"], 0.5, num_thresholds=20),
    "accuracy_bad_shape": lambda p: M.accuracy(p["classes"], p["tvalues"]),
    "auc_bad_curve": lambda p: M.auc(p["labels"], p["probs"], curve="XX"),
}


def _placeholders():
    spec = {"labels": (tf.int64, [N]), "probs": (tf.float32, [N]),
            "classes": (tf.int64, [N]), "pred_classes": (tf.int64, [N]),
            "values": (tf.float32, [N]), "targets": (tf.float32, [N]),
            "weights": (tf.float32, [N]), "tvalues": (tf.float32, [2, 3])}
    return {k: tf.placeholder(d, s, name=k) for k, (d, s) in spec.items()}


def test_every_reference_case_is_covered(metrics_ref):
    assert sorted(_CASES) == sorted(metrics_ref["metrics"])


@pytest.mark.parametrize("name", sorted(_CASES))
def test_metric_matches_tf(metrics_ref, name):
    ref = metrics_ref["metrics"][name]
    g = tf.Graph()
    with g.as_default():
        ph = _placeholders()
        if "exception" in ref:
            with pytest.raises(ValueError) as info:
                _CASES[name](ph)
            assert str(info.value) == ref["message"]
            return
        value, update = _CASES[name](ph)
        assert (value.name, update.name, value.dtype.name) == (
            ref["value_name"], ref["update_name"], ref["dtype"])
        assert [v.op.name for v in tf.local_variables()] == ref["local"]
        assert [v.op.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)] == \
            ref["metric_vars"]
        assert [v.op.name for v in tf.global_variables()] == ref["global"] == []
        assert [v.shape.as_list() for v in tf.local_variables()] == ref["local_shapes"]
        assert {k: [x.name for x in tf.get_collection(k)] for k in ("mc", "uc")} == \
            ref["collections"]
        ours = {f"{op.name}:{op.type}" for op in g.get_operations()}
        unexplained = [n for n in ours ^ set(ref["ops"])
                       if not _KNOWN_DIFFERENCES.search(n.split(":")[0])]
        assert not unexplained
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            np.testing.assert_allclose(sess.run(value), ref["initial"])
            for batch, want_update, want_value in zip(metrics_ref["batches"], ref["updates"],
                                                      ref["values"]):
                feed = {ph[k]: batch[k] for k in ph}
                np.testing.assert_allclose(sess.run(update, feed), want_update, rtol=1e-6,
                                           atol=1e-7)
                np.testing.assert_allclose(sess.run(value), want_value, rtol=1e-6, atol=1e-7)
