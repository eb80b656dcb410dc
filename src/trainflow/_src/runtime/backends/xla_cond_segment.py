"""Tracing a segment that holds ops of lowered TF1 conds (see xla_cond.py for how the
conditions are found).

The segment's ops are traced in an order that keeps the ops of one condition together
(a branch, the branch's part of the gradient). Each run of ops under one condition whose
flag is traced is a *region*:

  - a region holding a loop or a branch (While/If: on a dead branch's values a loop need
    not end), a product or a convolution, or at least `_REGION_OPS` ops, runs under
    `lax.cond(flag, region, skip)`: only the taken branch's work is done; the skipped
    side gives zeros (the Merge after it selects the live value), leaves the variables
    as they were and fails no check;
  - a smaller region is computed whatever the flag (cheaper than a conditional for a
    few elementwise ops): its checks are and-ed with the flag and its variable writes
    are `where(flag, new, old)`.

An op whose inputs are all known while tracing is computed then (it stays static); an op
whose condition is known while tracing (a folded predicate) is traced, or left out,
accordingly.
"""
import collections
import heapq

import jax
import jax.numpy as jnp
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.kernel_context import DEAD
from trainflow._src.runtime.backends import numpy_backend, xla_backend
from trainflow._src.runtime.backends.xla_cond import _MERGE, _SWITCH, GatedOp, NotLowerable

Ref = xla_backend.Ref
_REGION_OPS = 16
_MUST_BRANCH = frozenset(["While", "StatelessWhile", "If", "StatelessIf"])
_HEAVY = _MUST_BRANCH | frozenset([
    "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Conv2D",
    "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative",
    "DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropFilter"])


class CondSegmentKernel(xla_backend.SegmentKernel):
    """A segment holding ops of lowered TF1 conds: each is traced under its condition."""

    def __init__(self, seg, folded, kernels, producers, frames):
        super().__init__(seg, folded, kernels, producers)
        self.frames = frames
        # Dead inputs (from gated host ops) enter as zeros of their static shapes.
        self._zeros = {}
        for i, t in enumerate(seg._inputs):
            if frames.tcond(t) and not t._dtype._is_ref_dtype and t._shape.is_fully_defined():
                self._zeros[i] = np.zeros(t._shape.as_list(),
                                          t._dtype.base_dtype.as_numpy_dtype)
        self._numpy = self._gated_program(seg, folded, kernels, producers)
        self._order = _cluster(seg.ops, self._cond_of)
        self._preds = set(frames.pred_roots(seg.ops))

    def _cond_of(self, op):
        return self.frames.op_cond(op)

    def _gated_program(self, seg, folded, kernels, producers):
        """The segment on NumPy, its conditional ops behind their gates."""
        frames = self.frames
        prog_ops, prog_kernels = [], []
        # A conditional constant is gated on predicates the segment may compute: it
        # goes right before its first reader.
        late = {op: k for op, k in producers if frames.op_cond(op)}
        for op, k in list(producers) + list(zip(seg.ops, kernels)):
            for t in op._inputs:
                if t._op in late and op not in late:
                    gated = GatedOp(t._op, frames, folded[t._op])
                    prog_ops.append(gated)
                    prog_kernels.append(gated.gate(None))
                    del late[t._op]
            if op in folded and frames.op_cond(op):
                continue
            if frames._conditional(op):
                gated = GatedOp(op, frames)
                prog_ops.append(gated)
                prog_kernels.append(gated.gate(k))
            else:
                prog_ops.append(op)
                prog_kernels.append(k)
        return numpy_backend.Program(prog_ops, seg._outputs, seg._inputs, folded,
                                     prog_kernels, raw_refs=True)

    def __call__(self, *args):
        if self._zeros and any(args[i] is DEAD for i in self._zeros):
            args = [self._zeros[i] if a is DEAD and i in self._zeros else a
                    for i, a in enumerate(args)]
        return super().__call__(*args)

    # -- tracing ---------------------------------------------------------------------------
    def _lower_ops(self, env, folded, checks):
        flags = _Flags(self.frames, env, folded)
        region = None  # [condition, flag, ops, their outputs]
        for op in self._order:
            cond = self.frames.op_cond(op)
            if region and any(p in region[3] for p, _ in self._literals(op)):
                self._region(region, env, folded, checks, flags)  # it computes a predicate
                region = None
            live = flags.of(cond)
            if live is False:
                for t in op._outputs:
                    env[t] = None  # never runs: not traced
                continue
            pending = region[3] if region else ()
            if live is True or self._direct(op, env, folded, pending):
                if region and (any(t in pending for t in op._inputs) or
                               any(c in region[2] for c in op._control_inputs)):
                    self._region(region, env, folded, checks, flags)
                    region = None
                self._one(op, live, env, folded, checks, flags)
                continue
            if region and region[0] != cond:
                self._region(region, env, folded, checks, flags)
                region = None
            if region is None:
                region = [cond, live, [], set()]
            region[2].append(op)
            region[3].update(op._outputs)
        if region:
            self._region(region, env, folded, checks, flags)
        for t in self.seg._outputs:
            if env.get(t, 0) is None:
                # The output of an op that never runs here: zeros for the host's gates.
                if t._dtype._is_ref_dtype or not t._shape.is_fully_defined():
                    raise NotLowerable(f"{t.name} is never live")
                env[t] = jnp.zeros(t._shape.as_list(), t._dtype.base_dtype.as_numpy_dtype)

    def _literals(self, op):
        lits = set(self.frames.op_cond(op))
        if op._type in _MERGE:
            for t in op._inputs:
                lits |= self.frames.tcond(t)
        return lits

    @staticmethod
    def _direct(op, env, folded, pending):
        """Whether `op` is traced on its own: its inputs are all known while tracing, or
        it reads a variable (`v/read`)."""
        if op._type == "Identity" and op._inputs[0] not in pending and \
                isinstance(env.get(op._inputs[0]), Ref):
            return True
        if not op._inputs or op._type in _MERGE or op._type in _SWITCH:
            return False
        info = op._info
        if info.stateful or info.kernel is None or info.kernel_wants_ctx:
            return False
        return all(t._op in folded or (t not in pending and isinstance(
            env.get(t), (np.ndarray, np.generic))) for t in op._inputs)

    def _one(self, op, live, env, folded, checks, flags):
        """Traces one op whose condition's flag is `live`."""
        if op._type in _MERGE:
            outs = _merge(op, env, folded, checks, flags)
        elif op._type in _SWITCH:
            data = env[op._inputs[0]] if op._inputs[0]._op not in folded else \
                self._arg_values(op, env, folded)[0]
            outs = (data, data)
        else:
            unset = self._unset_reads(op, env) if self.frames.op_cond(op) else ()
            try:
                if unset:
                    # A branch reading a variable not initialized yet (when this was
                    # traced): it reads zeros, and fails as on NumPy if taken.
                    checks.append((op, live, "Attempting to use uninitialized value",
                                   errors.FailedPreconditionError))
                    for r, t in unset:
                        r.value = jnp.zeros(t._shape.as_list(), r.dtype)
                if live is True:
                    outs = self._lower(op, env, folded, checks)
                else:
                    outs = self._predicated(op, live, env, folded, checks)
            finally:
                for r, _ in unset:
                    r.value = None
        for t, v in zip(op._outputs, outs):
            env[t] = v

    @staticmethod
    def _unset_reads(op, env):
        """(variable, tensor) of the uninitialized variables `op` reads."""
        out, i = [], 0
        for arg in op._info.op_def.inputs:
            n = arg.count(op._attrs)
            for t in op._inputs[i:i + (1 if n is None else n)]:
                r = env.get(t)
                if isinstance(r, Ref) and r.value is None and not arg.is_ref:
                    if not t._shape.is_fully_defined():
                        raise NotLowerable(f"{op.name} reads a variable of unknown shape")
                    out.append((r, t))
            i += 1 if n is None else n
        return out

    def _predicated(self, op, live, env, folded, checks):
        """Traces `op` whatever `live` says: its checks fire and its variable writes land
        only when `live` holds."""
        refs = []
        for t in op._inputs:
            r = env.get(t)
            if isinstance(r, Ref) and all(r is not x for x, _ in refs):
                refs.append((r, r.value))
        first = len(checks)
        outs = self._lower(op, env, folded, checks)
        for k in range(first, len(checks)):
            o, failed, message, cls = checks[k]
            checks[k] = (o, jnp.logical_and(live, jnp.asarray(failed, bool)), message, cls)
        for r, old in refs:
            if r.value is not old:
                if old is None:
                    raise NotLowerable(f"{op.name} initializes a variable in a branch")
                r.value = jnp.where(live, r.value, old)
        return outs

    def _region(self, region, env, folded, checks, flags):
        cond, live, ops, produced = region
        if not (len(ops) >= _REGION_OPS or any(op._type in _HEAVY for op in ops)):
            for op in ops:
                self._one(op, live, env, folded, checks, flags)
            return
        # The region's values read after it (by later ops, as segment outputs or as
        # predicates).
        outside = set(self.seg._outputs) | self._preds
        inside = set(ops)
        for op in self.ops:
            if op not in inside:
                outside.update(t for t in op._inputs if t in produced)
        needed = [t for op in ops for t in op._outputs if t in outside]
        refs = list({id(v): v for v in env.values() if isinstance(v, Ref)}.values())
        kinds = {}

        def taken(_):
            local = collections.ChainMap({}, env)
            inner = flags.child(local)
            saved = [(r.value, r.written) for r in refs]
            local_checks = []
            try:
                for op in ops:
                    self._one(op, True, local, folded, local_checks, inner)
                values = []
                for t in needed:
                    v = local[t]
                    if v is None or isinstance(v, (Ref, np.ndarray, np.generic)):
                        kinds[t] = v  # a variable, a static value or never live
                    else:
                        kinds[t] = _DYNAMIC
                        values.append(v)
                new = [r.value for r in refs]
            finally:
                for r, (value, written) in zip(refs, saved):
                    r.value, r.written = value, written
            kinds["refs"] = [k for k, (r, (old, _)) in enumerate(zip(refs, saved))
                             if new[k] is not old]
            if any(saved[k][0] is None for k in kinds["refs"]):
                raise NotLowerable("a variable is initialized in a branch")
            kinds["checks"] = [(o, m, c) for o, _, m, c in local_checks]
            return (tuple(values), tuple(new[k] for k in kinds["refs"]),
                    tuple(jnp.asarray(f, bool).reshape(()) for _, f, _, _ in local_checks))

        shapes = jax.eval_shape(taken, 0)

        def skip(_):
            values = tuple(jnp.zeros(s.shape, s.dtype) for s in shapes[0])
            return values, tuple(refs[k].value for k in kinds["refs"]), \
                tuple(jnp.asarray(False) for _ in shapes[2])
        values, new, failed = jax.lax.cond(live, taken, skip, 0)
        values = iter(values)
        for t in needed:
            env[t] = next(values) if kinds[t] is _DYNAMIC else kinds[t]
        for k, v in zip(kinds["refs"], new):
            refs[k].value, refs[k].written = v, True
        for (o, m, c), f in zip(kinds["checks"], failed):
            checks.append((o, f, m, c))


_DYNAMIC = object()


class _Flags:
    """The traced (or static) flags of conditions, from the predicates' values in `env`."""

    def __init__(self, frames, env, folded, cache=None):
        self.frames, self.env, self.folded = frames, env, folded
        self.cache = {} if cache is None else cache

    def child(self, env):
        """Flags inside a `lax.cond` branch: new flags stay there."""
        return _Flags(self.frames, env, self.folded, collections.ChainMap({}, self.cache))

    def literal(self, p, b):
        key = (p, b)
        if key not in self.cache:
            if p._op in self.folded:
                v = self.folded[p._op]
                v = v[p._value_index] if isinstance(v, tuple) else v
            else:
                v = self.env[p]
            if isinstance(v, (np.ndarray, np.generic, bool)):
                self.cache[key] = self.frames.truth(v, b)
            else:
                v = jnp.reshape(jnp.asarray(v), ()).astype(bool)
                self.cache[key] = v if b else jnp.logical_not(v)
        return self.cache[key]

    def of(self, cond):
        out = True
        for p, b in sorted(cond, key=lambda lit: (lit[0].name, lit[1])):
            f = self.literal(p, b)
            if f is False:
                return False
            out = f if out is True else (out if f is True else jnp.logical_and(out, f))
        return out


def _cluster(ops, cond_of):
    """A valid order of `ops` that keeps ops of one condition together: among the ready
    ops, one of the last op's condition first, else the earliest."""
    index = {op: k for k, op in enumerate(ops)}
    users = collections.defaultdict(list)
    waiting = {}
    for op in ops:
        deps = {t._op for t in op._inputs if t._op in index}
        deps.update(c for c in op._control_inputs if c in index)
        waiting[op] = len(deps)
        for d in deps:
            users[d].append(op)
    ready = {}

    def push(op):
        heapq.heappush(ready.setdefault(cond_of(op), []), index[op])
    for op in ops:
        if not waiting[op]:
            push(op)
    out, last = [], None
    while ready:
        key = last if last in ready else min(ready, key=lambda c: ready[c][0])
        op = ops[heapq.heappop(ready[key])]
        if not ready[key]:
            del ready[key]
        out.append(op)
        last = key
        for u in users[op]:
            waiting[u] -= 1
            if not waiting[u]:
                push(u)
    return out


def _merge(op, env, folded, checks, flags):
    """(value, value_index) of a Merge: the first input whose condition holds."""
    cands = []
    for k, t in enumerate(op._inputs):
        f = flags.of(flags.frames.tcond(t))
        if f is False:
            continue
        v = folded[t._op] if t._op in folded else env[t]
        if isinstance(v, tuple):
            v = v[t._value_index]
        if isinstance(v, Ref):
            if v.value is None:
                # A variable not initialized yet (`initialized_value`'s taken side when
                # it is): zeros here, and the NumPy error if this side is taken.
                if not t._shape.is_fully_defined():
                    raise NotLowerable(f"{op.name} reads a variable of unknown shape")
                checks.append((op, f, "Attempting to use uninitialized value",
                               errors.FailedPreconditionError))
                v = np.zeros(t._shape.as_list(), v.dtype)
            else:
                v = v.value
        cands.append((k, v, f))
        if f is True:
            break
    if not cands:
        return None, None
    shapes = {tuple(jnp.shape(v)) for _, v, _ in cands}
    if len(shapes) > 1:
        raise NotLowerable(f"{op.name}: its branches give shapes {sorted(shapes)}")
    dtype = op._outputs[0]._dtype.base_dtype.as_numpy_dtype
    k, value, f = cands[-1]
    value, index = jnp.asarray(value, dtype), jnp.asarray(k, jnp.int32)
    for k, v, f in reversed(cands[:-1]):
        value = jnp.where(f, jnp.asarray(v, dtype), value)
        index = jnp.where(f, jnp.int32(k), index)
    return value, index
