"""Kills a process that saves checkpoints at random moments: the checkpoint the state file
names always restores exactly (or there is none yet), and the next save leaves no temporary
file behind. 30 kills in CI; TRAINFLOW_CRASH_KILLS=N for more."""
import os
import random
import re
import signal
import subprocess
import sys
import time

import numpy as np

import crash_saver
from trainflow._src.train import checkpoint_management as cm
from trainflow._src.train.checkpoint_reader import NewCheckpointReader

KILLS = int(os.environ.get("TRAINFLOW_CRASH_KILLS", "30"))
_TEMP = re.compile(r"\.tempstate|checkpoint\.tmp|\.tmp-\d+-")
FIGURES = {}


class ForkServer:
    """The crash_saver fork server: forks savers on request, reaps them after a kill."""

    def __init__(self, directory):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        self.proc = subprocess.Popen([sys.executable, crash_saver.__file__, directory],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=env)

    def _ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return int(self.proc.stdout.readline())

    def fork(self, seed):
        return self._ask(f"fork {seed}")

    def reap(self, pid):
        return self._ask(f"reap {pid}")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def _check_restores(prefix):
    reader = NewCheckpointReader(prefix)
    try:
        step = int(reader.get_tensor("global_step"))
        for name, want in crash_saver.values_for(step).items():
            got = reader.get_tensor(name)
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=name)
    finally:
        reader.close()
    return step


def test_kills_during_saves_never_damage_the_named_checkpoint(tmp_path):
    directory = str(tmp_path)
    server = ForkServer(directory)
    rng = random.Random(1234)
    restored = none_yet = pending = 0
    try:
        for kill in range(KILLS):
            pid = server.fork(kill + 1)
            time.sleep(rng.uniform(0.0, 0.25))
            os.kill(pid, signal.SIGKILL)
            server.reap(pid)
            pending += any(n.endswith(".commit") for n in os.listdir(directory))
            latest = cm.latest_checkpoint(directory)
            if latest is None:
                assert cm.get_checkpoint_state(directory) is None
                none_yet += 1
            else:
                _check_restores(latest)
                state = cm.get_checkpoint_state(directory)
                for kept in state.all_model_checkpoint_paths:
                    _check_restores(kept)
                restored += 1
            # The next save to the directory cleans up after the killed one.
            crash_saver.save(directory, 10 ** 6 + kill, same_prefix=kill % 2 == 0,
                             sharded=kill % 3 == 0)
            left = [n for n in os.listdir(directory) if _TEMP.search(n)]
            assert left == [], left
            _check_restores(cm.latest_checkpoint(directory))
    finally:
        server.close()
    FIGURES.update(kills=KILLS, restored=restored, none_yet=none_yet,
                   killed_mid_commit=pending)
    print(f"\ncrash test: {FIGURES}")
    assert restored + none_yet == KILLS
