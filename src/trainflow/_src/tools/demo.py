"""`trainflow demo`: a complete tf.train program on the bundled handwritten digits.

The training images go into a TFRecord file of `tf.train.Example`s once; each run reads
them back through a queue pipeline (string_input_producer -> TFRecordReader.read_up_to ->
parse_example -> shuffle_batch), trains an MLP with Adam inside a
MonitoredTrainingSession that checkpoints and writes summaries to `--logdir`, and
shows a progress bar. A second run resumes from the last checkpoint and trains on.
At the end it prints the test accuracy and draws the loss and accuracy curves from its
own event file into a PNG.
"""
import argparse
import math
import os
import sys
import time

import numpy as np

from trainflow._src.datasets import load_digits
from trainflow._src.tools import event_data, events_plot

N_CLASSES = 10


def _positive_int(text):
    """argparse type: an int >= 1 (a wrong one is a usage error, exit status 2)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer: '{text}'")
    return value


def add_arguments(parser):
    """Declares the demo's arguments on `parser`."""
    parser.add_argument("--logdir", default="trainflow-demo",
                        help="checkpoints, event files and the data file (default: "
                             "./trainflow-demo); a second run resumes from it")
    parser.add_argument("--epochs", type=_positive_int, default=15,
                        help="passes over the training set in this run (>= 1)")
    parser.add_argument("--batch-size", type=_positive_int, default=32)
    parser.add_argument("--learning-rate", type=float, default=0.003)
    parser.add_argument("--hidden", type=_positive_int, default=64, help="hidden units")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", default=None, metavar="OUT.png",
                        help="where to draw the curves (default: LOGDIR/curves.png)")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (the per-epoch lines stay)")
    parser.add_argument("--export_dir", default=None, metavar="DIR",
                        help="also export the trained model as a SavedModel version "
                             "DIR/<global step>, for `trainflow serve --model_base_path=DIR`")


def _split(images, labels, seed, test_fraction=0.2):
    order = np.random.RandomState(seed).permutation(len(labels))
    n_test = int(len(labels) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return (images[train], labels[train]), (images[test], labels[test])


def _write_records(tf, path, images, labels):
    """Writes one Example per image (`image`: 64 floats, `label`: int64) to `path`."""
    with tf.python_io.TFRecordWriter(path + ".tmp") as writer:
        for image, label in zip(images, labels):
            example = tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(float_list=tf.train.FloatList(value=image)),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))}))
            writer.write(example.SerializeToString())
    os.replace(path + ".tmp", path)


def input_pipeline(tf, path, n_inputs, batch_size, seed):
    """Batches of (images, labels) read from the TFRecord file through queues, 64 records
    per read (read_up_to + parse_example) so the reader threads stay ahead."""
    filenames = tf.train.string_input_producer([path], seed=seed, name="filenames")
    _, serialized = tf.TFRecordReader(name="reader").read_up_to(filenames, 64)
    features = tf.parse_example(serialized, features={
        "image": tf.FixedLenFeature([n_inputs], tf.float32),
        "label": tf.FixedLenFeature([], tf.int64)})
    return tf.train.shuffle_batch([features["image"] / 16.0, features["label"]],
                                  batch_size=batch_size, capacity=20 * batch_size,
                                  min_after_dequeue=10 * batch_size, num_threads=2,
                                  seed=seed, enqueue_many=True, name="batch")


def mlp(tf, x, n_hidden):
    """The logits of the MLP (variables hidden/kernel, hidden/bias, logits/kernel,
    logits/bias) on images `x` scaled to [0, 1]."""
    with tf.variable_scope("hidden", reuse=tf.AUTO_REUSE):
        w1 = tf.get_variable("kernel", [x.shape[1], n_hidden])
        b1 = tf.get_variable("bias", [n_hidden], initializer=tf.zeros_initializer())
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
    with tf.variable_scope("logits", reuse=tf.AUTO_REUSE):
        w2 = tf.get_variable("kernel", [n_hidden, N_CLASSES])
        b2 = tf.get_variable("bias", [N_CLASSES], initializer=tf.zeros_initializer())
        return tf.matmul(h, w2) + b2


def export_saved_model(tf, export_base, checkpoint, n_inputs, n_hidden, step):
    """Writes the MLP restored from `checkpoint` as the SavedModel EXPORT_BASE/<step> (tag
    serve; written aside, then renamed in, so a polling server never sees half of it).
    Signatures: serving_default (predict: `images`, 64 pixels of 0..16 -> `classes`,
    `probabilities`) and classify (serialized Examples with an `image` feature -> the digit
    names and their scores). Returns its path."""
    path = os.path.join(export_base, str(step))
    if os.path.exists(path):
        return path
    tmp = os.path.join(export_base, f".tmp-{step}-{os.getpid()}")
    sm = tf.saved_model
    with tf.Graph().as_default():
        images = tf.placeholder(tf.float32, [None, n_inputs], name="images")
        serialized = tf.placeholder(tf.string, [None], name="examples")
        parsed = tf.parse_example(serialized, {
            "image": tf.FixedLenFeature([n_inputs], tf.float32)})["image"]
        probabilities = tf.nn.softmax(mlp(tf, images / 16.0, n_hidden), name="probabilities")
        classes = tf.argmax(probabilities, 1, name="classes")
        scores = tf.nn.softmax(mlp(tf, parsed / 16.0, n_hidden), name="scores")
        names = tf.tile(tf.constant([[str(i) for i in range(N_CLASSES)]]),
                        tf.stack([tf.shape(scores)[0], 1]), name="class_names")
        signatures = {
            "serving_default": sm.signature_def_utils.predict_signature_def(
                {"images": images}, {"classes": classes, "probabilities": probabilities}),
            "classify": sm.signature_def_utils.classification_signature_def(
                serialized, names, scores)}
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, checkpoint)
            builder = sm.builder.SavedModelBuilder(tmp)
            builder.add_meta_graph_and_variables(sess, [sm.tag_constants.SERVING],
                                                 signature_def_map=signatures)
            builder.save()
    os.replace(tmp, path)
    return path


def build_model(tf, images, labels, n_hidden, learning_rate):
    """The MLP on `images` (feedable, so the test set can replace the batch).

    Returns:
      a dict of the tensors and ops the loop needs.
    """
    x = tf.placeholder_with_default(images, [None, images.shape[1]], name="x")
    y = tf.placeholder_with_default(labels, [None], name="y")
    logits = mlp(tf, x, n_hidden)
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="xent")
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss, global_step, name="train")
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32),
                              name="batch_accuracy")
    tf.summary.scalar("loss", loss)
    tf.summary.scalar("accuracy", accuracy)
    return {"x": x, "y": y, "loss": loss, "train_op": train_op, "accuracy": accuracy,
            "global_step": global_step}


def _progress_hook(tf, model, steps_per_epoch, last_step, stream, tty):
    """A hook that draws a progress bar on a terminal, or prints a line per epoch."""

    class ProgressHook(tf.train.SessionRunHook):
        def begin(self):
            self._losses, self._accuracies = [], []

        def before_run(self, run_context):
            return tf.train.SessionRunArgs([model["global_step"], model["loss"],
                                            model["accuracy"]])

        def after_run(self, run_context, run_values):
            step, loss, accuracy = run_values.results
            step = int(step)
            self._losses.append(loss)
            self._accuracies.append(accuracy)
            epoch = math.ceil(step / steps_per_epoch)
            in_epoch = step - (epoch - 1) * steps_per_epoch
            if tty:
                width = 30
                done = int(width * in_epoch / steps_per_epoch)
                stream.write(f"\repoch {epoch:>3} [{'#' * done}{'-' * (width - done)}] "
                             f"step {step:>5}/{last_step} loss {np.mean(self._losses):.4f}")
                stream.flush()
            if in_epoch == steps_per_epoch or step >= last_step:
                line = (f"epoch {epoch:>3}  step {step:>5}  loss {np.mean(self._losses):.4f}  "
                        f"batch accuracy {np.mean(self._accuracies):.4f}")
                stream.write(("\r" + line + "\x1b[K\n") if tty else line + "\n")
                stream.flush()
                self._losses, self._accuracies = [], []

    return ProgressHook()


def run(args):
    """Trains (or resumes) and evaluates; returns 0. Prints per-epoch loss and accuracy,
    the test accuracy, and where the checkpoint and the curves are."""
    import trainflow.compat.v1 as tf  # lazy: the whole TF1 namespace, out of CLI startup
    images, labels = load_digits()
    (train_x, train_y), (test_x, test_y) = _split(images, labels, args.seed)
    os.makedirs(args.logdir, exist_ok=True)
    data_path = os.path.join(args.logdir, "digits_train.tfrecord")
    if not os.path.exists(data_path):
        _write_records(tf, data_path, train_x, train_y)
    steps_per_epoch = math.ceil(len(train_y) / args.batch_size)
    print(f"digits: {len(train_y)} training images (in {data_path}) and {len(test_y)} test "
          f"images of 8x8 pixels")
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(args.seed)
        batch_x, batch_y = input_pipeline(tf, data_path, images.shape[1], args.batch_size,
                                          args.seed)
        model = build_model(tf, batch_x, batch_y, args.hidden, args.learning_rate)
        saver = tf.train.Saver(max_to_keep=3)
        tf.add_to_collection(tf.GraphKeys.SAVERS, saver)
    latest = tf.train.latest_checkpoint(args.logdir)
    first_step = 0
    if latest:
        first_step = int(tf.train.load_variable(latest, "global_step"))
        print(f"resuming from step {first_step} ({latest})")
    last_step = first_step + args.epochs * steps_per_epoch
    stream = sys.stdout
    tty = stream.isatty() and not args.no_progress
    hooks = [tf.train.StopAtStepHook(last_step=last_step),
             _progress_hook(tf, model, steps_per_epoch, last_step, stream, tty)]
    start = time.time()
    with graph.as_default():
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=args.logdir, hooks=hooks, save_checkpoint_steps=steps_per_epoch,
                save_summaries_steps=10, log_step_count_steps=None) as sess:
            while not sess.should_stop():
                sess.run(model["train_op"])
    train_secs = time.time() - start
    latest = tf.train.latest_checkpoint(args.logdir)
    with tf.Session(graph=graph) as sess:
        saver.restore(sess, latest)
        test_acc, step = sess.run([model["accuracy"], model["global_step"]],
                                  {model["x"]: test_x / 16.0, model["y"]: test_y})
    print(f"test accuracy {test_acc:.4f} after {step} steps ({step - first_step} in this run, "
          f"{train_secs:.1f}s); checkpoint {latest}")
    _plot(args.plot or os.path.join(args.logdir, "curves.png"), args.logdir)
    if args.export_dir:
        os.makedirs(args.export_dir, exist_ok=True)
        path = export_saved_model(tf, args.export_dir, latest, images.shape[1], args.hidden,
                                  int(step))
        print(f"exported the model to {path} (serve it: trainflow serve --model_name=digits "
              f"--model_base_path={args.export_dir})")
    return 0


def _plot(out, logdir):
    """Draws the loss and accuracy curves of `logdir`'s event file, as
    `trainflow events LOGDIR --plot OUT --tags loss,accuracy` does."""
    runs, _ = event_data.load(logdir)
    for r in runs:
        r.select(["loss", "accuracy"])
    events_plot.plot(runs, out, f"trainflow demo ({os.path.basename(logdir)})")
