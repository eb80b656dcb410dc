"""Writes tf_losses_reference.json: values, op names, LOSSES collections and errors of
TensorFlow 2.21's `tf.compat.v1.losses`, for the tests here.

    python gen_tf_losses_reference.py tf_losses_reference.json   # with TensorFlow 2.21
"""

import json
import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import numpy as np  # noqa: E402 - after the environment variables
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_v2_behavior()
Ls = tf1.losses
Red = Ls.Reduction


def arr(shape, scale=1.0, shift=0.0):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.37 + shift) * scale).reshape(shape).astype(np.float32)


B, C = 4, 3
logits = arr([B, C], 2.0, 0.3)
onehot = np.eye(C, dtype=np.float32)[[0, 2, 1, 2]]
sparse = np.array([0, 2, 1, 2], np.int32)
probs = (1 / (1 + np.exp(-arr([B, C], 2.0, 1.1)))).astype(np.float32)
binl = np.array([[1, 0, 1], [0, 0, 1], [1, 1, 0], [0, 1, 0]], np.float32)
preds = arr([B, C], 1.5, 2.2)
labels = arr([B, C], 1.0, 3.3)
w_batch = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)
w_full = np.array([[1, 0, 2], [0, 0, 0], [0.5, 1, 1], [3, 0, 1]], np.float32)
w_vec = np.array([1.0, 0.0, 2.0, 0.5], np.float32)
unit_l = arr([B, C], 1.0, 4.4)
unit_l /= np.linalg.norm(unit_l, axis=1, keepdims=True)
unit_p = arr([B, C], 1.0, 5.5)
unit_p /= np.linalg.norm(unit_p, axis=1, keepdims=True)

R = {
    "inputs": {
        k: v.tolist()
        for k, v in dict(
            logits=logits,
            onehot=onehot,
            sparse=sparse,
            probs=probs,
            binl=binl,
            preds=preds,
            labels=labels,
            w_batch=w_batch,
            w_full=w_full,
            w_vec=w_vec,
            unit_l=unit_l,
            unit_p=unit_p,
        ).items()
    }
}
cases = {}
REDS = [
    "none",
    "sum",
    "mean",
    "sum_over_batch_size",
    "weighted_sum_by_nonzero_weights",
    "weighted_sum_over_batch_size",
]


def record(name, fn):
    g = tf1.Graph()
    with g.as_default():
        try:
            t = fn()
        except Exception as e:  # record TF's refusal
            cases[name] = {"exception": type(e).__name__, "message": str(e)}
            return
        with tf1.Session(graph=g) as s:
            v = s.run(t)
        cases[name] = {
            "value": np.asarray(v).tolist(),
            "name": t.name,
            "dtype": t.dtype.name,
            "losses": [x.name for x in tf1.get_collection(tf1.GraphKeys.LOSSES)],
            "ops": [o.name for o in g.get_operations()],
        }


for red in Red.all()[:5]:
    for wname, w in (("scalar", 2.0), ("batch", w_batch), ("full", w_full)):
        record(
            f"cwl_{red}_{wname}",
            lambda: Ls.compute_weighted_loss(tf.constant(preds), w, reduction=red),
        )
record(
    "cwl_default_zero_weights",
    lambda: Ls.compute_weighted_loss(tf.constant(preds), np.zeros([B, 1], np.float32)),
)
record(
    "cwl_bad_weights",
    lambda: Ls.compute_weighted_loss(tf.constant(preds), np.ones([3, 1], np.float32)),
)
record(
    "cwl_weights_rank3",
    lambda: Ls.compute_weighted_loss(tf.constant(preds), np.ones([B, C, 1], np.float32)),
)
record("cwl_int_losses", lambda: Ls.compute_weighted_loss(tf.constant([[1, 2]], tf.int32)))
record("softmax_xent", lambda: Ls.softmax_cross_entropy(onehot, logits))
record("softmax_xent_w", lambda: Ls.softmax_cross_entropy(onehot, logits, weights=w_vec))
record("softmax_xent_wb", lambda: Ls.softmax_cross_entropy(onehot, logits, weights=w_batch))
record("softmax_xent_ls", lambda: Ls.softmax_cross_entropy(onehot, logits, label_smoothing=0.2))
record(
    "softmax_xent_none",
    lambda: Ls.softmax_cross_entropy(onehot, logits, weights=w_vec, reduction=Red.NONE),
)
record(
    "softmax_xent_sum",
    lambda: Ls.softmax_cross_entropy(onehot, logits, weights=w_vec, reduction=Red.SUM),
)
record("softmax_xent_bad_shape", lambda: Ls.softmax_cross_entropy(onehot[:, :2], logits))
record("sparse_xent", lambda: Ls.sparse_softmax_cross_entropy(sparse, logits))
record("sparse_xent_w", lambda: Ls.sparse_softmax_cross_entropy(sparse, logits, weights=w_vec))
record(
    "sparse_xent_w2",
    lambda: Ls.sparse_softmax_cross_entropy(sparse[:, None], logits, weights=w_batch),
)
record(
    "sparse_xent_mean",
    lambda: Ls.sparse_softmax_cross_entropy(sparse, logits, weights=w_vec, reduction=Red.MEAN),
)
record("sigmoid_xent", lambda: Ls.sigmoid_cross_entropy(binl, logits))
record("sigmoid_xent_w", lambda: Ls.sigmoid_cross_entropy(binl, logits, weights=w_full))
record(
    "sigmoid_xent_ls",
    lambda: Ls.sigmoid_cross_entropy(binl, logits, label_smoothing=0.1, weights=w_batch),
)
record("sigmoid_xent_none", lambda: Ls.sigmoid_cross_entropy(binl, logits, reduction=Red.NONE))
record("mse", lambda: Ls.mean_squared_error(labels, preds))
record("mse_w", lambda: Ls.mean_squared_error(labels, preds, weights=w_full))
record(
    "mse_wb_sbs",
    lambda: Ls.mean_squared_error(
        labels, preds, weights=w_batch, reduction=Red.SUM_OVER_BATCH_SIZE
    ),
)
record("mse_bad", lambda: Ls.mean_squared_error(labels[:, :2], preds))
record("abs", lambda: Ls.absolute_difference(labels, preds))
record("abs_w", lambda: Ls.absolute_difference(labels, preds, weights=w_batch))
record("huber", lambda: Ls.huber_loss(labels, preds))
record("huber_d", lambda: Ls.huber_loss(labels, preds, weights=w_full, delta=0.5))
record("log_loss", lambda: Ls.log_loss(binl, probs))
record("log_loss_w", lambda: Ls.log_loss(binl, probs, weights=w_batch, epsilon=1e-3))
record("hinge", lambda: Ls.hinge_loss(binl, logits))
record("hinge_w", lambda: Ls.hinge_loss(binl, logits, weights=w_full))
record("cosine", lambda: Ls.cosine_distance(unit_l, unit_p, axis=1))
record("cosine_w", lambda: Ls.cosine_distance(unit_l, unit_p, axis=1, weights=w_batch))
record("cosine_dim", lambda: Ls.cosine_distance(unit_l, unit_p, dim=1, reduction=Red.NONE))
record("cosine_noaxis", lambda: Ls.cosine_distance(unit_l, unit_p))
record("mpse", lambda: Ls.mean_pairwise_squared_error(labels, preds))
record("mpse_w", lambda: Ls.mean_pairwise_squared_error(labels, preds, weights=w_vec))
record("mpse_w2", lambda: Ls.mean_pairwise_squared_error(labels, preds, weights=w_batch))
record("mse_int", lambda: Ls.mean_squared_error(tf.constant([[1, 2]]), tf.constant([[1, 3]])))
record(
    "mse_float64",
    lambda: Ls.mean_squared_error(labels.astype(np.float64), preds.astype(np.float64)),
)
record("mse_no_collection", lambda: Ls.mean_squared_error(labels, preds, loss_collection=None))
record("mse_labels_none", lambda: Ls.mean_squared_error(None, preds))

# collections and totals
g = tf1.Graph()
with g.as_default():
    v = tf1.get_variable(
        "w",
        initializer=tf.constant([1.0, -2.0, 3.0]),
        regularizer=lambda x: 0.5 * tf.reduce_sum(tf.square(x)),
    )
    v2 = tf1.get_variable(
        "w2", initializer=tf.constant([1.0, -1.0]), regularizer=lambda x: tf.reduce_sum(tf.abs(x))
    )
    a = Ls.mean_squared_error(labels, preds)
    b = Ls.absolute_difference(labels, preds, loss_collection="other")
    extra = tf.constant(5.0, name="extra")
    Ls.add_loss(extra)
    Ls.add_loss(tf.constant(7.0), loss_collection="other")
    rl = Ls.get_regularization_losses()
    rloss = Ls.get_regularization_loss()
    total = Ls.get_total_loss()
    total_noreg = Ls.get_total_loss(add_regularization_losses=False, name="total_noreg")
    other = Ls.get_losses(loss_collection="other")
    with tf1.Session() as s:
        s.run(tf1.global_variables_initializer())
        vals = s.run({"rloss": rloss, "total": total, "total_noreg": total_noreg, "a": a})
    R["totals"] = {
        "losses": [x.name for x in Ls.get_losses()],
        "reg_losses": [x.name for x in rl],
        "rloss_name": rloss.name,
        "total_name": total.name,
        "total_noreg_name": total_noreg.name,
        "other": [x.name for x in other],
        "values": {k: float(v) for k, v in vals.items()},
    }
g = tf1.Graph()
with g.as_default():
    z = Ls.get_regularization_loss()
    with tf1.Session() as s:
        R["empty_reg"] = {"name": z.name, "value": float(s.run(z))}
    try:
        Ls.get_total_loss()
    except Exception as e:
        R["empty_total"] = {"exception": type(e).__name__, "message": str(e)}
R["cases"] = cases
R["reduction"] = {k: getattr(Red, k) for k in dir(Red) if k.isupper()}
R["reduction_all"] = list(Red.all())
with open(sys.argv[1], "w") as f:
    json.dump(R, f)
