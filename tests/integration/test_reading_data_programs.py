"""TF1 "reading data" programs train until OutOfRangeError and stop cleanly: fixed-length
binary records (CIFAR style), CSV lines, and preloaded data in a variable fed through
slice_input_producer."""
import threading

import numpy as np

import trainflow.compat.v1 as tf

# Every blocking run in these tests ends within the deadline.
_CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)


def _train_until_done(loss, epochs_records):
    """Runs GradientDescent on `loss` to OutOfRangeError; returns (steps, first, last)."""
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    losses = []
    with tf.Session(config=_CONFIG) as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            while not coord.should_stop():
                _, loss_value = sess.run([train, loss],
                                         options=tf.RunOptions(timeout_in_ms=20000))
                losses.append(loss_value)
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
    return len(losses), losses[0], losses[-1]


def _no_leftover(before):
    for t in threading.enumerate():
        if t not in before:
            t.join(5)
            assert not t.is_alive(), t.name


def test_fixed_length_binary_records(tmp_path):
    before = set(threading.enumerate())
    rng = np.random.RandomState(0)
    labels = rng.randint(0, 2, size=64).astype(np.uint8)
    pixels = (labels[:, None] * 200 + rng.randint(0, 50, size=(64, 12))).astype(np.uint8)
    for f in range(2):
        rows = np.concatenate([labels[f::2, None], pixels[f::2]], axis=1)
        (tmp_path / f"data_{f}.bin").write_bytes(rows.tobytes())
    with tf.Graph().as_default():
        files = [str(tmp_path / f"data_{f}.bin") for f in range(2)]
        fq = tf.train.string_input_producer(files, num_epochs=5)
        _, value = tf.FixedLengthRecordReader(record_bytes=13).read(fq)
        record = tf.decode_raw(value, tf.uint8)
        label = tf.cast(tf.strided_slice(record, [0], [1]), tf.int32)
        image = tf.cast(tf.reshape(tf.strided_slice(record, [1], [13]), [12]), tf.float32) / 255.
        label.set_shape([1])
        images, label_batch = tf.train.shuffle_batch([image, label], 8, capacity=64,
                                                     min_after_dequeue=16, num_threads=2)
        logits = tf.layers.dense(images, 2)
        loss = tf.losses.sparse_softmax_cross_entropy(tf.reshape(label_batch, [-1]), logits)
        steps, first, last = _train_until_done(loss, 5 * 64)
    assert steps == 5 * 64 // 8 and last < first
    _no_leftover(before)


def test_csv_lines(tmp_path):
    before = set(threading.enumerate())
    rng = np.random.RandomState(1)
    x = rng.uniform(-1, 1, size=(40, 2))
    y = 3 * x[:, 0] - 2 * x[:, 1] + 0.5
    lines = ["x0,x1,y"] + [f"{a:.5f},{b:.5f},{c:.5f}" for (a, b), c in zip(x, y)]
    (tmp_path / "data.csv").write_text("\n".join(lines) + "\n")
    with tf.Graph().as_default():
        fq = tf.train.string_input_producer([str(tmp_path / "data.csv")], num_epochs=20)
        _, line = tf.TextLineReader(skip_header_lines=1).read(fq)
        x0, x1, target = tf.decode_csv(line, [[0.0], [0.0], [0.0]])
        features, targets = tf.train.batch([tf.stack([x0, x1]), target], 10)
        w = tf.Variable(tf.zeros([2, 1]))
        b = tf.Variable(0.0)
        pred = tf.reshape(tf.matmul(features, w), [-1]) + b
        loss = tf.reduce_mean(tf.square(pred - targets))
        steps, first, last = _train_until_done(loss, 20 * 40)
    assert steps == 20 * 40 // 10 and last < 0.1 * first
    _no_leftover(before)


def test_preloaded_variable_with_slice_input_producer():
    before = set(threading.enumerate())
    data = np.arange(24, dtype=np.float32).reshape(12, 2) / 24.
    with tf.Graph().as_default():
        initializer = tf.placeholder(tf.float32, data.shape)
        preloaded = tf.Variable(initializer, trainable=False, collections=[])
        x, = tf.train.slice_input_producer([preloaded], num_epochs=3, shuffle=False)
        xb = tf.train.batch([x], 4)
        w = tf.Variable(tf.ones([2]))
        loss = tf.reduce_mean(tf.square(tf.reduce_sum(xb * w, axis=1) - 1.0))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        seen = []
        with tf.Session(config=_CONFIG) as sess:
            sess.run(preloaded.initializer, feed_dict={initializer: data})
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            try:
                while True:
                    seen.append(sess.run([xb, train])[0])
            except tf.errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=10)
    got = np.concatenate(seen)
    assert got.shape == (36, 2) and np.allclose(got, np.concatenate([data] * 3))
    _no_leftover(before)
