"""A TF1 program, unchanged but for its two import lines (tf, and the digits from
trainflow's bundled copy, which a TensorFlow version loads with
`sklearn.datasets.load_digits`): a small convnet on the 8x8 digits with tf.layers,
tf.losses, tf.metrics and AdamOptimizer.

    python examples/digits_convnet.py [--epochs 5]
"""
import argparse

import numpy as np

import trainflow.compat.v1 as tf  # was: import tensorflow.compat.v1 as tf
from trainflow._src.datasets import load_digits  # was: from sklearn.datasets import ...


def model(images, training):
    x = tf.reshape(images, [-1, 8, 8, 1])
    x = tf.layers.conv2d(x, 16, 3, padding="same", activation=tf.nn.relu)
    x = tf.layers.max_pooling2d(x, 2, 2)
    x = tf.layers.conv2d(x, 32, 3, padding="same", activation=tf.nn.relu)
    x = tf.layers.flatten(x)
    x = tf.layers.dropout(x, rate=0.25, training=training)
    return tf.layers.dense(x, 10)


def main(epochs=5, batch_size=64, seed=0):
    """Trains and returns the test accuracy."""
    images, labels = load_digits()
    images /= 16.0
    order = np.random.RandomState(seed).permutation(len(labels))
    test, train = order[:360], order[360:]
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(seed)
        x = tf.placeholder(tf.float32, [None, 64])
        y = tf.placeholder(tf.int64, [None])
        training = tf.placeholder_with_default(False, [])
        logits = model(x, training)
        loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
        step = tf.train.get_or_create_global_step()
        train_op = tf.train.AdamOptimizer(0.005).minimize(loss, global_step=step)
        accuracy, update_accuracy = tf.metrics.accuracy(y, tf.argmax(logits, 1))
        init = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
    rng = np.random.RandomState(seed)
    with tf.Session(graph=g) as sess:
        sess.run(init)
        for epoch in range(epochs):
            shuffled = rng.permutation(train)
            for lo in range(0, len(shuffled), batch_size):
                idx = shuffled[lo:lo + batch_size]
                _, value = sess.run([train_op, loss],
                                    {x: images[idx], y: labels[idx], training: True})
            print(f"epoch {epoch + 1}: loss {value:.4f}")
        sess.run(update_accuracy, {x: images[test], y: labels[test]})
        result = sess.run(accuracy)
    print(f"test accuracy {result:.4f}")
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    main(parser.parse_args().epochs)
