"""tf.losses collection helpers: add_loss, get_losses, get_regularization_loss(es) and
get_total_loss, against TensorFlow's names and values."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


def test_totals_match_tf(losses_ref):
    ref = losses_ref["totals"]
    i = losses_ref["inputs"]
    L = tf.losses
    with tf.Graph().as_default():
        tf.get_variable("w", initializer=tf.constant([1.0, -2.0, 3.0]),
                        regularizer=lambda x: 0.5 * tf.reduce_sum(tf.square(x)))
        tf.get_variable("w2", initializer=tf.constant([1.0, -1.0]),
                        regularizer=lambda x: tf.reduce_sum(tf.abs(x)))
        a = L.mean_squared_error(i["labels"], i["preds"])
        L.absolute_difference(i["labels"], i["preds"], loss_collection="other")
        L.add_loss(tf.constant(5.0, name="extra"))
        L.add_loss(tf.constant(7.0), loss_collection="other")
        rloss = L.get_regularization_loss()
        total = L.get_total_loss()
        total_noreg = L.get_total_loss(add_regularization_losses=False, name="total_noreg")
        assert [t.name for t in L.get_losses()] == ref["losses"]
        assert [t.name for t in L.get_regularization_losses()] == ref["reg_losses"]
        other = [t.name for t in L.get_losses(loss_collection="other")]
        # The second is an anonymous Const: TF's graph has two more root Consts before it.
        assert other[0] == ref["other"][0] and other[1].startswith("Const_")
        assert (rloss.name, total.name, total_noreg.name) == (
            ref["rloss_name"], ref["total_name"], ref["total_noreg_name"])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run({"rloss": rloss, "total": total, "total_noreg": total_noreg, "a": a})
    for key, want in ref["values"].items():
        assert got[key] == pytest.approx(want, rel=1e-6), key


def test_empty_collections_match_tf(losses_ref):
    with tf.Graph().as_default():
        zero = tf.losses.get_regularization_loss()
        assert zero.name == losses_ref["empty_reg"]["name"]
        with tf.Session() as sess:
            assert sess.run(zero) == losses_ref["empty_reg"]["value"]
        with pytest.raises(ValueError) as info:
            tf.losses.get_total_loss()
        assert str(info.value) == losses_ref["empty_total"]["message"]


def test_scope_filters_and_add_loss_without_collection():
    with tf.Graph().as_default():
        with tf.name_scope("tower_0"):
            a = tf.losses.mean_squared_error([1.0], [2.0])
        with tf.name_scope("tower_1"):
            b = tf.losses.mean_squared_error([1.0], [3.0])
        tf.losses.add_loss(tf.constant(1.0), loss_collection=None)
        assert tf.losses.get_losses() == [a, b]
        assert tf.losses.get_losses(scope="tower_1") == [b]
        total = tf.losses.get_total_loss(scope="tower_0")
        with tf.Session() as sess:
            assert sess.run(total) == pytest.approx(1.0)
        assert np.isclose(tf.Session().run(b), 4.0)
