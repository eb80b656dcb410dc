"""The settings trainflow makes for the whole process, all made here, each once.

  - malloc (kernels/heap.py): glibc's mmap and trim thresholds are raised so that the
    memory of freed kernel buffers is reused from one step to the next instead of being
    handed back to the OS and faulted in again. Made when the first session is created.
  - the intra-op pool (kernels/intra_op.py): sized from the first session's
    `ConfigProto.intra_op_parallelism_threads` (0 or no config: one thread per usable
    processor), as TensorFlow's process-wide pool; `intra_op.set_threads` resizes it.
  - jax (only when trainflow's XLA backend is first used, never when a module is
    imported): `jax_enable_x64`, so TF's int64/float64 tensors keep their width, and
    `jax_cpu_enable_async_dispatch` off, so a step on CPU runs in the calling thread and
    its outputs (the variables' new values) are ready when it returns. Other jax users
    in the process see these flags from then on. And jax's persistent compilation
    cache, so that a program's compiled steps are reused by the next process that runs
    it: in $TRAINFLOW_XLA_CACHE_DIR, else $XDG_CACHE_HOME/trainflow/xla (~/.cache/
    trainflow/xla), every compiled program written (no minimum compile time), at most
    2 GiB where the `filelock` package is installed (least recently used entries go
    first). An empty TRAINFLOW_XLA_CACHE_DIR, or
    a cache directory the user set in jax's own config, leaves jax's cache as it is.

Opting out: set TRAINFLOW_KEEP_FREED_MEMORY=0 in the environment to leave malloc as it
is (the malloc change is also skipped where the C library is not glibc, or where the
user tuned malloc with MALLOC_*_ variables or glibc.malloc tunables). The pool follows
the config; the jax flags are part of what the XLA backend computes (TF's dtypes), so
a process that must not have them leaves XLA off (the default).
"""
import importlib.util
import os
import threading

from trainflow._src.kernels import heap, intra_op

CACHE_ENV = "TRAINFLOW_XLA_CACHE_DIR"
CACHE_MAX_BYTES = 2 << 30

_jax_lock = threading.Lock()
_jax_done = False


def session_created(config):
    """Makes the malloc and intra-op settings for a new session with `config` (the first
    session's config sizes the pool; later calls change nothing)."""
    intra_op.size_from_first_session(
        max(0, getattr(config, "intra_op_parallelism_threads", 0) or 0))
    heap.retain_freed_memory()


def configure_jax():
    """Sets the jax flags the XLA backend runs under, once per process (before it
    creates jax's CPU client, which reads the dispatch flag)."""
    global _jax_done
    if _jax_done:
        return
    with _jax_lock:
        if not _jax_done:
            import jax  # only here: jax stays out of `import trainflow`
            jax.config.update("jax_enable_x64", True)
            jax.config.update("jax_cpu_enable_async_dispatch", False)
            cache = xla_cache_dir()
            if cache and jax.config.jax_compilation_cache_dir is None:
                jax.config.update("jax_compilation_cache_dir", cache)
                jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
                if importlib.util.find_spec("filelock") is not None:
                    # (jax bounds its cache only with filelock installed.)
                    jax.config.update("jax_compilation_cache_max_size", CACHE_MAX_BYTES)
            _jax_done = True


def xla_cache_dir():
    """Where compiled XLA programs persist between processes; None when switched off."""
    if CACHE_ENV in os.environ:
        return os.environ[CACHE_ENV] or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "trainflow", "xla")
