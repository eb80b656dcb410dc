"""Training small tf.layers models with GradientDescentOptimizer: the loss trajectory
matches TensorFlow's and the batch-norm update ops move the moving averages."""
import numpy as np

import trainflow.compat.v1 as tf
from trainflow._src.ops.state import regularizers


def _minimize(loss, learning_rate):
    """The train op, run after the UPDATE_OPS (the batch-norm moving averages)."""
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        return tf.train.GradientDescentOptimizer(learning_rate).minimize(loss)


def test_dense_batch_norm_model_trains_like_tf(layers_ref, arr):
    ref = layers_ref["train"]
    ci = tf.constant_initializer
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        labels = tf.placeholder(tf.int32, [None], name="labels")
        h = tf.layers.dense(x, 8, activation=tf.nn.relu, kernel_initializer=ci(arr([4, 8], 0.05)))
        h = tf.layers.batch_normalization(h, training=True)
        logits = tf.layers.dense(h, 3, kernel_initializer=ci(arr([8, 3], 0.05, 1.0)))
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train = _minimize(loss, 0.1)
        feed = {x: ref["x"], labels: ref["labels"]}
        moving_mean = tf.get_default_graph().get_tensor_by_name(
            "batch_normalization/moving_mean:0")
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            start = sess.run(moving_mean)
            for _ in range(5):
                losses.append(sess.run(loss, feed))
                sess.run(train, feed)
            assert np.abs(sess.run(moving_mean) - start).max() > 1e-3
    np.testing.assert_allclose(losses, ref["losses"], rtol=1e-5)
    assert losses[-1] < losses[0]


def test_conv_pool_model_trains_like_tf(layers_ref, arr):
    ref = layers_ref["train_conv"]
    ci = tf.constant_initializer
    L = tf.layers
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, 6, 6, 2], name="x")
        labels = tf.placeholder(tf.int32, [4], name="labels")
        h = L.conv2d(x, 4, 3, padding="same", activation=tf.nn.relu,
                     kernel_initializer=ci(arr([3, 3, 2, 4], 0.03)))
        h = L.batch_normalization(h, training=True)
        h = L.max_pooling2d(h, 2, 2)
        h = L.flatten(h)
        h = L.dropout(h, 0.5, training=False)
        logits = L.dense(h, 3, kernel_initializer=ci(arr([36, 3], 0.03, 1.0)))
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train = _minimize(loss, 0.2)
        feed = {x: ref["x"], labels: ref["labels"]}
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(4):
                losses.append(sess.run(loss, feed))
                sess.run(train, feed)
            moving_variance = sess.run(
                tf.get_default_graph().get_tensor_by_name("batch_normalization/moving_variance:0"))
    np.testing.assert_allclose(losses, ref["losses"], rtol=1e-4)
    np.testing.assert_allclose(moving_variance, ref["moving_variance"], rtol=1e-4)


def test_regularized_model_total_loss_includes_penalties():
    with tf.Graph().as_default():
        x = tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
        y = tf.constant([[1.0], [0.0], [1.0], [0.0]])
        out = tf.layers.dense(x, 1, kernel_regularizer=regularizers.l2(0.1))
        tf.losses.mean_squared_error(y, out)
        total = tf.losses.get_total_loss()
        train = _minimize(total, 0.5)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(total)
            for _ in range(20):
                sess.run(train)
            assert sess.run(total) < first
