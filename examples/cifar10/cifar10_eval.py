"""Evaluates the CIFAR-10-style model (a TF1 program; only the import line differs from
TensorFlow): restores the moving averages of the weights from the latest checkpoint of
the training directory and reports precision @ 1 on the test file.

    python examples/cifar10/cifar10_eval.py --checkpoint_dir /tmp/cifar10_train --run_once
"""
import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cifar10_model as cifar10  # noqa: E402

import trainflow.compat.v1 as tf  # noqa: E402  (was: import tensorflow.compat.v1 as tf)


def eval_once(saver, summary_writer, top_k_op, summary_op, checkpoint_dir, num_examples,
              batch_size):
    """Runs the evaluation over num_examples; returns precision @ 1 (or None)."""
    with tf.Session() as sess:
        ckpt = tf.train.get_checkpoint_state(checkpoint_dir)
        if not (ckpt and ckpt.model_checkpoint_path):
            print("No checkpoint file found")
            return None
        saver.restore(sess, ckpt.model_checkpoint_path)
        global_step = ckpt.model_checkpoint_path.split("/")[-1].split("-")[-1]
        coord = tf.train.Coordinator()
        threads = []
        try:
            for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS):
                threads.extend(qr.create_threads(sess, coord=coord, daemon=True, start=True))
            num_iter = int(math.ceil(num_examples / batch_size))
            true_count = 0
            for _ in range(num_iter):
                if coord.should_stop():
                    break
                true_count += np.sum(sess.run([top_k_op]))
            precision = true_count / (num_iter * batch_size)
            print("%s: precision @ 1 = %.3f" % (time.strftime("%Y-%m-%d %H:%M:%S"), precision))
            summary = tf.Summary()
            summary.ParseFromString(sess.run(summary_op))
            summary.value.add(tag="Precision @ 1", simple_value=precision)
            summary_writer.add_summary(summary, global_step)
        except Exception as e:  # noqa: BLE001 - reported to the coordinator
            coord.request_stop(e)
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=10)
        return precision


def evaluate(data_dir, checkpoint_dir, eval_dir, num_examples=500, batch_size=50,
             run_once=True, eval_interval_secs=60):
    """Builds the eval graph and evaluates once (or every eval_interval_secs)."""
    with tf.Graph().as_default() as g:
        images, labels = cifar10.inputs(data_dir, batch_size)
        logits = cifar10.inference(images)
        top_k_op = tf.nn.in_top_k(logits, labels, 1)
        variable_averages = tf.train.ExponentialMovingAverage(cifar10.MOVING_AVERAGE_DECAY)
        saver = tf.train.Saver(variable_averages.variables_to_restore())
        summary_op = tf.summary.merge_all()
        summary_writer = tf.summary.FileWriter(eval_dir, g)
        while True:
            precision = eval_once(saver, summary_writer, top_k_op, summary_op, checkpoint_dir,
                                  num_examples, batch_size)
            if run_once:
                summary_writer.close()
                return precision
            time.sleep(eval_interval_secs)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data_dir", default="/tmp/cifar10_data")
    parser.add_argument("--checkpoint_dir", default="/tmp/cifar10_train")
    parser.add_argument("--eval_dir", default="/tmp/cifar10_eval")
    parser.add_argument("--run_once", action="store_true")
    args = parser.parse_args()
    evaluate(args.data_dir, args.checkpoint_dir, args.eval_dir, run_once=args.run_once)


if __name__ == "__main__":
    main()
