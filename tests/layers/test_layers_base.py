"""The tf.layers.Layer base class: scopes, unique names, weights, losses and updates."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf


class ScaleLayer(tf.layers.Layer):
    """A tiny custom layer: one weight, an update and a loss."""

    def build(self, input_shape):
        self.w = self.add_weight("w", [input_shape.as_list()[-1]],
                                 initializer=tf.ones_initializer(),
                                 regularizer=lambda v: tf.reduce_sum(v))
        self.counter = self.add_weight("counter", [], initializer=tf.zeros_initializer(),
                                       trainable=False)
        self.built = True

    def call(self, inputs):
        self.add_update(tf.assign_add(self.counter, 1.0))
        return inputs * self.w


def test_custom_layer_scopes_weights_losses_updates():
    g = tf.Graph()
    with g.as_default():
        layer = ScaleLayer()
        assert layer.name == "scale_layer"
        with pytest.raises(ValueError, match="has not been used yet"):
            layer.scope_name
        y = layer(tf.ones([2, 3]))
        y2 = layer(tf.ones([2, 3]))
        assert layer.scope_name == "scale_layer"
        assert [v.op.name for v in layer.trainable_weights] == ["scale_layer/w"]
        assert [v.op.name for v in layer.non_trainable_weights] == ["scale_layer/counter"]
        assert [v.op.name for v in tf.trainable_variables()] == ["scale_layer/w"]
        assert [t.name for t in layer.losses] == ["scale_layer/w/Regularizer/Sum:0"]
        assert [o.name for o in layer.updates] == ["scale_layer/AssignAdd",
                                                   "scale_layer/AssignAdd_1"]
        assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == layer.updates
        assert (y.name, y2.name) == ("scale_layer/mul:0", "scale_layer/mul_1:0")
        assert layer.count_params() == 4
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(layer.updates)
            assert sess.run(layer.counter) == 2.0


def test_scope_argument_and_variable_scope_name():
    with tf.Graph().as_default():
        layer = tf.layers.Dense(2)
        layer(tf.ones([1, 3]), scope="custom")
        assert layer.kernel.op.name == "custom/kernel"
        with tf.variable_scope("shared") as scope:
            pass
        named = tf.layers.Dense(2, name=scope)
        named(tf.ones([1, 3]))
        assert named.kernel.op.name.endswith("kernel")


def test_unique_layer_names_are_per_graph():
    with tf.Graph().as_default():
        assert [tf.layers.Dense(1).name for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    with tf.Graph().as_default():
        assert tf.layers.Dense(1).name == "dense"


def test_default_names_ignore_name_scopes_but_ops_follow_them():
    with tf.Graph().as_default():
        with tf.name_scope("tower_0"):
            a = tf.layers.dense(tf.ones([1, 2]), 1)
        with tf.name_scope("tower_1"):
            b = tf.layers.dense(tf.ones([1, 2]), 1)
        assert [v.op.name for v in tf.global_variables()] == [
            "dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]
        assert (a.op.name, b.op.name) == ("tower_0/dense/BiasAdd", "tower_1/dense/BiasAdd")


def test_auto_reuse_scope_shares_layer_variables():
    with tf.Graph().as_default():
        for _ in range(2):
            with tf.variable_scope("model", reuse=tf.AUTO_REUSE):
                tf.layers.dense(tf.ones([1, 2]), 3, name="fc")
        assert [v.op.name for v in tf.global_variables()] == ["model/fc/kernel",
                                                              "model/fc/bias"]


def test_partitioned_kernel_through_scope_partitioner():
    with tf.Graph().as_default():
        with tf.variable_scope("p", partitioner=tf.fixed_size_partitioner(2)):
            y = tf.layers.dense(tf.ones([1, 4]), 3, kernel_initializer=tf.ones_initializer(),
                                use_bias=False)
        names = [v.op.name for v in tf.global_variables()]
        assert names == ["p/dense/kernel/part_0", "p/dense/kernel/part_1"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(y), np.full([1, 3], 4.0))


def test_bad_keyword_and_count_params_before_build():
    with pytest.raises(TypeError, match="Keyword argument not understood"):
        tf.layers.Dense(2, bogus=1)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="isn't built"):
            tf.layers.Dense(2).count_params()


def test_activity_regularizer_is_averaged_over_the_batch():
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
        layer = tf.layers.Dense(1, kernel_initializer=tf.ones_initializer(), use_bias=False,
                                activity_regularizer=lambda t: tf.reduce_sum(t))
        layer(x)
        (loss,) = layer.losses
        assert loss.op.name == "dense/ActivityRegularizer/truediv"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(loss) == pytest.approx(36.0 / 4)
