"""Saving checkpoints the way a Saver does, for the crash test: bundle writer (single or
sharded through merge_bundles), then the `checkpoint` state file, then max_to_keep rotation.

`python crash_saver.py DIR` runs a fork server: one process imports everything once and
forks a saver per request (`fork SEED` -> pid; `reap PID` -> status), so that the test can
SIGKILL many savers cheaply.
"""
import os
import random
import sys

import numpy as np

from trainflow._src.formats import atomic
from trainflow._src.formats import tensor_bundle
from trainflow._src.train import checkpoint_management as cm

MAX_TO_KEEP = 3


def values_for(step):
    """The tensors saved at `step` (deterministic, so a restore can be checked exactly)."""
    rng = np.random.default_rng(step)
    n = 1000 + (step * 7919) % 60000
    return {
        "global_step": np.int64(step),
        "w": rng.standard_normal(n).astype(np.float32),
        "b": np.full((3, 5), step, dtype=np.float64),
        "names": np.array([f"s{step}-{i}".encode() for i in range(step % 7 + 1)], dtype=object),
    }


def save(directory, step, same_prefix, sharded):
    """One save: writes the checkpoint, updates the state file, deletes rotated-out ones."""
    prefix = os.path.join(directory, "model.ckpt" if same_prefix else f"model.ckpt-{step}")
    tensors = values_for(step)
    if sharded:
        tmp_dir = atomic.temp_path(prefix)
        os.makedirs(tmp_dir)
        names = sorted(tensors)
        parts = []
        for k, chunk in enumerate((names[::2], names[1::2])):
            part = os.path.join(tmp_dir, f"part-{k:05d}-of-00002")
            with tensor_bundle.BundleWriter(part) as w:
                for name in chunk:
                    w.add(name, tensors[name])
            parts.append(part)
        tensor_bundle.merge_bundles(parts, prefix)
        atomic.remove_quietly(tmp_dir)
    else:
        tensor_bundle.save(prefix, tensors)
    state = cm.get_checkpoint_state(directory)
    kept = [p for p in (state.all_model_checkpoint_paths if state else []) if p != prefix]
    kept.append(prefix)
    dropped, kept = kept[:-MAX_TO_KEEP], kept[-MAX_TO_KEEP:]
    cm.update_checkpoint_state_internal(directory, prefix, kept, save_relative_paths=True)
    for old in dropped:
        cm.remove_checkpoint(old)
    return prefix


def save_forever(directory, seed):
    """Saves again and again (steps go on from the state file's latest checkpoint)."""
    rng = random.Random(seed)
    step = seed * 1000
    while True:
        step += 1
        save(directory, step, same_prefix=rng.random() < 0.5, sharded=rng.random() < 0.4)


def _serve(directory):
    for line in sys.stdin:
        cmd, _, arg = line.strip().partition(" ")
        if cmd == "fork":
            pid = os.fork()
            if pid == 0:
                try:
                    sys.stdin.close()
                    save_forever(directory, int(arg))
                finally:
                    os._exit(1)
            print(pid, flush=True)
        elif cmd == "reap":
            _, status = os.waitpid(int(arg), 0)
            print(status, flush=True)
        else:
            break


if __name__ == "__main__":
    _serve(sys.argv[1])

