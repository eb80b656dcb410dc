"""A trainer that the kill test starts, SIGKILLs and starts again.

Run as `kill_resume_trainer.py --fork-server`, it imports trainflow once and then, for
each line `LOGDIR MAX_STEPS OUTFILE` on stdin, forks a trainer writing to OUTFILE and
answers with the child's pid, so a test can kill and restart trainers many times
without paying for an interpreter start each time.

It trains a small regression with Adam and an ExponentialMovingAverage in a
MonitoredTrainingSession checkpointing every step to argv[1]. When its session is created
it prints one JSON line holding the global step and the sum of every global variable
(slots and shadows included), so the test can compare what was restored with the
checkpoint it came from. Then it trains until killed (or argv[2] steps).
"""
import json
import os
import sys

import numpy as np

import trainflow.compat.v1 as tf


class ReportRestored(tf.train.SessionRunHook):
    def after_create_session(self, session, coord):
        names = [v.op.name for v in tf.global_variables()]
        values = session.run(tf.global_variables())
        report = {n: float(np.sum(v)) for n, v in zip(names, values)}
        print(json.dumps(report), flush=True)


def main(logdir, max_steps):
    tf.set_random_seed(1)
    x = tf.random_normal([32, 8], seed=2)
    w_true = tf.constant(np.arange(8, dtype=np.float32).reshape(8, 1))
    w = tf.get_variable("w", [8, 1])
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - tf.matmul(x, w_true)))
    step = tf.train.get_or_create_global_step()
    train = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
    with tf.control_dependencies([train]):
        train = ema.apply([w])
    with tf.train.MonitoredTrainingSession(
            checkpoint_dir=logdir, save_checkpoint_steps=1, save_summaries_steps=None,
            log_step_count_steps=None, save_graph_def=False,
            hooks=[ReportRestored(), tf.train.StopAtStepHook(last_step=max_steps)]) as sess:
        while not sess.should_stop():
            sess.run(train)


def _reap():
    """Collects every finished child, so none is left a zombie (a zombie's pid still
    looks alive to the checkpoint writer's cleanup of dead savers' temporaries)."""
    while True:
        try:
            done, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if done == 0:
            return


def fork_server():
    """Forks one trainer per command line on stdin; prints each child's pid."""
    for line in sys.stdin:
        logdir, max_steps, outfile = line.split()
        _reap()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                fd = os.open(outfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(fd, 1)
                sys.stdout = os.fdopen(1, "w")
                main(logdir, int(max_steps))
                code = 0
            finally:
                sys.stdout.flush()
                os._exit(code)
        print(pid, flush=True)
    _reap()


if __name__ == "__main__":
    if sys.argv[1] == "--fork-server":
        fork_server()
    else:
        main(sys.argv[1], int(sys.argv[2]))
