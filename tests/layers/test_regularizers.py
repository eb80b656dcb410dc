"""trainflow._src.ops.state.regularizers (exposed as trainflow.regularizers): Keras-style and
contrib-style weight penalties, alone and through tf.layers / tf.get_variable."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.state import regularizers

_W = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)


def _value(fn):
    with tf.Graph().as_default():
        out = fn(tf.constant(_W))
        if out is None:
            return None
        with tf.Session() as sess:
            return sess.run(out)


@pytest.mark.parametrize("reg, want", [
    (regularizers.l1(0.1), 0.1 * np.abs(_W).sum()),
    (regularizers.l2(0.1), 0.1 * np.square(_W).sum()),
    (regularizers.l1_l2(0.1, 0.2), 0.1 * np.abs(_W).sum() + 0.2 * np.square(_W).sum()),
    (regularizers.L1L2(), 0.0),
    (regularizers.get("l2"), 0.01 * np.square(_W).sum()),
    (regularizers.l1_regularizer(0.5), 0.5 * np.abs(_W).sum()),
    (regularizers.l2_regularizer(0.5), 0.5 * 0.5 * np.square(_W).sum()),
    (regularizers.l1_l2_regularizer(0.5, 0.25),
     0.5 * np.abs(_W).sum() + 0.25 * 0.5 * np.square(_W).sum()),
])
def test_penalty_values(reg, want):
    assert _value(reg) == pytest.approx(want, rel=1e-6)


def test_zero_scale_gives_no_penalty_and_bad_scales_raise():
    assert _value(regularizers.l2_regularizer(0.0)) is None
    assert _value(regularizers.l1_l2_regularizer(0.0, 0.0)) is None
    with pytest.raises(ValueError, match="scale cannot be an integer"):
        regularizers.l1_regularizer(2)
    with pytest.raises(ValueError, match="less than 0"):
        regularizers.l2_regularizer(-0.1)
    with pytest.raises(ValueError, match="Could not interpret regularizer"):
        regularizers.get("l3")


def test_contrib_names_and_config_round_trip():
    with tf.Graph().as_default():
        w = tf.constant(_W)
        assert regularizers.l2_regularizer(0.5)(w).op.name == "l2_regularizer"
        assert regularizers.l1_regularizer(0.5, scope="pen")(w).op.name == "pen"
    reg = regularizers.L1L2.from_config(regularizers.l1_l2(0.3, 0.4).get_config())
    assert (reg.l1, reg.l2) == (0.3, 0.4)


def test_layer_and_get_variable_regularizers_reach_the_collection():
    with tf.Graph().as_default():
        tf.layers.dense(tf.ones([1, 2]), 2, kernel_initializer=tf.ones_initializer(),
                        kernel_regularizer=regularizers.l2(0.5),
                        bias_regularizer=regularizers.l1_regularizer(1.0))
        tf.get_variable("v", initializer=tf.constant([3.0, 4.0]),
                        regularizer=regularizers.l2_regularizer(1.0))
        losses = tf.losses.get_regularization_losses()
        assert [t.op.name.split("/")[:3] for t in losses] == [
            ["dense", "kernel", "Regularizer"], ["dense", "bias", "Regularizer"],
            ["v", "Regularizer", "l2_regularizer"]]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(losses), [2.0, 0.0, 12.5])


def test_apply_regularization_sums_into_the_collection():
    with tf.Graph().as_default():
        a = tf.constant([1.0, -1.0])
        b = tf.constant([2.0])
        total = regularizers.apply_regularization(regularizers.l1_regularizer(1.0), [a, b])
        assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == [total]
        with tf.Session() as sess:
            assert sess.run(total) == 4.0
        with pytest.raises(ValueError, match="No weights to regularize"):
            regularizers.apply_regularization(regularizers.l1_regularizer(1.0))
