"""A TF1 Estimator program, unchanged but for its two import lines (tf, and the digits from
trainflow's bundled copy, which a TensorFlow version loads with
`sklearn.datasets.load_digits`): a custom model_fn (a small convnet with tf.layers,
tf.losses, tf.metrics) trained and evaluated with tf.estimator.train_and_evaluate on
tf.data input, then predicted with and exported as a SavedModel for serving.
TensorFlow removed tf.estimator in 2.16 (and 2.15, its last, needs Python <= 3.11); this
runs on trainflow's Python.

    python examples/estimator_digits.py [--model_dir DIR] [--steps 300]
"""
import argparse
import os
import tempfile

import numpy as np

import trainflow.compat.v1 as tf  # was: import tensorflow.compat.v1 as tf
from trainflow._src.datasets import load_digits  # was: from sklearn.datasets import ...


def model_fn(features, labels, mode, params):
    training = mode == tf.estimator.ModeKeys.TRAIN
    x = tf.reshape(features["image"], [-1, 8, 8, 1])
    x = tf.layers.conv2d(x, 16, 3, padding="same", activation=tf.nn.relu)
    x = tf.layers.max_pooling2d(x, 2, 2)
    x = tf.layers.flatten(x)
    x = tf.layers.dropout(x, rate=0.25, training=training)
    logits = tf.layers.dense(x, 10)
    classes = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {"classes": classes, "probabilities": tf.nn.softmax(logits)}
        return tf.estimator.EstimatorSpec(mode, predictions=predictions, export_outputs={
            "serving_default": tf.estimator.export.PredictOutput(predictions)})
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    train_op = tf.train.AdamOptimizer(params["learning_rate"]).minimize(
        loss, global_step=tf.train.get_global_step())
    metrics = {"accuracy": tf.metrics.accuracy(labels, classes)}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops=metrics)


def main(model_dir, steps=300, seed=0):
    """Trains and evaluates; returns (eval metrics, export directory)."""
    images, labels = load_digits()
    images = (images / 16.0).astype(np.float32)
    order = np.random.RandomState(seed).permutation(len(labels))
    test, train = order[:360], order[360:]

    def train_input_fn():
        ds = tf.data.Dataset.from_tensor_slices(({"image": images[train]}, labels[train]))
        return ds.repeat().batch(64)

    def eval_input_fn():
        ds = tf.data.Dataset.from_tensor_slices(({"image": images[test]}, labels[test]))
        return ds.batch(120)

    serving_fn = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"image": tf.placeholder(tf.float32, [None, 64], name="image")})
    config = tf.estimator.RunConfig(save_checkpoints_steps=100, tf_random_seed=seed)
    estimator = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=config,
                                       params={"learning_rate": 0.005})
    metrics, exports = tf.estimator.train_and_evaluate(
        estimator, tf.estimator.TrainSpec(train_input_fn, max_steps=steps),
        tf.estimator.EvalSpec(eval_input_fn, steps=None, throttle_secs=0, exporters=[
            tf.estimator.LatestExporter("digits", serving_fn, exports_to_keep=1)]))
    print(f"accuracy {metrics['accuracy']:.4f} loss {metrics['loss']:.4f} "
          f"at step {metrics['global_step']}")
    first = next(estimator.predict(lambda: tf.data.Dataset.from_tensor_slices(
        {"image": images[test[:8]]}).batch(8)))
    print(f"first test digit: predicted {first['classes']}, label {labels[test[0]]}")
    export_dir = exports[-1].decode() if exports and exports[-1] else None
    print(f"exported {export_dir}")
    return metrics, export_dir


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model_dir", default=os.path.join(tempfile.gettempdir(),
                                                            "estimator_digits"))
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    main(args.model_dir, args.steps)
