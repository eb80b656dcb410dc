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
    in the process see these flags from then on.

Opting out: set TRAINFLOW_KEEP_FREED_MEMORY=0 in the environment to leave malloc as it
is (the malloc change is also skipped where the C library is not glibc, or where the
user tuned malloc with MALLOC_*_ variables or glibc.malloc tunables). The pool follows
the config; the jax flags are part of what the XLA backend computes (TF's dtypes), so
a process that must not have them leaves XLA off (the default).
"""
import threading

from trainflow._src.kernels import heap, intra_op

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
            _jax_done = True
