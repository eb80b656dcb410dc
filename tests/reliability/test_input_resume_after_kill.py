"""A trainer reading a tf.data pipeline under CheckpointInputPipelineHook is killed with
SIGKILL between saves, three times: each restart goes on from the element after the last
saved input position (never from the epoch start, never skipping an element)."""
import os
import random
import signal
import subprocess
import sys
import time

TRAINER = r"""
import os, sys, time
import trainflow.compat.v1 as tf

model_dir, log_path = sys.argv[1], sys.argv[2]


class Config:
    save_checkpoints_steps, save_checkpoints_secs = 1, None
    num_worker_replicas, task_type, task_id = 1, "worker", 0


class Estimator:
    model_dir, _config = model_dir, Config()


ds = tf.data.Dataset.range(100000).map(lambda x: x * 3).prefetch(2)
element = ds.make_one_shot_iterator().get_next()
gs = tf.train.get_or_create_global_step()
train = tf.group(tf.assign_add(gs, 1), element)
hooks = [tf.data.experimental.CheckpointInputPipelineHook(Estimator())]
with open(log_path, "a") as log:
    with tf.train.MonitoredTrainingSession(checkpoint_dir=model_dir, hooks=hooks,
                                           save_checkpoint_steps=1,
                                           save_summaries_steps=None) as sess:
        while not sess.should_stop():
            _, value = sess.run([train, element])
            log.write(f"{os.getpid()} {value}\n")
            log.flush()
            time.sleep(0.01)
"""


def _lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.split() for line in f.read().splitlines() if line.count(" ") == 1]


def _run_until_killed(model_dir, log_path, at_least, rng):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), TRAINFLOW_XLA="0")
    proc = subprocess.Popen([sys.executable, "-c", TRAINER, model_dir, log_path], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while sum(1 for pid, _ in _lines(log_path) if int(pid) == proc.pid) < at_least:
        assert proc.poll() is None, proc.stderr.read().decode()[-3000:]
        assert time.monotonic() < deadline, "the trainer made no progress"
        time.sleep(0.02)
    time.sleep(rng.uniform(0.0, 0.05))  # somewhere between two saves
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stderr.close()
    return proc.pid


def test_killed_trainer_resumes_from_the_next_element(tmp_path):
    rng = random.Random(7)
    model_dir, log_path = str(tmp_path / "model"), str(tmp_path / "log")
    pids = [_run_until_killed(model_dir, log_path, 15, rng) for _ in range(4)]
    runs = [[int(v) for pid, v in _lines(log_path) if int(pid) == p] for p in pids]
    for run in runs:
        assert run == list(range(run[0], run[0] + 3 * len(run), 3)), run
    assert runs[0][0] == 0
    for before, after in zip(runs, runs[1:]):
        # A step consumes one element, saves (after_run), then the trainer logs it. So the
        # next run starts just after the last logged element, or one further when the kill
        # came after the next step's save and before its log line (that element was
        # trained on and checkpointed, not lost); never at the epoch start.
        assert after[0] in (before[-1], before[-1] + 3, before[-1] + 6), \
            (before[-3:], after[:3])
    files = os.listdir(model_dir)
    assert "checkpoint_input" in files and "checkpoint" in files
