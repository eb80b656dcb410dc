"""Models of the kinds TF1 programs train: a CIFAR-style convnet and a word2vec-style
embedding model, trained with tf.train optimizers on synthetic data; the loss falls."""
import numpy as np

import trainflow.compat.v1 as tf


def _weight(name, shape, stddev, wd=None):
    var = tf.get_variable(name, shape, initializer=tf.truncated_normal_initializer(
        stddev=stddev, seed=1))
    if wd is not None:
        tf.add_to_collection("losses", tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss"))
    return var


def _cifar_like_graph(batch, classes):
    images = tf.placeholder(tf.float32, [batch, 16, 16, 3], name="images")
    labels = tf.placeholder(tf.int64, [batch], name="labels")
    with tf.variable_scope("conv1"):
        kernel = _weight("weights", [5, 5, 3, 16], 5e-2)
        bias = tf.get_variable("biases", [16], initializer=tf.constant_initializer(0.0))
        conv1 = tf.nn.relu(tf.nn.bias_add(
            tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding="SAME"), bias))
    pool1 = tf.nn.max_pool(conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
    norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75)
    with tf.variable_scope("conv2"):
        kernel = _weight("weights", [5, 5, 16, 16], 5e-2)
        bias = tf.get_variable("biases", [16], initializer=tf.constant_initializer(0.1))
        conv2 = tf.nn.relu(tf.nn.bias_add(
            tf.nn.conv2d(norm1, kernel, [1, 1, 1, 1], padding="SAME"), bias))
    norm2 = tf.nn.lrn(conv2, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75)
    pool2 = tf.nn.max_pool(norm2, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
    with tf.variable_scope("local3"):
        flat = tf.reshape(pool2, [batch, -1])
        weights = _weight("weights", [flat.get_shape()[1].value, 64], 0.04, wd=0.004)
        bias = tf.get_variable("biases", [64], initializer=tf.constant_initializer(0.1))
        local3 = tf.nn.relu(tf.matmul(flat, weights) + bias)
    with tf.variable_scope("softmax_linear"):
        weights = _weight("weights", [64, classes], 1 / 64.0)
        bias = tf.get_variable("biases", [classes], initializer=tf.constant_initializer(0.0))
        logits = tf.add(tf.matmul(local3, weights), bias)
    xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits), name="cross_entropy")
    tf.add_to_collection("losses", xent)
    total = tf.add_n(tf.get_collection("losses"), name="total_loss")
    return images, labels, total


def test_cifar_style_convnet_trains():
    batch, classes = 16, 4
    rng = np.random.RandomState(0)
    data = rng.rand(batch, 16, 16, 3).astype(np.float32)
    targets = rng.randint(0, classes, batch)
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        images, labels, total = _cifar_like_graph(batch, classes)
        step = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.01).minimize(total, global_step=step)
        init = tf.global_variables_initializer()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        feed = {images: data, labels: targets}
        losses = [sess.run(total, feed)]
        for _ in range(15):
            sess.run(train, feed)
            losses.append(sess.run(total, feed))
        assert sess.run(step) == 15
    assert np.all(np.isfinite(losses))
    assert losses[-1] < 0.8 * losses[0]


def test_word2vec_style_model_trains():
    vocab, dim, batch, num_sampled = 50, 16, 32, 8
    rng = np.random.RandomState(1)
    # A toy corpus whose context word is a fixed function of the centre word.
    centres = rng.randint(0, vocab, 512)
    contexts = (centres * 7 + 3) % vocab
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(7)
        inputs = tf.placeholder(tf.int32, [batch])
        targets = tf.placeholder(tf.int64, [batch, 1])
        embeddings = tf.Variable(tf.random_uniform([vocab, dim], -1.0, 1.0), name="embeddings")
        embed = tf.nn.embedding_lookup(embeddings, inputs)
        nce_weights = tf.Variable(tf.truncated_normal([vocab, dim], stddev=1.0 / np.sqrt(dim)),
                                  name="nce_weights")
        nce_biases = tf.Variable(tf.zeros([vocab]), name="nce_biases")
        loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weights, biases=nce_biases,
                                             labels=targets, inputs=embed,
                                             num_sampled=num_sampled, num_classes=vocab))
        opt = tf.train.AdamOptimizer(0.05)
        grads = opt.compute_gradients(loss)
        emb_grad = dict((v.op.name, gr) for gr, v in grads)["embeddings"]
        train = opt.apply_gradients(grads)
        init = tf.global_variables_initializer()
    # The embedding gradient stays sparse: IndexedSlices from embedding_lookup.
    assert type(emb_grad).__name__ == "IndexedSlices"
    with tf.Session(graph=g) as sess:
        sess.run(init)
        losses = []
        for _epoch in range(6):
            epoch_losses = []
            for lo in range(0, len(centres), batch):
                feed = {inputs: centres[lo:lo + batch],
                        targets: contexts[lo:lo + batch, None]}
                _, value = sess.run([train, loss], feed)
                epoch_losses.append(value)
            losses.append(np.mean(epoch_losses))
    assert np.all(np.isfinite(losses))
    assert losses[-1] < 0.6 * losses[0]
