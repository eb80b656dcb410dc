"""Whether a session compiles with XLA: TensorFlow's own knobs, read without importing jax.

  - `ConfigProto.graph_options.optimizer_options.global_jit_level` ON_1 / ON_2 turns it
    on for one session (OFF and DEFAULT leave it off, as TF does on CPU);
  - `TF_XLA_FLAGS=--tf_xla_auto_jit=1|2` turns it on for every session (-1 turns it off,
    overriding the config; 0 or absent defers to the config), as TF reads that flag.

The XLA backend (jax) is imported only when a session asks for it; without jax one
warning is logged and the session runs on NumPy.

With neither knob set (or set to their defaults), TRAINFLOW_XLA_AUTO=1 in the
environment lets trainflow choose (`Auto`, xla_auto.py): jax loads in a background
thread while the first steps run on NumPy, then each segment compiles in the background
and keeps whichever of NumPy and XLA runs it faster. Off by default.
"""
import functools
import importlib.util
import os
import shlex
import threading
import time

from trainflow._src import tf_logging

_ENV = "TF_XLA_FLAGS"
AUTO_ENV = "TRAINFLOW_XLA_AUTO"
# Op types whose XLA:CPU kernels are slower than the NumPy backend's (docs/xla.md).
CPU_SLOW = frozenset(["Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "Conv3D",
                      "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2",
                      "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                      "DepthwiseConv2dNativeBackpropFilter"])
_lock = threading.Lock()
_backend = None
_unavailable = False


def _env_level():
    """The --tf_xla_auto_jit level from TF_XLA_FLAGS (0 when absent or unparsable)."""
    for flag in shlex.split(os.environ.get(_ENV, "")):
        if flag.startswith("--tf_xla_auto_jit="):
            value = flag.split("=", 1)[1].strip()
            # TF also accepts "single-gpu(N)"; the level is the number inside.
            if value.startswith("single-gpu(") and value.endswith(")"):
                value = value[len("single-gpu("):-1]
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


def _config_level(config):
    try:
        return int(config.graph_options.optimizer_options.global_jit_level)
    except AttributeError:
        return 0


def jit_level(config=None):
    """The effective auto-jit level for a session with `config` (<= 0 means off)."""
    env = _env_level()
    if env != 0:
        return env
    return _config_level(config) if config is not None else 0


def auto_enabled():
    """Whether TRAINFLOW_XLA_AUTO lets trainflow choose XLA where TF's knobs are unset."""
    return os.environ.get(AUTO_ENV, "").strip().lower() not in ("", "0", "false", "no")


def backend_for_session(config=None):
    """The XLA backend module when `config` / TF_XLA_FLAGS ask for XLA and jax imports;
    `AUTO` when they leave it to trainflow and TRAINFLOW_XLA_AUTO is set; None otherwise
    (after one warning when jax is missing and XLA was asked for)."""
    level = jit_level(config)
    if level > 0:
        return load_backend()
    if level == 0 and auto_enabled():
        return AUTO
    return None


class Auto:
    """The XLA backend as the default chooses it. jax (seconds of import) loads in a
    background thread once the steps of plans that may gain from it have taken
    `START_AFTER_S` seconds: a short program never pays for it, nor one whose steps
    are convolutions on a CPU (`CPU_SLOW`: XLA:CPU runs them slower than NumPy)."""

    START_AFTER_S = 1.0

    def __init__(self):
        self._thread = None
        self._lock = threading.Lock()
        self._spent = 0.0

    def start(self):
        """Starts loading jax and the backend (once), without waiting."""
        if self._thread is None and _backend is None and not _unavailable:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=load_backend, args=(True,),
                                                    name="trainflow-xla-load", daemon=True)
                    self._thread.start()

    def pending(self):
        """Whether the backend is still to load (plans made now run on NumPy)."""
        return _backend is None and not _unavailable

    def plan_backend(self, ops):
        """(the planner's backend or None, whether the plan waits for the load) for a plan
        of `ops`: a step with a convolution keeps NumPy's kernels on a CPU."""
        slow = any(op._type in CPU_SLOW for op in ops)
        if _backend is None:
            return None, not _unavailable and (_gpu_plugin() or not slow)
        if slow and _backend.on_cpu():
            return None, False
        # lazy: xla_auto imports jax, loaded by now
        from trainflow._src.runtime.backends import xla_auto
        return xla_auto, False

    def timed(self, run):
        """`run` (a plan's), counting its time towards starting the load."""
        def timed_run(*args):
            if self._thread is not None:
                return run(*args)
            start = time.perf_counter()
            try:
                return run(*args)
            finally:
                self._spent += time.perf_counter() - start
                if self._spent >= self.START_AFTER_S:
                    self.start()
        return timed_run

@functools.lru_cache(maxsize=None)
def _gpu_plugin():
    """Whether a jax GPU plugin is installed (found without importing jax)."""
    return any(importlib.util.find_spec(m) is not None
               for m in ("jax_cuda12_plugin", "jax_cuda13_plugin", "jax_rocm7_plugin"))


AUTO = Auto()


def load_backend(quiet=False):
    """The XLA backend module (activated), or None after one warning when jax
    is not installed (none when `quiet`: nobody asked for XLA). Sessions with the switch
    off use it for `jit_scope`-marked ops."""
    global _backend, _unavailable
    if _unavailable:
        return None
    if _backend is not None:
        return _backend
    with _lock:
        if _backend is None and not _unavailable:
            try:
                # lazy: the backend imports jax, which only an XLA session may load
                from trainflow._src.runtime.backends import xla_backend
                xla_backend.activate()
                _backend = xla_backend
            except ImportError as e:
                _unavailable = True
                if not quiet:
                    tf_logging.warning(
                        "XLA was requested (global_jit_level / TF_XLA_FLAGS / jit_scope) but "
                        "jax is not installed (%s); running on the NumPy backend. "
                        "Install it with `pip install trainflow[xla]`.", e)
    return _backend
