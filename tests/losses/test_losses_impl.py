"""tf.losses loss functions and compute_weighted_loss against TensorFlow 2.21: values,
output names, dtypes, the LOSSES collection, op names and error messages."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

R = tf.losses.Reduction


def _cases(i):
    """name -> fn building the loss, one entry per case of the generator."""
    L = tf.losses
    preds, labels, logits = i["preds"], i["labels"], i["logits"]
    onehot, sparse, binl, probs = i["onehot"], i["sparse"], i["binl"], i["probs"]
    w_batch, w_full, w_vec = i["w_batch"], i["w_full"], i["w_vec"]
    unit_l, unit_p = i["unit_l"], i["unit_p"]
    cases = {}
    for red in R.all()[:5]:
        for wname, w in (("scalar", 2.0), ("batch", w_batch), ("full", w_full)):
            cases[f"cwl_{red}_{wname}"] = (
                lambda red=red, w=w: L.compute_weighted_loss(tf.constant(preds), w,
                                                             reduction=red))
    cases.update({
        "cwl_default_zero_weights": lambda: L.compute_weighted_loss(
            tf.constant(preds), np.zeros([4, 1], np.float32)),
        "cwl_bad_weights": lambda: L.compute_weighted_loss(tf.constant(preds),
                                                           np.ones([3, 1], np.float32)),
        "cwl_weights_rank3": lambda: L.compute_weighted_loss(tf.constant(preds),
                                                             np.ones([4, 3, 1], np.float32)),
        "cwl_int_losses": lambda: L.compute_weighted_loss(tf.constant([[1, 2]], tf.int32)),
        "softmax_xent": lambda: L.softmax_cross_entropy(onehot, logits),
        "softmax_xent_w": lambda: L.softmax_cross_entropy(onehot, logits, weights=w_vec),
        "softmax_xent_wb": lambda: L.softmax_cross_entropy(onehot, logits, weights=w_batch),
        "softmax_xent_ls": lambda: L.softmax_cross_entropy(onehot, logits,
                                                           label_smoothing=0.2),
        "softmax_xent_none": lambda: L.softmax_cross_entropy(onehot, logits, weights=w_vec,
                                                             reduction=R.NONE),
        "softmax_xent_sum": lambda: L.softmax_cross_entropy(onehot, logits, weights=w_vec,
                                                            reduction=R.SUM),
        "softmax_xent_bad_shape": lambda: L.softmax_cross_entropy(onehot[:, :2], logits),
        "sparse_xent": lambda: L.sparse_softmax_cross_entropy(sparse, logits),
        "sparse_xent_w": lambda: L.sparse_softmax_cross_entropy(sparse, logits, weights=w_vec),
        "sparse_xent_w2": lambda: L.sparse_softmax_cross_entropy(sparse[:, None], logits,
                                                                 weights=w_batch),
        "sparse_xent_mean": lambda: L.sparse_softmax_cross_entropy(sparse, logits,
                                                                   weights=w_vec,
                                                                   reduction=R.MEAN),
        "sigmoid_xent": lambda: L.sigmoid_cross_entropy(binl, logits),
        "sigmoid_xent_w": lambda: L.sigmoid_cross_entropy(binl, logits, weights=w_full),
        "sigmoid_xent_ls": lambda: L.sigmoid_cross_entropy(binl, logits, label_smoothing=0.1,
                                                           weights=w_batch),
        "sigmoid_xent_none": lambda: L.sigmoid_cross_entropy(binl, logits, reduction=R.NONE),
        "mse": lambda: L.mean_squared_error(labels, preds),
        "mse_w": lambda: L.mean_squared_error(labels, preds, weights=w_full),
        "mse_wb_sbs": lambda: L.mean_squared_error(labels, preds, weights=w_batch,
                                                   reduction=R.SUM_OVER_BATCH_SIZE),
        "mse_bad": lambda: L.mean_squared_error(labels[:, :2], preds),
        "abs": lambda: L.absolute_difference(labels, preds),
        "abs_w": lambda: L.absolute_difference(labels, preds, weights=w_batch),
        "huber": lambda: L.huber_loss(labels, preds),
        "huber_d": lambda: L.huber_loss(labels, preds, weights=w_full, delta=0.5),
        "log_loss": lambda: L.log_loss(binl, probs),
        "log_loss_w": lambda: L.log_loss(binl, probs, weights=w_batch, epsilon=1e-3),
        "hinge": lambda: L.hinge_loss(binl, logits),
        "hinge_w": lambda: L.hinge_loss(binl, logits, weights=w_full),
        "cosine": lambda: L.cosine_distance(unit_l, unit_p, axis=1),
        "cosine_w": lambda: L.cosine_distance(unit_l, unit_p, axis=1, weights=w_batch),
        "cosine_dim": lambda: L.cosine_distance(unit_l, unit_p, dim=1, reduction=R.NONE),
        "cosine_noaxis": lambda: L.cosine_distance(unit_l, unit_p),
        "mpse": lambda: L.mean_pairwise_squared_error(labels, preds),
        "mpse_w": lambda: L.mean_pairwise_squared_error(labels, preds, weights=w_vec),
        "mpse_w2": lambda: L.mean_pairwise_squared_error(labels, preds, weights=w_batch),
        "mse_int": lambda: L.mean_squared_error(tf.constant([[1, 2]]), tf.constant([[1, 3]])),
        "mse_float64": lambda: L.mean_squared_error(labels.astype(np.float64),
                                                    preds.astype(np.float64)),
        "mse_no_collection": lambda: L.mean_squared_error(labels, preds,
                                                          loss_collection=None),
        "mse_labels_none": lambda: L.mean_squared_error(None, preds),
    })
    return cases


def test_every_reference_case_is_covered(losses_ref):
    assert sorted(_cases(losses_ref["inputs"])) == sorted(losses_ref["cases"])


@pytest.mark.parametrize("name", sorted(_cases({k: np.zeros([4, 3]) for k in (
    "preds labels logits onehot sparse binl probs w_batch w_full w_vec unit_l unit_p").split()})))
def test_loss_matches_tf(losses_ref, name):
    ref = losses_ref["cases"][name]
    build = _cases(losses_ref["inputs"])[name]
    g = tf.Graph()
    with g.as_default():
        if "exception" in ref:
            with pytest.raises(ValueError) as info:
                build()
            assert type(info.value).__name__ == ref["exception"]
            assert str(info.value) == ref["message"]
            return
        loss = build()
        assert (loss.name, loss.dtype.name) == (ref["name"], ref["dtype"])
        assert [t.name for t in tf.get_collection(tf.GraphKeys.LOSSES)] == ref["losses"]
        # Op names match TF's, except inside the cross-entropy ops (tf.nn's business).
        ours = {op.name for op in g.get_operations() if "/xentropy" not in op.name}
        assert ours == {n for n in ref["ops"] if "/xentropy" not in n}
        with tf.Session() as sess:
            value = sess.run(loss)
    np.testing.assert_allclose(value, ref["value"], rtol=2e-6, atol=1e-7)


def test_reduction_keys_match_tf(losses_ref):
    assert {k: getattr(R, k) for k in losses_ref["reduction"]} == losses_ref["reduction"]
    assert list(R.all()) == losses_ref["reduction_all"]
    with pytest.raises(ValueError, match="Invalid Reduction Key sum"):
        R.validate("sum")


def test_dynamic_weights_are_checked_at_run_time():
    with tf.Graph().as_default():
        w = tf.placeholder(tf.float32, None)
        loss = tf.losses.absolute_difference(tf.zeros([2, 3]), tf.ones([2, 3]), weights=w)
        with tf.Session() as sess:
            assert sess.run(loss, {w: [[1.0], [0.0]]}) == pytest.approx(1.0)
            assert sess.run(loss, {w: 3.0}) == pytest.approx(3.0)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="weights can not be broadcast to values"):
                sess.run(loss, {w: [1.0, 2.0, 3.0, 4.0]})


def test_losses_are_differentiable_where_tf_says():
    with tf.Graph().as_default():
        logits = tf.constant([[1.0, 2.0, 0.5]])
        loss = tf.losses.softmax_cross_entropy([[0.0, 1.0, 0.0]], logits)
        (grad,) = tf.gradients(loss, [logits])
        with tf.Session() as sess:
            got = sess.run(grad)
    p = np.exp([1.0, 2.0, 0.5]) / np.exp([1.0, 2.0, 0.5]).sum()
    np.testing.assert_allclose(got[0], p - [0, 1, 0], rtol=1e-5)
