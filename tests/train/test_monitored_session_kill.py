"""A MonitoredTrainingSession killed with SIGKILL at random moments resumes from its last
checkpoint with the global step, Adam's slots and the moving averages restored."""
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

import trainflow.compat.v1 as tf

TRAINER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                       "kill_resume_trainer.py")
KILLS = int(os.environ.get("TRAINFLOW_KILL_RESUME_KILLS", "20"))


def _start(logdir, max_steps=10**9):
    env = dict(os.environ)
    src = os.path.join(os.path.dirname(TRAINER), "..", "..", "..", "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (os.path.abspath(src),
                                                    env.get("PYTHONPATH")) if p)
    return subprocess.Popen([sys.executable, TRAINER, logdir, str(max_steps)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def _checkpoint_sums(path):
    reader = tf.train.NewCheckpointReader(path)
    return {name: float(reader.get_tensor(name).sum())
            for name in reader.get_variable_to_shape_map()}


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_kills_lose_nothing_that_was_checkpointed(tmp_path):
    logdir = str(tmp_path)
    rng = random.Random(0)
    expected = None  # what the next start must restore (None: a fresh model)
    for kill in range(KILLS + 1):
        proc = _start(logdir, max_steps=10**9 if kill < KILLS else 0)
        try:
            line = proc.stdout.readline()
            assert line, f"trainer {kill} printed nothing"
            restored = json.loads(line)
            if expected is None:
                assert restored["global_step"] == 0
            else:
                assert restored.keys() == expected.keys()
                for name, value in expected.items():
                    assert restored[name] == pytest.approx(value, rel=1e-6, abs=1e-6), name
            if kill == KILLS:
                assert proc.wait(timeout=60) == 0
                break
            time.sleep(rng.uniform(0.05, 0.6))
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=30)
            proc.stdout.close()
        latest = tf.train.latest_checkpoint(logdir)
        if latest is not None:
            expected = _checkpoint_sums(latest)
            assert expected["global_step"] == int(latest.rsplit("-", 1)[1])
            assert "w/Adam" in expected and "w/ExponentialMovingAverage" in expected
    assert expected is not None and expected["global_step"] > 0
    leftovers = [f for f in os.listdir(logdir) if "tmp" in f or "tempstate" in f]
    assert not leftovers
