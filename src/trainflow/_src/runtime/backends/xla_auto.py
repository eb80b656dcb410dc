"""XLA chosen by the default (TRAINFLOW_XLA_AUTO, xla_switch.py): no compile stall, and
each segment on the backend that is faster for it.

A segment the planner cuts runs on NumPy (its ops' own kernels, bit for bit the NumPy
backend's results) while a background thread traces and compiles it; jax's persistent
cache (process_settings.py) makes that compile a cache read in a later process. Once
compiled, the segment takes a trial between steps: a few steps compiled, then a few on
NumPy, timed; the faster keeps the segment for that signature of shapes. The variables
move between host and device between steps only (their slots hand the value over), so
every step sees exactly the state the previous one left.

Cost model, checked against measurements (docs/xla.md): on XLA:CPU the convolutions
are slower than the NumPy backend's im2col kernels, so a plan with a convolution never
gets here on a CPU (xla_switch.Auto.plan_backend): it keeps NumPy's kernels without
compiling (a compile of a conv step takes seconds of the cores the NumPy steps run on).
"""
import threading
import time

import numpy as np

from trainflow._src import tf_logging
from trainflow._src.runtime.backends import xla_backend, xla_resources

NAME = xla_backend.NAME
TRIAL_STEPS = 3  # timed steps per backend (after one untimed step that moves the state)
lowerable_ops = xla_backend.lowerable_ops
cond_frames = xla_backend.cond_frames
add_folded = xla_backend.add_folded


def lower_segment(*args, **kwargs):
    """xla_backend.lower_segment, the kernel choosing its backend as above."""
    sop, kernel = xla_backend.lower_segment(*args, **kwargs)
    kernel.auto = Chooser()
    return sop, kernel


class _State:
    """One signature of a segment: compiling, on trial, or decided."""

    __slots__ = ("choice", "compiled", "times", "pending", "calls")

    def __init__(self):
        self.calls = 0
        self.choice = None  # "xla" or "numpy" once decided
        self.compiled = None  # set by the compiling thread: True, or False (cannot)
        self.times = {"xla": [], "numpy": []}
        self.pending = "xla"  # the backend on trial next


class Chooser:
    """Runs one segment (`call`) on NumPy or compiled, per signature (see above)."""

    def __init__(self):
        self._states = {}
        self._lock = threading.Lock()

    def call(self, kernel, args):
        slots = [xla_resources.slot_of(args[i]) for i in kernel._ref_pos]
        current = [s.current() for s in slots]
        if any(v is None for v in current):
            return _numpy(kernel, args)  # NumPy raises the uninitialized read
        values = [args[i] for i in kernel._val_pos] if slots else list(args)
        key = (tuple([(v.shape, v.dtype) for v in current]), xla_backend._signature(values))
        state = self._states.get(key)
        if state is None:
            with self._lock:
                state = self._states.setdefault(key, _State())
        if state.calls < 2:
            # A signature run once (an initializer) is not worth a compile.
            with self._lock:
                state.calls += 1
                if state.calls == 2:
                    self._start(kernel, slots, current, values, state)
        choice = state.choice
        if choice == "xla":
            return kernel._call(args)
        if choice == "numpy" or not state.compiled:
            return _numpy(kernel, args)
        return self._trial(kernel, args, state)

    @staticmethod
    def _start(kernel, slots, current, values, state):
        """Compiles the signature in a background thread, from copies of the values."""
        aliases = xla_resources.host_aliases(slots, values) if slots and values else ()
        ref_copies = [np.array(v) for v in current]
        value_copies = [np.array(v) if isinstance(v, np.ndarray) else v for v in values]
        key = ((tuple([(v.shape, v.dtype) for v in current]),
                xla_backend._signature(values), aliases) if slots else
               ((), xla_backend._signature(values), ()))

        def compile_():
            try:
                refs = [xla_resources.device_copy(v) for v in ref_copies]
                with np.errstate(all="ignore"):
                    entry = kernel._compile(key, slots, refs, value_copies,
                                            aliases or (-1,) * len(values))
                state.compiled = not entry.fallback
            except Exception as e:  # noqa: BLE001 - what cannot compile stays on NumPy
                tf_logging.vlog(1, "XLA segment %s stays on NumPy: %s", kernel.seg.name, e)
                state.compiled = False
            if not state.compiled:
                state.choice = "numpy"
        threading.Thread(target=compile_, name=f"trainflow-xla-{kernel.seg.name}",
                         daemon=True).start()

    def _trial(self, kernel, args, state):
        """One trial step on the backend whose turn it is; decides after the last."""
        on = state.pending
        times = state.times[on]
        start = time.perf_counter()
        out = kernel._call(args) if on == "xla" else _numpy(kernel, args)
        times.append(time.perf_counter() - start)
        if len(times) > TRIAL_STEPS:  # the first step of each moved the state: not timed
            if on == "xla":
                state.pending = "numpy"
            else:
                fast = min(state.times["xla"][1:]) < min(state.times["numpy"][1:])
                state.choice = "xla" if fast else "numpy"
                tf_logging.vlog(1, "XLA segment %s runs on %s (best %.3g ms compiled, "
                                   "%.3g ms on NumPy)", kernel.seg.name, state.choice,
                                1e3 * min(state.times["xla"][1:]),
                                1e3 * min(state.times["numpy"][1:]))
        return out


def _numpy(kernel, args):
    out = kernel._numpy.run(list(args))
    return out[0] if len(out) == 1 else out
