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


def _checkpoint_sums(path):
    reader = tf.train.NewCheckpointReader(path)
    return {name: float(reader.get_tensor(name).sum())
            for name in reader.get_variable_to_shape_map()}


def _read_report(path, pid, timeout=60):
    """The JSON line the trainer prints once its session is restored."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path):
            with open(path) as f:
                line = f.readline()
            if line.endswith("\n"):
                return json.loads(line)
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    raise AssertionError(f"trainer {pid} reported nothing in {timeout}s")


def _wait_gone(pid, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        with open(f"/proc/{pid}/stat") as f:  # a zombie waits for the server to reap it
            if f.read().split(") ", 1)[1].startswith("Z"):
                return
        time.sleep(0.01)
    raise AssertionError(f"trainer {pid} still running")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork, SIGKILL and /proc")
def test_kills_lose_nothing_that_was_checkpointed(tmp_path):
    logdir = str(tmp_path / "ckpt")
    env = dict(os.environ)
    src = os.path.abspath(os.path.join(os.path.dirname(TRAINER), "..", "..", "..", "src"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    server = subprocess.Popen([sys.executable, TRAINER, "--fork-server"], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    rng = random.Random(0)
    expected = None  # what the next start must restore (None: a fresh model)
    try:
        for kill in range(KILLS + 1):
            last = kill == KILLS
            out = str(tmp_path / f"report-{kill}.txt")
            server.stdin.write(f"{logdir} {0 if last else 10**9} {out}\n")
            server.stdin.flush()
            pid = int(server.stdout.readline())
            restored = _read_report(out, pid)
            if expected is None:
                assert restored["global_step"] == 0
            else:
                assert restored.keys() == expected.keys()
                for name, value in expected.items():
                    assert restored[name] == pytest.approx(value, rel=1e-6, abs=1e-6), name
            if not last:
                time.sleep(rng.uniform(0.05, 0.5))
                os.kill(pid, signal.SIGKILL)
            _wait_gone(pid)
            latest = tf.train.latest_checkpoint(logdir)
            if latest is not None:
                expected = _checkpoint_sums(latest)
                assert expected["global_step"] == int(latest.rsplit("-", 1)[1])
                assert "w/Adam" in expected and "w/ExponentialMovingAverage" in expected
    finally:
        server.stdin.close()
        server.wait(timeout=30)
        server.stdout.close()
    assert expected is not None and expected["global_step"] > 0
    leftovers = [f for f in os.listdir(logdir) if "tmp" in f or "tempstate" in f]
    assert not leftovers
