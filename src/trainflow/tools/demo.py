"""`trainflow demo`: trains a small classifier on the bundled handwritten digits, end to
end, with the TF1 API (placeholders, variables, an MLP, Adam, a Session)."""
import sys
import time

import numpy as np


def add_arguments(parser):
    parser.add_argument("--epochs", type=int, default=15, help="passes over the training set")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=0.003)
    parser.add_argument("--hidden", type=int, default=64, help="hidden units")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bar (it is drawn only when stdout is a terminal; "
                             "otherwise one line per epoch is printed)")


def _split(images, labels, seed, test_fraction=0.2):
    order = np.random.RandomState(seed).permutation(len(labels))
    n_test = int(len(labels) * test_fraction)
    test, train = order[:n_test], order[n_test:]
    return (images[train], labels[train]), (images[test], labels[test])


def build_model(tf, n_inputs, n_hidden, n_classes, learning_rate):
    """The demo's graph: returns a dict of the tensors and ops the loop needs."""
    x = tf.placeholder(tf.float32, [None, n_inputs], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    with tf.variable_scope("hidden"):
        w1 = tf.get_variable("kernel", [n_inputs, n_hidden])
        b1 = tf.get_variable("bias", [n_hidden], initializer=tf.zeros_initializer())
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
    with tf.variable_scope("logits"):
        w2 = tf.get_variable("kernel", [n_hidden, n_classes])
        b2 = tf.get_variable("bias", [n_classes], initializer=tf.zeros_initializer())
        logits = tf.matmul(h, w2) + b2
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits), name="loss")
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss, global_step, name="train")
    correct = tf.equal(tf.argmax(logits, 1), y)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32), name="accuracy")
    return {"x": x, "y": y, "loss": loss, "train_op": train_op, "accuracy": accuracy,
            "global_step": global_step, "init": tf.global_variables_initializer()}


def _progress(epoch, epochs, done, total, loss, width=30, stream=None):
    """Redraws the progress line in place (`\\r`); only for a terminal."""
    stream = stream or sys.stdout
    filled = int(width * done / total)
    bar = "#" * filled + "-" * (width - filled)
    stream.write(f"\repoch {epoch:>2}/{epochs} [{bar}] {done:>4}/{total} loss {loss:.4f}")
    stream.flush()


def _clear_line(stream=None):
    """Returns to the line's start and erases it (ANSI erase-in-line), so the epoch
    summary needs no padding to hide the progress bar."""
    stream = stream or sys.stdout
    stream.write("\r\x1b[K")


def run(args):
    """Trains and evaluates; returns 0. Prints per-epoch loss/accuracy and test accuracy."""
    import trainflow.compat.v1 as tf
    from trainflow.datasets import load_digits
    images, labels = load_digits()
    images = images / np.float32(16.0)
    (train_x, train_y), (test_x, test_y) = _split(images, labels, args.seed)
    print(f"digits: {len(train_y)} training and {len(test_y)} test images of 8x8 pixels")
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(args.seed)
        model = build_model(tf, images.shape[1], args.hidden, 10, args.learning_rate)
    rng = np.random.RandomState(args.seed)
    progress = not args.no_progress and sys.stdout.isatty()
    start = time.time()
    with tf.Session(graph=graph) as sess:
        sess.run(model["init"])
        n = len(train_y)
        for epoch in range(1, args.epochs + 1):
            order = rng.permutation(n)
            losses = []
            for lo in range(0, n, args.batch_size):
                idx = order[lo:lo + args.batch_size]
                _, loss = sess.run([model["train_op"], model["loss"]],
                                   {model["x"]: train_x[idx], model["y"]: train_y[idx]})
                losses.append(loss)
                if progress:
                    _progress(epoch, args.epochs, min(lo + args.batch_size, n), n,
                              float(np.mean(losses)))
            train_acc = sess.run(model["accuracy"], {model["x"]: train_x, model["y"]: train_y})
            if progress:
                _clear_line()
            print(f"epoch {epoch:>2}/{args.epochs}  loss {np.mean(losses):.4f}  "
                  f"train accuracy {train_acc:.4f}")
        test_acc = sess.run(model["accuracy"], {model["x"]: test_x, model["y"]: test_y})
        steps = sess.run(model["global_step"])
    print(f"test accuracy {test_acc:.4f} after {steps} steps in {time.time() - start:.1f}s")
    return 0
