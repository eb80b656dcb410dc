"""runtime/process_settings.py: the process-wide settings are made in one place, the jax
flags only when trainflow's XLA backend is first used (each case in a fresh process)."""
import json
import os
import subprocess
import sys

import pytest

import trainflow

_SRC = os.path.dirname(os.path.dirname(os.path.abspath(trainflow.__file__)))

_SCRIPT = r"""
import json
import jax
import trainflow.compat.v1 as tf
from trainflow._src.runtime.backends import xla_backend
out = {"after_import": bool(jax.config.read("jax_enable_x64"))}
with tf.Session() as sess:
    sess.run(tf.constant(1.0))
out["after_session"] = bool(jax.config.read("jax_enable_x64"))
xla_backend.load_lowerings()
out["after_use"] = [bool(jax.config.read("jax_enable_x64")),
                    bool(jax.config.read("jax_cpu_enable_async_dispatch"))]
print(json.dumps(out))
"""


def test_jax_flags_are_set_when_the_xla_backend_is_first_used():
    pytest.importorskip("jax")
    env = {k: v for k, v in os.environ.items() if k not in ("TF_XLA_FLAGS", "JAX_ENABLE_X64")}
    out = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                         timeout=120, check=True, env=dict(env, PYTHONPATH=_SRC))
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"after_import": False, "after_session": False,
                      "after_use": [True, False]}


_MALLOC = r"""
import json
import trainflow.compat.v1 as tf
from trainflow._src.kernels import heap
before = heap._state["done"]
with tf.Session() as sess:
    sess.run(tf.constant(1.0))
print(json.dumps({"before": before, "done": heap._state["done"],
                  "applied": heap._state["applied"]}))
"""


@pytest.mark.parametrize("keep, applied", [("1", True), ("0", False)])
def test_the_first_session_sets_malloc_unless_opted_out(keep, applied):
    from trainflow._src.kernels import heap
    if not heap._glibc():
        pytest.skip("glibc's malloc only")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    env.update(PYTHONPATH=_SRC, TRAINFLOW_KEEP_FREED_MEMORY=keep)
    out = subprocess.run([sys.executable, "-c", _MALLOC], capture_output=True, text=True,
                         timeout=120, check=True, env=env)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"before": False, "done": True, "applied": applied}
