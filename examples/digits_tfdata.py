"""A TF1 program that reads its data through tf.data: the digits written once as a
TFRecord file of tf.train.Examples (training) and a CSV file (test); training batches come
from TFRecordDataset -> batch -> map(parse_example) -> prefetch, the test set from
tf.data.experimental.CsvDataset. An MLP learns with AdamOptimizer until the training
dataset ends (OutOfRangeError). Its imports differ from a TensorFlow version as
examples/digits_convnet.py's do.

    python examples/digits_tfdata.py [--epochs 10] [--dir /tmp/digits-tfdata]
"""
import argparse
import os
import tempfile

import numpy as np

import trainflow.compat.v1 as tf  # was: import tensorflow.compat.v1 as tf
from trainflow._src.datasets import load_digits  # was: from sklearn.datasets import ...

FEATURES = {"image": tf.FixedLenFeature([64], tf.float32),
            "label": tf.FixedLenFeature([], tf.int64)}


def write_data(directory, seed=0):
    """Writes train.tfrecord and test.csv (64 pixels and the label a row) into `directory`."""
    images, labels = load_digits()
    order = np.random.RandomState(seed).permutation(len(labels))
    test, train = order[:360], order[360:]
    train_path = os.path.join(directory, "train.tfrecord")
    with tf.python_io.TFRecordWriter(train_path) as writer:
        for i in train:
            writer.write(tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(float_list=tf.train.FloatList(value=images[i])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[labels[i]])),
            })).SerializeToString())
    test_path = os.path.join(directory, "test.csv")
    with open(test_path, "w") as f:
        f.write(",".join([f"p{k}" for k in range(64)] + ["label"]) + "\n")
        for i in test:
            f.write(",".join([f"{v:g}" for v in images[i]] + [str(labels[i])]) + "\n")
    return train_path, test_path


def train_input(path, batch_size, epochs):
    """(images, labels) batches: records batched first, then parsed a batch at a time."""
    def parse(serialized):
        features = tf.parse_example(serialized, FEATURES)
        return features["image"] / 16.0, features["label"]
    return tf.data.TFRecordDataset(path).repeat(epochs).batch(batch_size).map(parse).prefetch(1)


def test_input(path):
    """The whole test set as one (images, labels) batch, parsed from the CSV file."""
    columns = tf.data.experimental.CsvDataset(path, [[0.0]] * 64 + [[0]], header=True)
    return columns.batch(1000).map(
        lambda *c: (tf.stack(c[:64], axis=1) / 16.0, tf.cast(c[64], tf.int64)))


def model(images):
    x = tf.layers.dense(images, 64, activation=tf.nn.relu)
    return tf.layers.dense(x, 10)


def main(epochs=10, batch_size=32, directory=None, seed=0):
    """Trains and returns the test accuracy."""
    directory = directory or tempfile.mkdtemp(prefix="digits-tfdata-")
    train_path, test_path = write_data(directory, seed)
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(seed)
        images, labels = tf.data.make_one_shot_iterator(
            train_input(train_path, batch_size, epochs)).get_next()
        with tf.variable_scope("mlp"):
            logits = model(images)
        loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        step = tf.train.get_or_create_global_step()
        train_op = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=step)
        test_images, test_labels = tf.data.make_one_shot_iterator(
            test_input(test_path)).get_next()
        with tf.variable_scope("mlp", reuse=True):
            test_logits = model(test_images)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(test_logits, 1), test_labels),
                                          tf.float32))
        init = tf.global_variables_initializer()
    with tf.Session(graph=g) as sess:
        sess.run(init)
        try:
            while True:
                _, value, n = sess.run([train_op, loss, step])
                if n % 100 == 0:
                    print(f"step {n}: loss {value:.4f}")
        except tf.errors.OutOfRangeError:
            pass
        result, n = sess.run([accuracy, step])
    print(f"test accuracy {result:.4f} after {n} steps (data in {directory})")
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--dir", default=None, help="where the data files go")
    args = parser.parse_args()
    main(args.epochs, directory=args.dir)
