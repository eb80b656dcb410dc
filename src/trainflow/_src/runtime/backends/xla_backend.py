"""The XLA backend: a segment of a plan (consecutive ops that all have a lowering and need
no host context) becomes one function of (feed values, variable values) -> (fetched
values, new variable values), traced once per signature of shapes and dtypes with
`jax.jit` and cached. The host (NumPy) program calls a segment as one fused kernel.

Lowerings are registered per op type with
``registry.register_kernel(op_type, fn, backend="xla")`` in the families'
``xla_lowerings.py`` modules. A lowering is called like the NumPy kernel: the op's
inputs (jax or NumPy arrays; list arguments as lists) and its attrs as the keyword-only
parameters it names. Two more keywords are offered:

  - ``check``: ``check(failed, message, cls=InvalidArgumentError)`` records a run-time
    check (a traced boolean); the segment raises ``cls`` naming the op after the call,
    since a compiled function cannot raise;
  - ``op``: the Operation being lowered.

A lowering may carry ``fn.applies_to(op) -> bool``: ops of its type for which it says
False stay on the host (a While whose gradient records its iterations).

Ref inputs (of Assign / Apply* ops) arrive as `Ref` objects: read ``ref.value``, write
with ``ref.set(new)``; the segment writes the new values back into the session's
variable buffers after the call, in place where the shape allows (contract 5). Resource
handles arrive as Refs too, to lowerings marked ``takes_resources`` (xla_resources.py).

An op whose inputs are all values known while tracing (constants, static shapes) runs
its NumPy kernel at trace time, so shape arithmetic stays static. A segment that cannot
be traced (a data-dependent shape, a lowering that does not apply) runs on NumPy.
"""
import importlib
import inspect
import threading

import jax
import numpy as np

from trainflow._src import tf_logging
from trainflow._src.framework import errors, op_index, registry
from trainflow._src.runtime import process_settings, run_state
from trainflow._src.runtime.backends import numpy_backend, xla_donation, xla_resources
from trainflow._src.runtime.backends.xla_donation import Ref

NAME = "xla"
# A variable's old device buffer is dead after a step that writes it: donating it lets
# the new value reuse its memory (on CPU too: no fresh pages to fault in and no cache
# misses on them, about a fifth of the MLP step's CPU time). A step whose variables may
# be donated by another thread reads and writes them under their locks.
# On CPU, below this many bytes of written variables a step does not donate: small
# buffers come from the allocator's cache, and donating costs a check pass per step.
# None: 1 MiB on CPU, 0 elsewhere (asked of jax on first use, after its flags are set).
DONATE_MIN_BYTES = None
_default_donate_min = []


def _donate_min_bytes():
    if DONATE_MIN_BYTES is not None:
        return DONATE_MIN_BYTES
    if not _default_donate_min:
        _default_donate_min.append(1 << 20 if jax.default_backend() == "cpu" else 0)
    return _default_donate_min[0]


def on_cpu():
    """Whether jax computes on the CPU."""
    return jax.default_backend() == "cpu"


def _import_lowering(op_type):
    """Imports the module of op_type's lowering (framework/op_index.py), if it has one."""
    module = op_index.XLA_LOWERING_MODULES.get(op_type)
    if module is None:
        return False
    importlib.import_module(module)
    return True


def activate():
    """Readies the backend on its first use: sets jax's flags (runtime/
    process_settings.py) and has the registry import each op type's lowering module
    when the planner first asks for that lowering."""
    process_settings.configure_jax()
    registry.set_kernel_loader(NAME, _import_lowering)


def load_lowerings():
    """Activates the backend and imports every lowering module (each registers its
    lowerings once), for tools and tests that look at all of them."""
    activate()
    for module in sorted(set(op_index.XLA_LOWERING_MODULES.values())):
        importlib.import_module(module)


_SPECIAL = ("check", "op")
_HOST_DTYPES = frozenset(["string", "resource", "variant"])
_lowering_info = {}


def _lowering(op_type):
    """(fn, attr names, wants check, wants op) of op_type's lowering."""
    info = _lowering_info.get(op_type)
    if info is None:
        fn = registry.kernel(op_type, NAME)
        params = inspect.signature(fn).parameters.values()
        kw = [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
        attrs = [k for k in kw if k not in _SPECIAL]
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
            # `**attrs`: the attrs the op's NumPy kernel takes.
            attrs += [a for a in registry.get(op_type).kernel_attrs if a not in attrs]
        info = _lowering_info[op_type] = (fn, tuple(attrs), "check" in kw, "op" in kw)
    return info


def lowerable_ops(ops, chosen, fed, folded, frames=False):
    """The ops of a plan that may run inside an XLA segment: those of `chosen` (the ops
    the planner gives this backend: it has their types' lowerings) not
    host-only or blocking, with no fed output, not folded (folded values are bound as
    constants), and, unless `frames` (xla_cond decides about TF1 conds), not downstream
    of a Switch (a dead branch is then a host matter)."""
    dead = set()
    out = set()
    for op in ops:
        if not frames and (op._type in ("Switch", "RefSwitch") or any(
                t._op in dead for t in op._inputs) or any(c in dead for c in op._control_inputs)):
            dead.add(op)
            continue
        info = op._info
        if info is None or info.host_only or info.blocking or op in folded:
            continue
        if op not in chosen:
            continue
        fn = registry.kernel(op._type, NAME)
        # A lowering may apply to some ops of its type only (a While whose gradient
        # records its iterations stays on the host).
        if hasattr(fn, "applies_to") and not fn.applies_to(op):
            continue
        if any(t in fed for t in op._outputs):
            continue
        # jax arrays hold numbers only: a folded string (an Assert's message) is bound,
        # a resource handle becomes a Ref.
        if any(t._dtype.base_dtype.name in _HOST_DTYPES and t._op not in folded and
               not xla_resources.takes_handle(t, fn) for t in op._inputs) or \
                any(t._dtype.base_dtype.name in _HOST_DTYPES for t in op._outputs):
            continue
        out.add(op)
    return out


class _Arg:
    """The signature of one input of a segment op, as the host program reads it."""

    __slots__ = ("is_ref",)

    def __init__(self, is_ref):
        self.is_ref = is_ref

    @staticmethod
    def count(attrs):
        return None


class _SegmentInfo:
    __slots__ = ("op_def", "output_aliases_input")

    def __init__(self, args):
        self.op_def = type("SegmentOpDef", (), {"inputs": args})()
        self.output_aliases_input = False


class SegmentOp:
    """Stands for one XLA segment in the host program (the shape of an Operation that
    the NumPy backend reads: inputs, outputs, a name and a creation site)."""

    def __init__(self, index, ops, inputs, outputs):
        self.ops = ops
        self._inputs = inputs
        self._outputs = outputs
        self._control_inputs = []
        self._type = self.type = "XlaCluster"
        self.name = self._name = f"cluster_{index}/xla_run"
        self.creation_site = ops[0].creation_site
        self._attrs = {}
        self._info = _SegmentInfo([_Arg(t._dtype._is_ref_dtype) for t in inputs])


def segment_op(index, ops, plan_ops, fetches, folded):
    """The SegmentOp of `ops` (a segment of the plan `plan_ops`)."""
    inside = set(ops)
    produced = {t for op in ops for t in op._outputs}
    inputs, seen = [], set()
    for op in ops:
        for t in op._inputs:
            # Folded values are bound as constants while tracing, not passed per step.
            if t not in produced and t not in seen and t._op not in folded:
                seen.add(t)
                inputs.append(t)
    needed = set(fetches)
    for op in plan_ops:
        if op not in inside:
            needed.update(op._inputs)
    outputs = [t for op in ops for t in op._outputs if t in needed]
    return SegmentOp(index, ops, inputs, outputs)


class _Trace:
    """One compiled signature of a segment: the jitted function and what tracing it
    learnt (which variables it writes, which checks it makes)."""

    def __init__(self):
        self.fn = None
        self.written = ()
        self.checks = ()
        self.donated = ()
        self.late = None  # the checks that depend on a variable (None: all, or unknown)
        self.pre = ()  # the others
        self.pre_fn = None  # their flags, computed before a step that donates,
        self.pre_args = ()  # from these of its arguments
        self.reads = {}
        self.fallback = False
        self.reason = None


class SegmentKernel:
    """The fused kernel of one segment: ``kernel(*input values)`` -> output values.

    Ref inputs arrive as VariableSlots; ref outputs are returned as VariableSlots.
    """

    def __init__(self, seg, folded, kernels, producers=()):
        """
        Args:
          seg: the SegmentOp.
          folded: the planner's folded values.
          kernels: the NumPy kernels of seg.ops (what runs when tracing fails).
          producers: (op, kernel) of the folded ops whose values the segment reads.
        """
        self.seg = seg
        self.ops = seg.ops
        self._folded = folded
        self._ref_pos = [i for i, t in enumerate(seg._inputs) if xla_resources.is_variable(t)]
        self._val_pos = [i for i, t in enumerate(seg._inputs)
                         if not xla_resources.is_variable(t)]
        self._traces = {}
        self._lock = threading.Lock()
        self.auto = None  # chooses NumPy or compiled per step when the default picks XLA
        # The same ops on NumPy: what runs when a signature cannot be traced.
        self._numpy = numpy_backend.Program(
            [op for op, _ in producers] + seg.ops, seg._outputs, seg._inputs, folded,
            [k for _, k in producers] + list(kernels), raw_refs=True)

    # -- tracing -------------------------------------------------------------------------
    def _trace_fn(self, entry, ref_dtypes, aliases):
        seg = self.seg
        folded = self._folded
        ref_pos, val_pos = self._ref_pos, self._val_pos

        def fn(ref_values, values, raw_flags=False):
            env = {}
            checks = xla_donation.StepChecks(entry.late)
            # (Guarded where the first trace found buffers to donate.)
            refs = [Ref(v, d, checks if entry.donated else None)
                    for v, d in zip(ref_values, ref_dtypes)]
            for i, r in zip(ref_pos, refs):
                env[seg._inputs[i]] = r
            for i, v, k in zip(val_pos, values, aliases):
                # A value that is a variable's buffer (a read fed in) reads that variable
                # where it is used, as the buffer would (contract 5).
                env[seg._inputs[i]] = v if k < 0 else refs[k]
            self._lower_ops(env, folded, checks)
            results = []
            reads = {}
            for j, t in enumerate(seg._outputs):
                v = env[t]
                if isinstance(v, Ref) and not t._dtype._is_ref_dtype:
                    # A read of a variable returned from the step is the variable's buffer
                    # (after the write-back), as the NumPy backend returns it.
                    if v.value is None:
                        raise _UninitializedRead(t)
                    reads[j] = refs.index(v)
                results.append(None if isinstance(v, Ref) else v)
            entry.reads = reads
            entry.written = tuple(k for k, r in enumerate(refs) if r.written)
            entry.checks = tuple((op, msg, cls) for op, _, msg, cls in checks)
            flags = [jax.numpy.asarray(failed, bool).reshape(()) for _, failed, _, _ in checks]
            # The old buffers that the new values can take over (same shape and dtype).
            entry.donated = xla_donation.donatable(
                entry.written, [r.value for r in refs], ref_values, _donate_min_bytes())
            if raw_flags:
                return tuple(flags)
            # One scalar says whether any check failed: a single read per step.
            failed = jax.numpy.stack(flags) if flags else None
            late = checks.late_checks()
            new = []
            for k in entry.written:
                r = refs[k]
                if k in entry.donated and late and (
                        r.guarded is None or r.guarded[0] is not r.value or
                        r.guarded[1] < len(late)):
                    # Set before a later check, or in a branch: a failed step gives back
                    # the old value of a donated buffer.
                    new.append(jax.numpy.where(xla_donation.any_failed(late),
                                               ref_values[k], r.value))
                else:
                    new.append(r.value)
            return results, new, failed
        return fn

    def _lower_ops(self, env, folded, checks):
        for op in self.ops:
            for t, v in zip(op._outputs, self._lower(op, env, folded, checks)):
                env[t] = v

    @staticmethod
    def _arg_values(op, env, folded):
        args, i = [], 0
        for arg in op._info.op_def.inputs:
            n = arg.count(op._attrs)
            items = []
            for t in op._inputs[i:i + (1 if n is None else n)]:
                if t._op in folded:
                    v = folded[t._op]
                    v = v[t._value_index] if isinstance(v, tuple) else v
                else:
                    v = env[t]
                if isinstance(v, Ref) and not arg.is_ref and not xla_resources.is_handle(t):
                    if v.value is None:
                        raise _UninitializedRead(t)
                    v = v.value
                items.append(v)
            i += len(items)
            args.append(items[0] if n is None else items)
        return args

    def _lower(self, op, env, folded, checks):
        info = op._info
        if op._type == "Identity" and isinstance(env.get(op._inputs[0]), Ref):
            # A variable read (`v/read`) is the variable's buffer: its consumers see the
            # value at the time they run, updates made before them included.
            return (env[op._inputs[0]],)
        args = self._arg_values(op, env, folded)
        flat = [a for x in args for a in (x if isinstance(x, list) else [x])]
        if (info.kernel is not None and not info.stateful and not info.kernel_wants_ctx
                and flat and all(isinstance(a, (np.ndarray, np.generic)) for a in flat)):
            # Every input is known while tracing: compute it now, keeping it static.
            kwargs = {a: op._attrs[a] for a in info.kernel_attrs if a in op._attrs}
            with np.errstate(all="ignore"):
                out = info.kernel(*args, **kwargs)
        else:
            fn, attrs, wants_check, wants_op = _lowering(op._type)
            # String attrs (padding, data_format) arrive as str.
            kwargs = {a: _attr(op._attrs[a]) for a in attrs if a in op._attrs}
            if wants_check:
                kwargs["check"] = lambda failed, message, cls=errors.InvalidArgumentError: \
                    checks.append((op, failed, message, cls))
            if wants_op:
                kwargs["op"] = op
            out = fn(*args, **kwargs)
        n = len(op._outputs)
        if n == 0:
            return ()
        if n == 1:
            return (out[0],) if isinstance(out, (tuple, list)) else (out,)
        return tuple(out)

    # -- running ---------------------------------------------------------------------------
    # The segment raises its own errors, and its NumPy paths (tracing, the fallback) set
    # NumPy's float error state themselves: the host program needs none around it.
    handles_float_errors = True

    def __call__(self, *args):
        if self.auto is not None:
            return self.auto.call(self, args)  # xla_auto.Chooser
        return self._call(args)

    def _call(self, args):
        slots = [xla_resources.slot_of(args[i]) for i in self._ref_pos] \
            if self._ref_pos else ()  # (handles: their slots)
        # Read, compute and write back under the variables' locks: one thread must not
        # pass a buffer that another has just donated, and use_locking updates and
        # AssignAdd/AssignSub (always locked in TF) lose no update.
        locks = xla_resources.acquire_all(slots) if slots else ()
        try:
            return self._step(args, slots)
        except _CheckFailed as e:
            failed = e
        finally:
            for lock in locks:
                lock.release()
        # The variables hold their old values, so the same step on NumPy (which takes the
        # locks itself) raises the NumPy path's own error (class and message).
        self._numpy.run(list(args))
        op, message, cls = failed.checks[failed.index]
        raise cls(None, op, f"{message}\n\t [[node {op.name} ({op.type}) "
                            f"defined at {op.creation_site} ]]") from None

    def _step(self, args, slots):
        if slots:
            values = [args[i] for i in self._val_pos]
            aliases = xla_resources.host_aliases(slots, values) if values else ()
            ref_values = [s.device_value(xla_resources.device_copy) for s in slots]
            key = (tuple(None if v is None else (v.shape, v.dtype) for v in ref_values),
                   _signature(values), aliases)
        else:
            # No variables: the values are the arguments, in order.
            ref_values = aliases = ()
            values = args
            key = ((), _signature(args), ())
        entry = self._traces.get(key)
        if entry is None:
            with np.errstate(all="ignore"):  # tracing computes constant inputs on NumPy
                entry = self._compile(key, slots, ref_values, values,
                                      aliases or (-1,) * len(values))
        if entry.fallback:
            out = self._numpy.run(list(args))
            return out[0] if len(out) == 1 else out
        return self._finish(entry, args, slots, ref_values, values)

    def _finish(self, entry, args, slots, ref_values, values):
        if entry.pre_fn is not None:
            # The checks that depend on no variable, before anything is donated.
            # (As NumPy arrays: np.any of a jax array would run a jax reduction.)
            args_in = (*ref_values, *values)
            failed = np.asarray(entry.pre_fn(*[args_in[k] for k in entry.pre_args]))
            if failed.any():
                raise _CheckFailed(entry.pre[int(np.argmax(failed))], entry.checks)
        results, new_refs, failed = entry.fn(*ref_values, *values)
        if failed is not None and (failed := np.asarray(failed)).any():
            # The donated buffers are gone: their old values came back in their place.
            step = run_state.current()
            for k, value in zip(entry.written, new_refs):
                if k in entry.donated:
                    slots[k].store_device(value, step)
            raise _CheckFailed(int(np.argmax(failed)), entry.checks)
        if new_refs:
            step = run_state.current()
            for k, value in zip(entry.written, new_refs):
                slots[k].store_device(value, step)
        out = []
        reads = entry.reads
        for j, (t, v) in enumerate(zip(self.seg._outputs, results)):
            if j in reads:
                out.append(slots[reads[j]].value)
            elif v is None:
                out.append(self._ref_slot(t, args))
            else:
                out.append(np.asarray(v))
        return out[0] if len(out) == 1 else out

    def _compile(self, key, slots, ref_values, values, aliases):
        with self._lock:
            entry = self._traces.get(key)
            if entry is not None:
                return entry
            entry = _Trace()
            dtypes = [s.dtype.base_dtype.as_numpy_dtype if s.dtype is not None and
                      hasattr(s.dtype, "base_dtype") else
                      (None if v is None else v.dtype) for s, v in zip(slots, ref_values)]
            try:
                # Trace and compile now, so what tracing learns is known before use; the
                # calls then take jax's fast path, which reuses this compilation.
                traced = self._trace_fn(entry, dtypes, aliases)
                n = len(ref_values)

                def flat(*args):
                    return traced(list(args[:n]), list(args[n:]))
                if n:
                    # A first trace learns which variables the step writes (their old
                    # buffers are dead after it: donated) and which of its checks
                    # depend on a variable (xla_donation.py).
                    closed = jax.make_jaxpr(lambda *a: traced(list(a[:n]), list(a[n:]), True))(
                        *ref_values, *values)
                    if entry.donated and entry.checks:
                        entry.late, entry.pre, pre_fn, entry.pre_args = \
                            xla_donation.split_checks(closed, n, aliases)
                fn = jax.jit(flat, donate_argnums=entry.donated)
                lowered = fn.lower(*ref_values, *values)
                if entry.pre and entry.donated:
                    args_in = (*ref_values, *values)
                    pre_fn.lower(*[args_in[k] for k in entry.pre_args]).compile()
                    entry.pre_fn = pre_fn
                lowered.compile()
                entry.fn = fn
            except _UninitializedRead as e:
                raise self._uninitialized(e) from None  # not cached: it may be set later
            except errors.OpError:
                raise
            except Exception as e:  # noqa: BLE001 - anything untraceable runs on NumPy
                tf_logging.vlog(1, "XLA segment %s runs on NumPy: %s", self.seg.name, e)
                entry.fallback = True
                entry.reason = f"{type(e).__name__}: {e}"
            self._traces[key] = entry
            return entry

    def _ref_slot(self, t, args):
        """The VariableSlot a ref output of the segment stands for."""
        seen = set()
        while t not in seen:
            seen.add(t)
            if t in self.seg._inputs:
                return args[self.seg._inputs.index(t)]
            op = t._op
            ref_inputs = [x for x in op._inputs if x._dtype._is_ref_dtype]
            if not ref_inputs:
                break
            t = ref_inputs[0]
        raise errors.InternalError(None, t._op, f"No variable behind ref output {t.name}")

    def _uninitialized(self, e):
        t = e.tensor
        consumer = next((op for op in self.ops if t in op._inputs), t._op)
        name = t._op.name
        return errors.FailedPreconditionError(
            None, consumer, f"Attempting to use uninitialized value {name}\n\t [[node "
                            f"{consumer.name} ({consumer.type}) defined at "
                            f"{consumer.creation_site} ]]")


def lower_op(op, env, folded, checks):
    """The traced outputs of `op`, its inputs read from `env` (tensor -> value) or
    `folded`, as a segment lowers each of its ops; `checks` collects its run-time checks
    as (op, failed, message, class). The lowerings of functional control flow
    (xla_control_flow.py) lower the ops of their function graphs with it."""
    return SegmentKernel._lower(SegmentKernel, op, env, folded, checks)


def _signature(values):
    """(shape, dtype) per value input of a segment: with the variables' signature and
    the aliases, the key of a segment's traces."""
    try:
        return tuple([(v.shape, v.dtype) for v in values])
    except AttributeError:  # a Python number or another value without an array's shape
        return tuple([(np.shape(v), getattr(v, "dtype", type(v))) for v in values])


def _attr(value):
    return value.decode() if isinstance(value, bytes) else value


class _CheckFailed(Exception):
    """A run-time check of a step failed (`index`: the first failing one of `checks`)."""

    def __init__(self, index, checks):
        super().__init__(index)
        self.index = index
        self.checks = checks


class _UninitializedRead(Exception):
    def __init__(self, tensor):
        super().__init__(tensor.name)
        self.tensor = tensor


def cond_frames(ops, fetches, fed, folded):
    """What of a plan's TF1 conds can lower (xla_cond.Frames), or None."""
    return _xla_cond().Frames.build(ops, fetches, fed, folded)


def add_folded(ops, folded, lowerable, frames):
    """Adds to `lowerable` the folded ops that may join a segment (xla_cond.add_folded)."""
    _xla_cond().add_folded(ops, folded, lowerable, frames)


def lower_segment(index, ops, plan_ops, outputs_for, folded, kernel_for, frames=None):
    """Lowers one segment the planner cut: (its SegmentOp, its fused SegmentKernel).

    Args:
      index: the segment op's place in the host program (names it).
      ops: the segment's ops; plan_ops: the host program's ordered ops (what reads the
        segment's outputs).
      outputs_for: Tensors read after the plan's ops (fetches, predicates of later
        segments).
      folded: the planner's folded values.
      kernel_for: fn(op) -> its bound NumPy kernel (what runs when tracing fails).
      frames: the plan's cond Frames, or None.
    """
    sop = segment_op(index, ops, plan_ops, outputs_for, folded)
    producers = list(dict.fromkeys(t._op for op in ops for t in op._inputs
                                   if t._op in folded))
    args = ([kernel_for(op) for op in ops], [(op, kernel_for(op)) for op in producers])
    if frames is not None:
        return frames.segment_kernel(index, sop, *args)
    return sop, SegmentKernel(sop, folded, *args)


def _xla_cond():
    # Imported on use: xla_cond builds on this module's SegmentOp and SegmentKernel.
    from trainflow._src.runtime.backends import xla_cond
    return xla_cond
