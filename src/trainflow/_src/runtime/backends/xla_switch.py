"""Whether a session compiles with XLA: TensorFlow's own knobs, read without importing jax.

  - `ConfigProto.graph_options.optimizer_options.global_jit_level` ON_1 / ON_2 turns it
    on for one session (OFF and DEFAULT leave it off, as TF does on CPU);
  - `TF_XLA_FLAGS=--tf_xla_auto_jit=1|2` turns it on for every session (-1 turns it off,
    overriding the config; 0 or absent defers to the config), as TF reads that flag.

The XLA backend (jax) is imported only when a session asks for it; without jax one
warning is logged and the session runs on NumPy.
"""
import os
import shlex
import threading

from trainflow._src import tf_logging

_ENV = "TF_XLA_FLAGS"
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


def backend_for_session(config=None):
    """The XLA backend module when `config` / TF_XLA_FLAGS ask for XLA and jax imports;
    None otherwise (after one warning when jax is missing)."""
    if jit_level(config) <= 0:
        return None
    return load_backend()


def load_backend():
    """The XLA backend module (activated), or None after one warning when jax
    is not installed. Sessions with the switch off use it for `jit_scope`-marked ops."""
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
                tf_logging.warning(
                    "XLA was requested (global_jit_level / TF_XLA_FLAGS / jit_scope) but jax "
                    "is not installed (%s); running on the NumPy backend. "
                    "Install it with `pip install trainflow[xla]`.", e)
    return _backend
