"""Trains the CIFAR-10-style model (a TF1 program; only the import line differs from
TensorFlow) in a MonitoredTrainingSession with automatic checkpoints and summaries.

    python examples/cifar10/cifar10_train.py --train_dir /tmp/cifar10_train --max_steps 500
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cifar10_model as cifar10  # noqa: E402

import trainflow.compat.v1 as tf  # noqa: E402  (was: import tensorflow.compat.v1 as tf)


class _LoggerHook(tf.train.SessionRunHook):
    """Logs the loss and the speed every `log_frequency` steps."""

    def __init__(self, loss, batch_size, log_frequency):
        self._loss = loss
        self._batch_size = batch_size
        self._log_frequency = log_frequency

    def begin(self):
        self._step = -1
        self._start_time = time.time()

    def before_run(self, run_context):
        self._step += 1
        return tf.train.SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        if self._step % self._log_frequency == 0:
            now = time.time()
            duration, self._start_time = now - self._start_time, now
            examples_per_sec = self._log_frequency * self._batch_size / duration
            print("step %d, loss = %.2f (%.1f examples/sec; %.3f sec/batch)" % (
                self._step, run_values.results, examples_per_sec,
                duration / self._log_frequency), flush=True)


def train(data_dir, train_dir, max_steps, batch_size=32, log_frequency=10):
    """Trains until the global step reaches max_steps (resuming from train_dir)."""
    examples = cifar10.write_synthetic_data(data_dir) if not os.path.exists(
        os.path.join(data_dir, cifar10.TEST_FILE)) else 500 * len(cifar10.TRAIN_FILES)
    with tf.Graph().as_default():
        global_step = tf.train.get_or_create_global_step()
        with tf.device("/cpu:0"):
            images, labels = cifar10.distorted_inputs(data_dir, batch_size)
        logits = cifar10.inference(images)
        loss = cifar10.loss(logits, labels)
        train_op = cifar10.train(loss, global_step, examples, batch_size)
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=train_dir,
                hooks=[tf.train.StopAtStepHook(last_step=max_steps),
                       tf.train.NanTensorHook(loss),
                       _LoggerHook(loss, batch_size, log_frequency)],
                save_checkpoint_steps=max(1, max_steps // 4),
                config=tf.ConfigProto(log_device_placement=False)) as mon_sess:
            while not mon_sess.should_stop():
                mon_sess.run(train_op)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data_dir", default="/tmp/cifar10_data")
    parser.add_argument("--train_dir", default="/tmp/cifar10_train")
    parser.add_argument("--max_steps", type=int, default=500)
    parser.add_argument("--batch_size", type=int, default=32)
    args = parser.parse_args()
    train(args.data_dir, args.train_dir, args.max_steps, args.batch_size)


if __name__ == "__main__":
    main()
