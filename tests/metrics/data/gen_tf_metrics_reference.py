"""Writes tf_metrics_reference.json: three streaming updates of TensorFlow 2.21's
`tf.compat.v1.metrics` (values, update results, variable and op names), for the tests here.

    python gen_tf_metrics_reference.py tf_metrics_reference.json   # with TensorFlow 2.21
"""

import json
import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import numpy as np  # noqa: E402 - after the environment variables
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_v2_behavior()
M = tf1.metrics

rng = np.random.RandomState(0)
N = 6
batches = []
for _ in range(3):
    labels_b = rng.randint(0, 2, size=[N]).astype(np.int64)
    preds_p = rng.uniform(size=[N]).astype(np.float32)
    batches.append(
        {
            "labels": labels_b.tolist(),
            "probs": preds_p.tolist(),
            "classes": rng.randint(0, 3, size=[N]).astype(np.int64).tolist(),
            "pred_classes": rng.randint(0, 3, size=[N]).astype(np.int64).tolist(),
            "values": rng.normal(size=[N]).astype(np.float32).tolist(),
            "targets": rng.normal(size=[N]).astype(np.float32).tolist(),
            "weights": np.round(rng.uniform(0, 2, size=[N]), 2).astype(np.float32).tolist(),
            "tvalues": rng.normal(size=[2, 3]).astype(np.float32).tolist(),
        }
    )
# make the first batch have a zero weight
batches[0]["weights"][1] = 0.0

R = {"batches": batches, "metrics": {}}


def record(name, build):
    g = tf1.Graph()
    with g.as_default():
        ph = {
            "labels": tf1.placeholder(tf.int64, [N], name="labels"),
            "probs": tf1.placeholder(tf.float32, [N], name="probs"),
            "classes": tf1.placeholder(tf.int64, [N], name="classes"),
            "pred_classes": tf1.placeholder(tf.int64, [N], name="pred_classes"),
            "values": tf1.placeholder(tf.float32, [N], name="values"),
            "targets": tf1.placeholder(tf.float32, [N], name="targets"),
            "weights": tf1.placeholder(tf.float32, [N], name="weights"),
            "tvalues": tf1.placeholder(tf.float32, [2, 3], name="tvalues"),
        }
        try:
            value, update = build(ph)
        except Exception as e:
            R["metrics"][name] = {"exception": type(e).__name__, "message": str(e)}
            return
        info = {
            "value_name": value.name,
            "update_name": update.name,
            "dtype": value.dtype.name,
            "local": [v.op.name for v in tf1.local_variables()],
            "metric_vars": [v.op.name for v in tf1.get_collection(tf1.GraphKeys.METRIC_VARIABLES)],
            "global": [v.op.name for v in tf1.global_variables()],
            "local_shapes": [v.shape.as_list() for v in tf1.local_variables()],
            "collections": {
                k: [getattr(x, "name", str(x)) for x in tf1.get_collection(k)] for k in ("mc", "uc")
            },
            "ops": [o.name + ":" + o.type for o in g.get_operations()],
        }
        with tf1.Session() as s:
            s.run(tf1.local_variables_initializer())
            info["initial"] = np.asarray(s.run(value)).tolist()
            ups, vals = [], []
            for b in batches:
                feed = {ph[k]: b[k] for k in ph}
                ups.append(np.asarray(s.run(update, feed)).tolist())
                vals.append(np.asarray(s.run(value)).tolist())
            info["updates"] = ups
            info["values"] = vals
        R["metrics"][name] = info


record("accuracy", lambda p: M.accuracy(p["classes"], p["pred_classes"]))
record(
    "accuracy_w",
    lambda p: M.accuracy(
        p["classes"],
        p["pred_classes"],
        weights=p["weights"],
        metrics_collections=["mc"],
        updates_collections=["uc"],
        name="acc",
    ),
)
record("mean", lambda p: M.mean(p["values"]))
record("mean_w", lambda p: M.mean(p["values"], weights=p["weights"]))
record("mean_tensor", lambda p: M.mean_tensor(p["tvalues"]))
record("mean_tensor_w", lambda p: M.mean_tensor(p["tvalues"], weights=tf.constant([[1.0], [0.5]])))
record("precision", lambda p: M.precision(p["labels"], p["probs"] > 0.5))
record("precision_w", lambda p: M.precision(p["labels"], p["probs"] > 0.5, weights=p["weights"]))
record("recall", lambda p: M.recall(p["labels"], p["probs"] > 0.5))
record("recall_w", lambda p: M.recall(p["labels"], p["probs"] > 0.5, weights=p["weights"]))
record("true_positives", lambda p: M.true_positives(p["labels"], p["probs"] > 0.5))
record(
    "false_positives",
    lambda p: M.false_positives(p["labels"], p["probs"] > 0.5, weights=p["weights"]),
)
record("true_negatives", lambda p: M.true_negatives(p["labels"], p["probs"] > 0.5))
record("false_negatives", lambda p: M.false_negatives(p["labels"], p["probs"] > 0.5))
record("auc", lambda p: M.auc(p["labels"], p["probs"]))
record("auc_w", lambda p: M.auc(p["labels"], p["probs"], weights=p["weights"], num_thresholds=50))
record("auc_pr", lambda p: M.auc(p["labels"], p["probs"], curve="PR"))
record(
    "auc_pr_trap",
    lambda p: M.auc(p["labels"], p["probs"], curve="PR", summation_method="trapezoidal"),
)
record(
    "auc_minoring",
    lambda p: M.auc(p["labels"], p["probs"], summation_method="minoring", num_thresholds=20),
)
record(
    "auc_majoring",
    lambda p: M.auc(p["labels"], p["probs"], summation_method="majoring", num_thresholds=20),
)
record("auc_thresholds", lambda p: M.auc(p["labels"], p["probs"], thresholds=[0.25, 0.5, 0.75]))
record("mse", lambda p: M.mean_squared_error(p["targets"], p["values"]))
record("mse_w", lambda p: M.mean_squared_error(p["targets"], p["values"], weights=p["weights"]))
record("mae", lambda p: M.mean_absolute_error(p["targets"], p["values"]))
record("rmse", lambda p: M.root_mean_squared_error(p["targets"], p["values"]))
record(
    "mre",
    lambda p: M.mean_relative_error(
        p["targets"], p["values"], normalizer=tf.abs(p["targets"]) + 1.0
    ),
)
record("percentage_below", lambda p: M.percentage_below(p["values"], 0.3))
record(
    "tp_at_thresholds",
    lambda p: M.true_positives_at_thresholds(p["labels"], p["probs"], [0.2, 0.5, 0.8]),
)
record(
    "fp_at_thresholds",
    lambda p: M.false_positives_at_thresholds(p["labels"], p["probs"], [0.2, 0.5, 0.8]),
)
record(
    "tn_at_thresholds",
    lambda p: M.true_negatives_at_thresholds(p["labels"], p["probs"], [0.2, 0.5, 0.8]),
)
record(
    "fn_at_thresholds",
    lambda p: M.false_negatives_at_thresholds(
        p["labels"], p["probs"], [0.2, 0.5, 0.8], weights=p["weights"]
    ),
)
record(
    "precision_at_thresholds",
    lambda p: M.precision_at_thresholds(p["labels"], p["probs"], [0.2, 0.5, 0.8]),
)
record(
    "recall_at_thresholds",
    lambda p: M.recall_at_thresholds(p["labels"], p["probs"], [0.2, 0.5, 0.8]),
)
record("mean_iou", lambda p: M.mean_iou(p["classes"], p["pred_classes"], 3))
record(
    "mean_per_class_accuracy",
    lambda p: M.mean_per_class_accuracy(p["classes"], p["pred_classes"], 3),
)
record(
    "mean_cosine_distance",
    lambda p: M.mean_cosine_distance(
        tf.nn.l2_normalize(p["tvalues"], 1), tf.nn.l2_normalize(p["tvalues"][::-1], 1), dim=1
    ),
)
record(
    "sensitivity_at_specificity",
    lambda p: M.sensitivity_at_specificity(p["labels"], p["probs"], 0.5, num_thresholds=20),
)
record(
    "specificity_at_sensitivity",
    lambda p: M.specificity_at_sensitivity(p["labels"], p["probs"], 0.5, num_thresholds=20),
)
record("accuracy_bad_shape", lambda p: M.accuracy(p["classes"], p["tvalues"]))
record("auc_bad_curve", lambda p: M.auc(p["labels"], p["probs"], curve="XX"))
with open(sys.argv[1], "w") as f:
    json.dump(R, f)
