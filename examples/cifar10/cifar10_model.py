"""The model of the CIFAR-10-style example, written as a TF1 program (only the import
line differs from TensorFlow): CIFAR-10's binary record format read through queues,
image distortions, a two-layer convnet, weight decay, exponentially decaying learning
rate and moving averages of the weights.

The data are synthetic (no download): `write_synthetic_data` writes files in CIFAR-10's
binary layout (one label byte, then 32x32x3 pixels in channel-major order) whose ten
classes differ by colour and stripe frequency.
"""
import os

import numpy as np

import trainflow.compat.v1 as tf  # was: import tensorflow.compat.v1 as tf

IMAGE_SIZE = 24
NUM_CLASSES = 10
TRAIN_FILES = ["data_batch_%d.bin" % i for i in range(1, 3)]
TEST_FILE = "test_batch.bin"
MOVING_AVERAGE_DECAY = 0.999
NUM_EPOCHS_PER_DECAY = 50.0
LEARNING_RATE_DECAY_FACTOR = 0.5
INITIAL_LEARNING_RATE = 0.05
WEIGHT_DECAY = 0.002


def write_synthetic_data(data_dir, per_file=500, seed=0):
    """Writes TRAIN_FILES and TEST_FILE into data_dir (CIFAR-10's binary format)."""
    rng = np.random.RandomState(seed)
    os.makedirs(data_dir, exist_ok=True)
    rows = np.arange(32, dtype=np.float32)[:, None]
    for name in TRAIN_FILES + [TEST_FILE]:
        labels = rng.randint(0, NUM_CLASSES, per_file)
        records = []
        for label in labels:
            stripes = np.sin(rows * (label + 1) * np.pi / 16) * 60 * np.ones((32, 32))
            colour = np.array([label * 25, 255 - label * 25, (label * 70) % 255], np.float32)
            image = colour[:, None, None] + stripes[None] + rng.normal(0, 40, (3, 32, 32))
            pixels = np.clip(image, 0, 255).astype(np.uint8)
            records.append(np.concatenate([[label], pixels.ravel()]).astype(np.uint8))
        np.stack(records).tofile(os.path.join(data_dir, name))
    return per_file * len(TRAIN_FILES)


def read_cifar10(filename_queue):
    """One (uint8 image [32, 32, 3], int32 label) record from the queue's files."""
    label_bytes, height, width, depth = 1, 32, 32, 3
    image_bytes = height * width * depth
    reader = tf.FixedLengthRecordReader(record_bytes=label_bytes + image_bytes)
    _, value = reader.read(filename_queue)
    record = tf.decode_raw(value, tf.uint8)
    label = tf.cast(tf.strided_slice(record, [0], [label_bytes]), tf.int32)
    major = tf.reshape(tf.strided_slice(record, [label_bytes], [label_bytes + image_bytes]),
                       [depth, height, width])
    return tf.transpose(major, [1, 2, 0]), tf.reshape(label, [1])


def _batch(image, label, min_queue_examples, batch_size, shuffle):
    num_threads = 2
    if shuffle:
        images, labels = tf.train.shuffle_batch(
            [image, label], batch_size=batch_size, num_threads=num_threads,
            capacity=min_queue_examples + 3 * batch_size, min_after_dequeue=min_queue_examples)
    else:
        images, labels = tf.train.batch([image, label], batch_size=batch_size,
                                        num_threads=num_threads,
                                        capacity=min_queue_examples + 3 * batch_size)
    tf.summary.image("images", images)
    return images, tf.reshape(labels, [batch_size])


def distorted_inputs(data_dir, batch_size):
    """Training batches: random crops, flips, brightness and contrast, standardized."""
    filenames = [os.path.join(data_dir, f) for f in TRAIN_FILES]
    with tf.name_scope("data_augmentation"):
        image, label = read_cifar10(tf.train.string_input_producer(filenames))
        image = tf.cast(image, tf.float32)
        image = tf.random_crop(image, [IMAGE_SIZE, IMAGE_SIZE, 3])
        image = tf.image.random_flip_left_right(image)
        image = tf.image.random_brightness(image, max_delta=63)
        image = tf.image.random_contrast(image, lower=0.2, upper=1.8)
        image = tf.image.per_image_standardization(image)
        image.set_shape([IMAGE_SIZE, IMAGE_SIZE, 3])
        label.set_shape([1])
    return _batch(image, label, 4 * batch_size, batch_size, shuffle=True)


def inputs(data_dir, batch_size):
    """Evaluation batches: the central crop, standardized, in file order."""
    filename_queue = tf.train.string_input_producer([os.path.join(data_dir, TEST_FILE)],
                                                    shuffle=False)
    image, label = read_cifar10(filename_queue)
    image = tf.image.resize_image_with_crop_or_pad(tf.cast(image, tf.float32),
                                                   IMAGE_SIZE, IMAGE_SIZE)
    image = tf.image.per_image_standardization(image)
    image.set_shape([IMAGE_SIZE, IMAGE_SIZE, 3])
    label.set_shape([1])
    return _batch(image, label, 2 * batch_size, batch_size, shuffle=False)


def _activation_summary(x):
    tf.summary.histogram(x.op.name + "/activations", x)
    tf.summary.scalar(x.op.name + "/sparsity", tf.nn.zero_fraction(x))


def _weight(name, shape, stddev, wd):
    var = tf.get_variable(name, shape,
                          initializer=tf.truncated_normal_initializer(stddev=stddev))
    if wd is not None:
        tf.add_to_collection("losses", tf.multiply(tf.nn.l2_loss(var), wd,
                                                   name="weight_loss"))
    return var


def inference(images):
    """Logits of the network: two 5x5 conv layers (16 channels) with pooling and LRN,
    a 64-unit hidden layer, ten outputs."""
    with tf.variable_scope("conv1") as scope:
        kernel = _weight("weights", [5, 5, 3, 16], 5e-2, None)
        biases = tf.get_variable("biases", [16], initializer=tf.zeros_initializer())
        conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding="SAME")
        conv1 = tf.nn.relu(tf.nn.bias_add(conv, biases), name=scope.name)
        _activation_summary(conv1)
    pool1 = tf.nn.max_pool(conv1, [1, 3, 3, 1], [1, 2, 2, 1], padding="SAME", name="pool1")
    norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm1")
    with tf.variable_scope("conv2") as scope:
        kernel = _weight("weights", [5, 5, 16, 16], 5e-2, None)
        biases = tf.get_variable("biases", [16], initializer=tf.constant_initializer(0.1))
        conv = tf.nn.conv2d(norm1, kernel, [1, 1, 1, 1], padding="SAME")
        conv2 = tf.nn.relu(tf.nn.bias_add(conv, biases), name=scope.name)
        _activation_summary(conv2)
    norm2 = tf.nn.lrn(conv2, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm2")
    pool2 = tf.nn.max_pool(norm2, [1, 3, 3, 1], [1, 2, 2, 1], padding="SAME", name="pool2")
    with tf.variable_scope("local3") as scope:
        flat = tf.reshape(pool2, [images.get_shape().as_list()[0], -1])
        weights = _weight("weights", [flat.get_shape()[1].value, 64], 0.04, WEIGHT_DECAY)
        biases = tf.get_variable("biases", [64], initializer=tf.constant_initializer(0.1))
        local3 = tf.nn.relu(tf.matmul(flat, weights) + biases, name=scope.name)
        _activation_summary(local3)
    with tf.variable_scope("softmax_linear") as scope:
        weights = _weight("weights", [64, NUM_CLASSES], 1 / 64.0, None)
        biases = tf.get_variable("biases", [NUM_CLASSES], initializer=tf.zeros_initializer())
        logits = tf.add(tf.matmul(local3, weights), biases, name=scope.name)
        _activation_summary(logits)
    return logits


def loss(logits, labels):
    """Cross entropy plus the weight-decay terms."""
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.cast(labels, tf.int64), logits=logits, name="cross_entropy_per_example")
    tf.add_to_collection("losses", tf.reduce_mean(cross_entropy, name="cross_entropy"))
    return tf.add_n(tf.get_collection("losses"), name="total_loss")


def train(total_loss, global_step, examples_per_epoch, batch_size):
    """The training op: decayed learning rate, SGD, and moving averages of the weights."""
    decay_steps = int(examples_per_epoch / batch_size * NUM_EPOCHS_PER_DECAY)
    lr = tf.train.exponential_decay(INITIAL_LEARNING_RATE, global_step, decay_steps,
                                    LEARNING_RATE_DECAY_FACTOR, staircase=True)
    tf.summary.scalar("learning_rate", lr)
    loss_averages = tf.train.ExponentialMovingAverage(0.9, name="avg")
    losses = tf.get_collection("losses")
    loss_averages_op = loss_averages.apply(losses + [total_loss])
    for loss_t in losses + [total_loss]:
        tf.summary.scalar(loss_t.op.name + " (raw)", loss_t)
        tf.summary.scalar(loss_t.op.name, loss_averages.average(loss_t))
    with tf.control_dependencies([loss_averages_op]):
        grads = tf.train.GradientDescentOptimizer(lr).compute_gradients(total_loss)
    apply_gradient_op = tf.train.GradientDescentOptimizer(lr).apply_gradients(
        grads, global_step=global_step)
    for var in tf.trainable_variables():
        tf.summary.histogram(var.op.name, var)
    variable_averages = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY, global_step)
    with tf.control_dependencies([apply_gradient_op]):
        return variable_averages.apply(tf.trainable_variables())
