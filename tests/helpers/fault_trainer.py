"""One task of a 1 ps + N worker localhost cluster that trains with
MonitoredTrainingSession and checkpoints, for the cluster fault tests (`fault_cluster.py`):

    python fault_trainer.py --job_name=worker --task_index=0 --ps_hosts=... \
        --worker_hosts=... --checkpoint_dir=DIR --last_step=200 --save_steps=10

A ps serves until it is killed. A worker trains a small least-squares model whose
variables (and the global step) live on the ps; after each step it prints
"step <global step> <time the step began>" (the harness follows progress and
regressions from these lines) and
"done <global step>" when StopAtStepHook ends training. The chief (task 0) writes a
checkpoint every --save_steps global steps and restores the newest one when it (or the
ps) comes back, as TensorFlow's chief does.
"""
import argparse
import os
import time

import numpy as np

import trainflow.compat.v1 as tf


def _args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--job_name", required=True)
    p.add_argument("--task_index", type=int, required=True)
    p.add_argument("--ps_hosts", required=True)
    p.add_argument("--worker_hosts", required=True)
    p.add_argument("--checkpoint_dir", default=None)
    p.add_argument("--last_step", type=int, default=200)
    p.add_argument("--save_steps", type=int, default=10)
    p.add_argument("--step_sleep", type=float, default=0.02)
    p.add_argument("--timeout_ms", type=int, default=10000)
    p.add_argument("--stop_file", default=None,
                   help="training also stops once this file exists")
    return p.parse_args(argv)


class _StopFileHook(tf.train.SessionRunHook):
    """Requests a stop once `path` exists (how the long fault run ends training)."""

    def __init__(self, path):
        self._path = path

    def after_run(self, run_context, run_values):
        if os.path.exists(self._path):
            run_context.request_stop()


def _graph(cluster, task):
    rng = np.random.RandomState(0)
    features = rng.randn(64, 4).astype(np.float32)
    targets = features @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    with tf.device(tf.train.replica_device_setter(
            worker_device=f"/job:worker/task:{task}", cluster=cluster)):
        gs = tf.train.get_or_create_global_step()
        w = tf.get_variable("w", [4, 1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(features), w) - targets))
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=gs)
    return gs, train


def main(argv=None):
    args = _args(argv)
    cluster = tf.train.ClusterSpec({"ps": args.ps_hosts.split(","),
                                    "worker": args.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=args.job_name, task_index=args.task_index)
    print("serving", flush=True)
    if args.job_name == "ps":
        server.join()
        return
    gs, train = _graph(cluster, args.task_index)
    config = tf.ConfigProto(operation_timeout_in_ms=args.timeout_ms, device_filters=[
        "/job:ps", f"/job:worker/task:{args.task_index}"])
    step = None
    hooks = [tf.train.StopAtStepHook(last_step=args.last_step)]
    if args.stop_file:
        hooks.append(_StopFileHook(args.stop_file))
    with tf.train.MonitoredTrainingSession(
            master=server.target, is_chief=args.task_index == 0,
            checkpoint_dir=args.checkpoint_dir, save_checkpoint_steps=args.save_steps,
            save_summaries_steps=None, save_summaries_secs=None, log_step_count_steps=None,
            config=config, stop_grace_period_secs=5,
            hooks=hooks) as sess:
        while not sess.should_stop():
            began = time.time()
            _, step = sess.run([train, gs])
            print(f"step {step} {began:.6f}", flush=True)
            time.sleep(args.step_sleep)
    print(f"done {step}", flush=True)


if __name__ == "__main__":
    main()
