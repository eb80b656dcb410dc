"""heap.retain_freed_memory: with it, a step-like pattern of large NumPy buffers
(allocated, written, all freed, again) stops page-faulting after its first round; it
is applied once, and left out under TRAINFLOW_KEEP_FREED_MEMORY=0 or the user's own
malloc tuning. Each case runs in a fresh process (mallopt is process-wide)."""
import json
import os
import subprocess
import sys

import pytest

import trainflow
from trainflow._src.kernels import heap

# The folder that holds the trainflow package, for the child processes.
_SRC = os.path.dirname(os.path.dirname(os.path.abspath(trainflow.__file__)))

pytestmark = pytest.mark.skipif(not heap._glibc(), reason="glibc's malloc only")

_SCRIPT = r"""
import json, resource, sys
import numpy as np
from trainflow._src.kernels import heap
applied = heap.retain_freed_memory() if sys.argv[1] == "retain" else False
again = heap.retain_freed_memory() if sys.argv[1] == "retain" else False
faults = []
for _ in range(4):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    arrays = [np.ones(2 << 20, np.float32) for _ in range(6)]  # six 8 MiB buffers
    del arrays
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(json.dumps({"applied": applied, "again": again, "faults": faults}))
"""


def _run(mode, **env):
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("MALLOC_") and k != "TRAINFLOW_KEEP_FREED_MEMORY"}
    base["PYTHONPATH"] = _SRC
    out = subprocess.run([sys.executable, "-c", _SCRIPT, mode], capture_output=True,
                         text=True, timeout=120, env=dict(base, **env), check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_retained_buffers_stop_faulting():
    result = _run("retain")
    assert result["applied"] and result["again"]
    # 48 MiB of fresh pages in the first round (thousands of faults, fewer with huge
    # pages), next to none after it.
    first, later = result["faults"][0], result["faults"][1:]
    assert first > 0 and max(later) * 10 <= first, result["faults"]


def test_default_malloc_faults_every_round():
    """What the setting is for: glibc alone hands the buffers back each round."""
    result = _run("default")
    first, later = result["faults"][0], result["faults"][1:]
    assert first > 0 and min(later) * 2 >= first, result["faults"]


@pytest.mark.parametrize("env", [{"TRAINFLOW_KEEP_FREED_MEMORY": "0"},
                                 {"MALLOC_TRIM_THRESHOLD_": "1000000"}])
def test_left_out_when_turned_off_or_tuned_by_the_user(env):
    assert not _run("retain", **env)["applied"]
